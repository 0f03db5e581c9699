/**
 * `pi-quests lint` on a pack with problems: every problem of every file in one run (the schema's,
 * what the loader finds beyond it, the pack's, the plays'), sorted by file and line, each with
 * file:line:col and what to do. Issue 27, item 8.
 */
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { REPO, runMain } from "../support/cli.ts";
import { makeWorkspace, removeWorkspaces } from "../support/workspace.ts";

afterEach(removeWorkspaces);

const lint = (path: string) => runMain(["lint", path], { cwd: REPO, env: {} });

/** A quest with a problem of every kind a quest file can have, one check each. */
const BROKEN = `version: 2
id: broken
title: Everything wrong at once
goal: Nothing here can pass.
requires: [ghost]
sandbox: sandboxes/missing
checks:
  - id: same
    type: file_exists
    pth: notes.txt
  - id: same
    type: file_exists
    path: /etc/passwd
  - type: json_path
    file: ../outside.json
    path: $.name
    assert: exists
  - type: event
    match: { event: turn_end }
    count: -1
  - type: json_path
    file: package.json
    path: $..[?(@.name)]
    assert: exists
`;

const OTHER = `version: 1
id: other
title: Needs a quest nobody wrote
goal: Write notes.
requires: [nobody]
checks:
  - type: file_exists
    path: notes.txt
`;

describe("pi-quests lint: every problem of a pack in one run", () => {
  it("schema errors, what lies beyond them, the pack's and the plays' problems: one run, sorted by file and line", async () => {
    const pack = makeWorkspace({
      "10-broken.yaml": BROKEN,
      "20-other.yaml": OTHER,
      "solutions/broken/pass.yaml": "version: 1\nsteps:\n  - promt: hi\n",
      "solutions/elsewhere/pass.yaml": "version: 1\nsteps: []\n",
    });
    const run = await lint(pack);
    expect(run.exitCode).toBe(3);
    expect(run.stdout).toBe("");
    expect(run.stderr.replaceAll(`${pack}/`, "").trimEnd().split("\n")).toEqual([
      '10-broken.yaml:5:12: requires unknown quest "ghost"; quests in this pack: other',
      "10-broken.yaml:6:10: sandbox sandboxes/missing cannot be used (no such file or folder); it names a template folder relative to this quest file",
      '10-broken.yaml:10:5: checks[0]: unknown field "pth" (did you mean path?)',
      '10-broken.yaml:11:9: duplicate check id "same" (also check 1); give each check its own id',
      "10-broken.yaml:13:11: checks[1].path: /etc/passwd is an absolute path; start it with {workspace}, {agent_dir} or {home}",
      '10-broken.yaml:15:11: checks[2].file: ../outside.json leaves the workspace through ".."; a quest path stays inside its root',
      "10-broken.yaml:20:12: checks[3].count: -1 can never pass: a number of events is 0 or more; give a value it can have",
      "10-broken.yaml:23:11: checks[4].path: a filter ([?(@.name)]) is not supported: a check never runs code from a quest; select by name, index or * ($.scripts.test, $.items[0].name, $.items[*].name) and let assert decide (equals, contains, matches)",
      '20-other.yaml:5:12: requires unknown quest "nobody"; quests in this pack: other',
      'solutions/broken/pass.yaml:3:5: steps[0]: unknown field "promt" (did you mean prompt?)',
      "solutions/elsewhere: names no quest of this pack; quests: other, broken",
    ]);
  });

  it("a check the schema refuses is not also judged for its paths; the others are", async () => {
    const pack = makeWorkspace({
      "q.yaml": `version: 1
id: q
title: T
goal: g
checks:
  - type: file_exists
    path: /etc/passwd
    kind: fiel
  - type: file_exists
    path: ../up.txt
`,
    });
    const run = await lint(pack);
    expect(run.stderr.replaceAll(`${pack}/`, "").trimEnd().split("\n")).toEqual([
      expect.stringMatching(/^q\.yaml:8:11: checks\[0\]\.kind: .*did you mean file/),
      'q.yaml:10:11: checks[1].path: ../up.txt leaves the workspace through ".."; a quest path stays inside its root',
    ]);
  });

  it("refuses counts that can never pass and JSONPath code, at the value, with what to write instead", async () => {
    const pack = makeWorkspace({
      "q.yaml": `version: 1
id: q
title: T
goal: g
checks:
  - type: git
    assert: commit_count
    count: { max: -1 }
  - type: json_path
    file: data.json
    path: $.items[(@.length-1)]
    assert: exists
  - type: command
    run: "true"
    exit_code: 256
`,
    });
    const run = await lint(pack);
    expect(run.exitCode).toBe(3);
    expect(run.stderr.replaceAll(`${pack}/`, "").trimEnd().split("\n")).toEqual([
      "q.yaml:8:12: checks[0].count: {max:-1} can never pass: a number of commits is 0 or more; give a value it can have",
      "q.yaml:11:11: checks[1].path: a script expression ([(@.length-1)]) is not supported: a check never runs code from a quest; select by name, index or * ($.scripts.test, $.items[0].name, $.items[*].name) and let assert decide (equals, contains, matches)",
      "q.yaml:15:16: checks[2].exit_code: 256 can never pass: an exit code is 0 to 255; give a value it can have",
    ]);
  });

  it("the curriculum and the starter pack stay valid", async () => {
    for (const pack of ["quests", "fixtures/packs/starter"]) {
      const run = await lint(join(REPO, pack));
      expect(run.exitCode, run.stderr).toBe(0);
    }
  });

  it("an id the schema refuses is not also a duplicate; two valid ids that clash are", async () => {
    const check = (id: string, path: string) => `  - id: ${id}\n    type: file_exists\n    path: ${path}\n`;
    const pack = makeWorkspace({
      "q.yaml": `version: 1\nid: q\ntitle: T\ngoal: g\nchecks:\n${check("Bad_Id", "a")}${check("Bad_Id", "b")}${check("ok", "c")}${check("ok", "d")}`,
    });
    const run = await lint(pack);
    expect(run.stderr.replaceAll(`${pack}/`, "").trimEnd().split("\n")).toEqual([
      "q.yaml:6:9: checks[0].id: a check id uses only a-z, 0-9 and -",
      "q.yaml:9:9: checks[1].id: a check id uses only a-z, 0-9 and -",
      'q.yaml:15:9: duplicate check id "ok" (also check 3); give each check its own id',
    ]);
  });
});
