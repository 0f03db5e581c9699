import { mkdir, mkdtemp, readFile, realpath, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { formatDiagnostic } from "../../src/core/diagnostics.ts";
import { loadQuestFile, loadQuests, readBounded } from "../../src/verifier/loader.ts";

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "pi-quests-loader-"));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function quest(name: string, text: string): Promise<string> {
  const file = join(dir, name);
  await writeFile(file, text);
  return file;
}

const minimal = (id: string, extra = "") => `version: 1
id: ${id}
title: Quest ${id}
goal: Do the thing.
${extra}checks:
  - type: event
    match: { event: turn_end }
`;

async function problems(path: string): Promise<string[]> {
  const loaded = await loadQuests(path);
  if (loaded.ok) throw new Error("expected problems");
  return loaded.diagnostics.map((d) => formatDiagnostic({ ...d, file: d.file.replace(`${dir}/`, "") }));
}

describe("loading one quest file", () => {
  it("applies defaults and gives checks their ids", async () => {
    const loaded = await loadQuestFile(await quest("a.yaml", minimal("first")));
    expect(loaded.ok).toBe(true);
    if (!loaded.ok) return;
    expect(loaded.value).toMatchObject({ id: "first", hints: [], requires: [] });
    expect(loaded.value.checks[0]).toMatchObject({ id: "check-1", type: "event", same_session: false });
  });

  it("names file, line and column of an unknown field, pointing at the key", async () => {
    const file = await quest("a.yaml", `${minimal("first")}    colour: red\n`);
    expect(await problems(file)).toEqual([
      'a.yaml:8:5: checks[0]: unknown field "colour"; see docs/quest-format.md for the fields this accepts',
    ]);
  });

  it("reports every problem in a file, not only the first", async () => {
    const file = await quest(
      "a.yaml",
      `version: 9
id: Bad_Id
title: ""
goal: x
checks:
  - type: file_exists
    path: 42
  - type: nope
  - type: command
    run: npm test
    exit_code: zero
  - type: event
    match: { event: tool_result, tool: { regex: "(" } }
`,
    );
    const found = await problems(file);
    expect(found).toEqual([
      "a.yaml:1:10: version: version must be 1, 2 or 3 (the format versions so far)",
      "a.yaml:2:5: id: a quest id starts with a-z or 0-9 and uses only a-z, 0-9 and -",
      "a.yaml:3:8: title: title must not be empty",
      "a.yaml:7:11: checks[0].path: must be string, not number 42",
      'a.yaml:8:11: checks[1].type: type "nope" is not a check type; the types are: event, file_exists, json_path, yaml_path, command, git, mcp_handshake, skill_valid, confirm, review',
      'a.yaml:11:16: checks[2].exit_code: expected an integer, {equals: N}, or {min: N} and/or {max: N}; got string "zero"',
      "a.yaml:13:49: checks[3].match.tool.regex: invalid regex: missing closing ): `(` (quest regexes use RE2 syntax; see docs/quest-format.md, Predicates)",
    ]);
  });

  it("says a required field is missing at the map that lacks it", async () => {
    const file = await quest(
      "a.yaml",
      "version: 1\nid: x\ntitle: X\ngoal: g\nchecks:\n  - type: file_exists\n",
    );
    expect(await problems(file)).toEqual(["a.yaml:6:5: checks[0].path: is required"]);
  });

  it("reports YAML syntax errors with their position", async () => {
    const file = await quest("a.yaml", "version: 1\nid: [unclosed\n");
    const [first] = await problems(file);
    expect(first).toMatch(/^a\.yaml:\d+:\d+: YAML: /);
  });

  it("reports duplicate YAML keys and duplicate check ids", async () => {
    expect((await problems(await quest("a.yaml", `id: y\n${minimal("x")}`)))[0]).toMatch(
      /^a\.yaml:3:1: YAML: "id" appears twice in this map; keep one/,
    );
    const twice = `${minimal("x")}    id: same\n  - type: event\n    id: same\n    match: { event: input }\n`;
    expect(await problems(await quest("b.yaml", twice))).toEqual([
      'b.yaml:10:9: duplicate check id "same" (also check 1); give each check its own id',
    ]);
  });

  it("refuses empty, binary and oversized files with a sentence", async () => {
    expect(await problems(await quest("empty.yaml", "  \n"))).toEqual([
      "empty.yaml: is empty; a quest file needs version, id, title, goal and checks",
    ]);
    await writeFile(join(dir, "bin.yaml"), Buffer.from([0x76, 0, 0xff]));
    expect(await problems(join(dir, "bin.yaml"))).toEqual(["bin.yaml: is a binary file, not YAML text"]);
    await writeFile(join(dir, "big.yaml"), Buffer.alloc(2 * 1024 * 1024, 0x20));
    expect((await problems(join(dir, "big.yaml")))[0]).toMatch(
      /^big\.yaml: is 2097152 bytes; a quest file may be at most/,
    );
  });

  it("refuses a sandbox folder that does not exist", async () => {
    const file = await quest("a.yaml", minimal("x", "sandbox: sandboxes/none\n"));
    expect(await problems(file)).toEqual([
      "a.yaml:5:10: sandbox sandboxes/none cannot be used (no such file or folder); it names a template folder relative to this quest file",
    ]);
    await mkdir(join(dir, "sandboxes/real"), { recursive: true });
    const ok = await loadQuestFile(await quest("b.yaml", minimal("y", "sandbox: sandboxes/real\n")));
    expect(ok.ok && ok.value.sandboxDir).toBe(join(dir, "sandboxes/real"));
  });

  it("a path that does not exist says so and what to give", async () => {
    expect(await problems(join(dir, "missing.yaml"))).toEqual([
      "missing.yaml: no such file or folder; give a quest .yaml file or a pack folder",
    ]);
  });
});

