/**
 * The bad-input corpus: every malformed input gets a clear message naming the file (and line
 * and column where there is one) and the right exit code, and never a stack trace.
 */
import { readdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { REPO, runCli, runMain } from "../support/cli.ts";
import { makeWorkspace, removeWorkspaces } from "../support/workspace.ts";

afterEach(removeWorkspaces);

const BAD_QUESTS = join(REPO, "fixtures/bad/quests");
const FIRST_FILE = join(REPO, "fixtures/quests/first-file.yaml");
const STACK_TRACE = /^\s+at .+:\d+:\d+\)?$/m;

/** Each corpus file says on its first line what must be reported: `# expect: LINE:COL text`. */
const corpus = readdirSync(BAD_QUESTS)
  .filter((name) => name.endsWith(".yaml"))
  .sort()
  .map((name) => {
    const file = join(BAD_QUESTS, name);
    const [, line, column, text] = /^# expect: (\d+):(\d+) (.+)$/m.exec(readFileSync(file, "utf8")) ?? [];
    return { name, file, where: `${file}:${line}:${column}: `, text: text?.trim() ?? "" };
  });

async function runInProcess(args: string[]) {
  return runMain(args, { cwd: REPO, env: { PI_CODING_AGENT_DIR: join(makeWorkspace(), "agent") } });
}

describe("malformed quest files", () => {
  it("the corpus has at least 30 cases", () => {
    expect(corpus.length).toBeGreaterThanOrEqual(30);
  });

  it.each(corpus)(
    "$name: lint names file:line:col and the problem, exit 3",
    async ({ file, where, text }) => {
      const run = await runInProcess(["lint", file]);
      expect(run.exitCode).toBe(3);
      const first = run.stderr.split("\n")[0] ?? "";
      expect(first.startsWith(where), `${first} should start with ${where}`).toBe(true);
      expect(first).toContain(text);
      expect(run.stdout).toBe("");
    },
  );

  it.each(corpus)("$name: check refuses it the same way, exit 3", async ({ file, where }) => {
    const run = await runInProcess(["check", file]);
    expect(run.exitCode).toBe(3);
    expect(run.stderr.startsWith(where)).toBe(true);
  });

  it("the real binary reports every file of the corpus in one run, without a stack trace", async () => {
    const run = await runCli(["lint", ...corpus.map((c) => c.file)]);
    expect(run.exitCode).toBe(3);
    for (const { where } of corpus) expect(run.stderr).toContain(where);
    for (const { text } of corpus) expect(run.stderr).toContain(text);
    expect(run.stderr).not.toMatch(STACK_TRACE);
  });
});