describe("loading a pack", () => {
  it("orders quests by file name", async () => {
    await quest("20-second.yaml", minimal("second", "requires: [first]\n"));
    await quest("10-first.yml", minimal("first"));
    await quest("notes.md", "not a quest");
    const loaded = await loadQuests(dir);
    expect(loaded.ok && loaded.value.map((q) => q.id)).toEqual(["first", "second"]);
  });

  it("reports duplicate ids, unknown requires and cycles, each where it is written, in file order", async () => {
    await quest("a.yaml", minimal("a", "requires: [b]\n"));
    await quest("b.yaml", minimal("b", "requires: [a, ghost]\n"));
    await quest("c.yaml", minimal("a"));
    expect(await problems(dir)).toEqual([
      "a.yaml:5:11: requires form a cycle: a -> b -> a; no quest in it could ever start",
      'b.yaml:5:15: requires unknown quest "ghost"; quests in this pack: a, b',
      `c.yaml:2:5: duplicate quest id "a" (also in ${dir}/a.yaml); quest ids are unique in a pack`,
    ]);
  });

  it("reports problems from every file of the pack", async () => {
    await quest("a.yaml", "version: 1\n");
    await quest("b.yaml", "id: [\n");
    const found = await problems(dir);
    expect(found.some((line) => line.startsWith("a.yaml:"))).toBe(true);
    expect(found.some((line) => line.startsWith("b.yaml:"))).toBe(true);
  });

  it("an empty folder is an error, not an empty pack", async () => {
    expect(await problems(dir)).toEqual([`${dir}: no quest files (.yaml or .yml) in this folder`]);
  });
});

describe("readBounded, for other loaders", () => {
  it("reads a file within its bound and names the file's kind when it refuses one", async () => {
    const file = await quest("play.yaml", "x".repeat(10));
    const fits = await readBounded(file, { maxBytes: 10, what: "a play file" });
    expect(fits.ok && fits.bytes.toString()).toBe("x".repeat(10));
    expect(await readBounded(file, { maxBytes: 9, what: "a play file" })).toEqual({
      ok: false,
      problem: "is 10 bytes; a play file may be at most 9 bytes, so it was not read",
    });
    expect(await readBounded(dir)).toEqual({ ok: false, problem: "is not a regular file" });
    expect(await readBounded(join(dir, "none.yaml"))).toEqual({
      ok: false,
      problem: "no such file or folder",
    });
  });

  it("reads past the size the file had when opened (a file that grew), up to the bound", async () => {
    // /proc files say size 0 and hold more: the buffer sized by the stat must grow.
    const status = await readFile("/proc/self/status", "utf8");
    const grown = await readBounded("/proc/self/status", { maxBytes: 1_000_000, what: "a play file" });
    expect(grown.ok && grown.bytes.toString().split("\n")[0]).toBe(status.split("\n")[0]);
    expect(grown.ok && grown.bytes.length).toBeGreaterThan(100);
    expect(await readBounded("/proc/self/status", { maxBytes: 50, what: "a play file" })).toEqual({
      ok: false,
      problem: "is more than 50 bytes; a play file may be at most 50 bytes, so it was not read",
    });
  });
});