describe("other bad input, through the real binary", () => {
  const eventsFile = (text: string | Buffer) => {
    const file = join(makeWorkspace(), "events.jsonl");
    writeFileSync(file, text);
    return file;
  };
  const good = (seq: number) => JSON.stringify({ name: "input", seq, payload: {} });

  it.each([
    ["not JSON", `${good(0)}\n{"name": "input", "seq": 1,\n`, ":2:1: not JSON"],
    ["not an object", `${good(0)}\n[1, 2]\n`, ":2:1: not an event"],
    ["missing seq", `{"name": "input"}\n`, ":1:1: not an event (seq: "],
    ["negative seq", `{"name": "input", "seq": -1}\n`, ":1:1: not an event (seq: "],
    [
      "seq going backwards",
      `${good(3)}\n${good(2)}\n`,
      ":2:1: seq 2 is not greater than the previous event's 3",
    ],
    [
      "an unknown field",
      `{"name": "input", "seq": 0, "when": "now"}\n`,
      ':1:1: not an event (event: Unrecognized key: "when"',
    ],
    ["a binary file", Buffer.from([0x7b, 0, 0x7d]), ": is a binary file, not JSON lines"],
  ])("an events file with %s: exit 3 and file:line", async (_name, text, message) => {
    const file = eventsFile(text);
    const run = await runCli(["check", FIRST_FILE, "--cwd", makeWorkspace(), "--events", file]);
    expect(run.exitCode).toBe(3);
    expect(run.stderr).toContain(`${file}${message}`);
    expect(run.stderr).not.toMatch(STACK_TRACE);
  });

  it.each([
    [
      "no session header",
      '{"type":"message","id":"a","parentId":null,"timestamp":"2026-01-01T00:00:00Z","message":{"role":"user","content":"hi","timestamp":1}}\n',
      ":1: not a Pi session file",
    ],
    [
      "a header without its id",
      '{"type":"session","version":3,"timestamp":"2026-01-01T00:00:00Z","cwd":"/w"}\n',
      ":1: session header: id:",
    ],
  ])("a session file with %s: exit 3 and file:line", async (_name, text, where) => {
    const file = join(makeWorkspace(), "session.jsonl");
    writeFileSync(file, text);
    const run = await runCli(["check", FIRST_FILE, "--cwd", makeWorkspace(), "--session", file]);
    expect(run.exitCode).toBe(3);
    expect(run.stderr).toContain(`${file}${where}`);
    expect(run.stderr).not.toMatch(STACK_TRACE);
  });

  it("a session file with a malformed line: a FILE:LINE warning, and the check runs on the rest", async () => {
    const file = join(makeWorkspace(), "session.jsonl");
    writeFileSync(
      file,
      '{"type":"session","version":3,"id":"s1","timestamp":"2026-01-01T00:00:00Z","cwd":"/w"}\n{oops\n',
    );
    const run = await runCli(["check", FIRST_FILE, "--cwd", makeWorkspace(), "--session", file]);
    // Nothing was written: the quest fails, on what the file holds.
    expect(run.exitCode).toBe(1);
    expect(run.stderr).toMatch(new RegExp(`^${file}:2: not valid JSON \\(.+\\)$`, "m"));
    expect(run.stderr).toContain(
      `pi-quests check: 1 line of ${file} not read in full; checking against the rest`,
    );
    expect(run.stderr).not.toMatch(STACK_TRACE);
  });

  it.each([
    [["check", FIRST_FILE, "--colour"], "unknown flag --colour; the flags are --quest, --cwd"],
    [["check", FIRST_FILE, "--quest"], "--quest"],
    [["check"], "give exactly one quest file or pack folder (got 0)"],
    [["check", FIRST_FILE, FIRST_FILE], "give exactly one quest file or pack folder (got 2)"],
    [
      ["check", FIRST_FILE, "--events", "a.jsonl", "--session", "b.jsonl"],
      "give --events or --session, not both",
    ],
    [["check", FIRST_FILE, "--quest", "nope"], 'no quest "nope" here; the quests are: first-file'],
    [
      ["check", FIRST_FILE, "--events", "/nonexistent/events.jsonl"],
      "/nonexistent/events.jsonl: no such file or folder",
    ],
    [
      ["check", FIRST_FILE, "--session", "/nonexistent/s.jsonl"],
      "/nonexistent/s.jsonl: no such file or folder",
    ],
    [["check", "/nonexistent/quest.yaml"], "/nonexistent/quest.yaml: no such file or folder"],
    [["lint"], "give at least one quest file or pack folder"],
    [["lint", "/nonexistent"], "/nonexistent: no such file or folder"],
    [["lint", join(REPO, "fixtures/events")], "no quest files (.yaml or .yml) in this folder"],
    [
      ["check", FIRST_FILE, "--cwd", "/tmp", "--data-dir", "/tmp/evidence"],
      "is inside the workspace /tmp; choose a folder outside it",
    ],
    [["frobnicate"], 'unknown command "frobnicate"'],
    [[], "Usage:"],
  ])("%j: exit 3 with a sentence", async (args, message) => {
    const run = await runCli(args);
    expect(run.exitCode).toBe(3);
    expect(run.stderr).toContain(message);
    expect(run.stderr).not.toMatch(STACK_TRACE);
  });
});

describe("bad workspace files are check results, not crashes", () => {
  const quest = (check: string) => {
    const file = join(makeWorkspace(), "q.yaml");
    writeFileSync(file, `version: 1\nid: q\ntitle: Q\ngoal: g\nchecks:\n${check}`);
    return file;
  };
  const jsonCheck = (file: string) =>
    `  - type: json_path\n    file: ${file}\n    path: $.a\n    assert: exists\n`;

  it("a 5 MiB file is pending and not read: exit 2", async () => {
    const workspace = makeWorkspace({ "big.json": Buffer.alloc(5 * 1024 * 1024, 0x20) });
    const run = await runCli(["check", quest(jsonCheck("big.json")), "--cwd", workspace]);
    expect(run.exitCode).toBe(2);
    expect(run.stdout).toContain("big.json is 5242880 bytes, over the 4194304-byte read bound; not read");
  });

  it("a binary file fails with a sentence: exit 1", async () => {
    const workspace = makeWorkspace({ "data.json": Buffer.from([0x7b, 0x00, 0xff, 0x7d]) });
    const run = await runCli(["check", quest(jsonCheck("data.json")), "--cwd", workspace]);
    expect(run.exitCode).toBe(1);
    expect(run.stdout).toContain("data.json is a binary file, not JSON");
  });

  it("a symbolic link out of the workspace fails and is not read: exit 1", async () => {
    const outside = makeWorkspace({ "secret.json": '{"a": 1}' });
    const workspace = makeWorkspace();
    symlinkSync(join(outside, "secret.json"), join(workspace, "link.json"));
    const run = await runCli(["check", quest(jsonCheck("link.json")), "--cwd", workspace, "--json"]);
    expect(run.exitCode).toBe(1);
    expect(JSON.parse(run.stdout).checks[0].evidence).toMatchObject({ kind: "path", problem: "escape" });
  });

  it("a .. path out of the workspace is refused by lint, before anything runs: exit 3", async () => {
    const run = await runCli([
      "check",
      quest(jsonCheck("../../etc/passwd")),
      "--cwd",
      makeWorkspace(),
      "--json",
    ]);
    expect(run.exitCode).toBe(3);
    expect(run.stderr).toMatch(
      /q\.yaml:7:11: checks\[0\]\.file: \.\.\/\.\.\/etc\/passwd leaves the workspace through "\.\."/,
    );
  });

  it("a JSON file that does not parse fails with the parser's line: exit 1", async () => {
    const workspace = makeWorkspace({ "broken.json": '{\n  "a": 1,\n}\n' });
    const run = await runCli(["check", quest(jsonCheck("broken.json")), "--cwd", workspace, "--json"]);
    expect(run.exitCode).toBe(1);
    expect(JSON.parse(run.stdout).checks[0].evidence.parseError).toMatchObject({ line: 3 });
  });
});

describe("a session file from a newer Pi, damaged, in process", () => {
  it("a newer Pi's session file, damaged: every readable line counts, one warning a bad line", async () => {
    const session = join(REPO, "fixtures/sessions/newer-pi-damaged.jsonl");
    const workspace = makeWorkspace();
    const quest = join(workspace, "q.yaml");
    writeFileSync(
      quest,
      `version: 1
id: read-hello
title: Read hello
goal: g
checks:
  - id: asked
    type: event
    match: { event: input, fields: { text: Read hello.txt } }
  - id: read-it
    type: event
    same_session: true
    match: { event: tool_result, tool: read, outcome: success, fields: { input.path: hello.txt } }
  - id: named
    type: event
    match: { event: session_name, fields: { name: Reading hello } }
  - id: compacted
    type: event
    match: { event: session_compact, fields: { summary: { contains: it says hello } } }
  - id: no-model-switch
    type: event
    count: 0
    match: { event: model_select }
`,
    );
    const run = await runMain(["check", quest, "--cwd", workspace, "--session", session, "--json"], {
      cwd: REPO,
      env: { PI_CODING_AGENT_DIR: join(makeWorkspace(), "agent") },
    });
    expect(run.exitCode).toBe(0);
    expect(JSON.parse(run.stdout)).toMatchObject({ status: "pass", counts: { passed: 5 } });
    // The format, an entry type and a role no tested Pi writes: said once each, on stderr.
    const untested = "this Pi is untested: an entry of this Pi's session file could not be read";
    expect(run.stderr.split("\n")).toEqual([
      `${session}:1: ${untested} (its header says session format 4; pi-quests reads up to 3; read as far as its entries are known)`,
      `${session}:5: ${untested} (a "workspace_snapshot" entry, first on this line; read without it)`,
      `${session}:8: ${untested} (a "critic" message, first on this line; read without it)`,
      `${session}:11: model_change entry: modelId: Invalid input: expected string, received undefined`,
      expect.stringMatching(
        new RegExp(`^${session}:16: not valid JSON \\(.+\\); the file ends in the middle of this line`),
      ),
      `pi-quests check: 5 lines of ${session} not read in full; checking against the rest`,
      "",
    ]);
    expect(run.stderr).not.toMatch(STACK_TRACE);
  });
});