describe("a pack with a broken file: no cascade", () => {
  const broken = (id: string) => minimal(id).replace("type: event", "type: evnt");

  it("the quests that require a broken quest are not also told it is unknown", async () => {
    await quest("a.yaml", broken("a"));
    await quest("b.yaml", minimal("b", "requires: [a]\n"));
    await quest("c.yaml", minimal("c", "requires: [a, ghost]\n"));
    expect(await problems(dir)).toEqual([
      'a.yaml:6:11: checks[0].type: type "evnt" is not a check type; did you mean event?',
      'c.yaml:5:15: requires unknown quest "ghost"; quests in this pack: b, c',
    ]);
  });

  it("a file that is not even YAML still gives its id line", async () => {
    await quest("a.yaml", "version: 1\nid: a\ntitle: [A\n");
    await quest("b.yaml", minimal("b", "requires: [a]\n"));
    const found = await problems(dir);
    expect(found).toHaveLength(1);
    expect(found[0]).toMatch(/^a\.yaml:\d+:\d+: YAML: /);
  });

  it("when a broken file gives no id, no require is called unknown: its error comes first", async () => {
    await quest("a.yaml", "version: 1\ntitle: A\n");
    await quest("b.yaml", minimal("b", "requires: [a, ghost]\n"));
    const found = await problems(dir);
    expect(found.every((line) => line.startsWith("a.yaml:"))).toBe(true);
  });
});

describe("paths that can never resolve are lint errors", () => {
  it("a check's path field, located at the field, with what to write instead", async () => {
    const file = await quest(
      "a.yaml",
      minimal("a").replace(
        "  - type: event\n    match: { event: turn_end }\n",
        "  - type: file_exists\n    path: ../notes.md\n  - type: command\n    run: x\n    cwd: '{agent_dir}/x'\n",
      ),
    );
    expect(await problems(file)).toEqual([
      'a.yaml:7:11: checks[0].path: ../notes.md leaves the workspace through ".."; a quest path stays inside its root',
      "a.yaml:10:10: checks[1].cwd: {agent_dir}/x starts with {agent_dir}, outside the workspace; this path stays in the workspace: write it relative to it (or start it with {workspace}) (a command with isolation: none runs in place and may start cwd with {agent_dir} or {home})",
    ]);
  });

  it("a sandbox must be inside the pack folder, also once links are followed", async () => {
    const outside = await mkdtemp(join(tmpdir(), "pi-quests-outside-"));
    try {
      await mkdir(join(dir, "sandboxes/inside"), { recursive: true });
      await symlink(outside, join(dir, "sandboxes/away"));
      await symlink(join(dir, "sandboxes/inside"), join(dir, "sandboxes/alias"));
      expect(await problems(await quest("a.yaml", minimal("a", "sandbox: sandboxes/away\n")))).toEqual([
        `a.yaml:5:10: sandbox sandboxes/away leads out of the pack folder through a symbolic link (to ${await realpath(outside)}); a sandbox is a template folder inside the pack`,
      ]);
      expect(await problems(await quest("b.yaml", minimal("b", "sandbox: /tmp\n")))).toEqual([
        "b.yaml:5:10: sandbox /tmp is an absolute path; write it relative to the pack folder; a sandbox is a template folder inside the pack",
      ]);
      const alias = await loadQuestFile(await quest("c.yaml", minimal("c", "sandbox: sandboxes/alias\n")));
      expect(alias.ok).toBe(true);
    } finally {
      await rm(outside, { recursive: true, force: true });
    }
  });

  it("the quest's editable takes no template", async () => {
    const file = await quest(
      "a.yaml",
      minimal("a", 'editable: ["{workspace}/src/**"]\n').replace("version: 1", "version: 2"),
    );
    expect(await problems(file)).toEqual([
      "a.yaml:5:12: editable[0]: {workspace}/src/** starts with {workspace}; this path takes no template: write it relative to the quest workspace (src/**)",
    ]);
  });
});
