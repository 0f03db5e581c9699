import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { REPO, runCli, STARTER_PACK } from "../support/cli.ts";
import { git, makeWorkspace, removeWorkspaces } from "../support/workspace.ts";

const PACK = STARTER_PACK;
const TEMPLATE = join(PACK, "sandboxes/first-file");
const WORKSHOP = join(REPO, "fixtures/packs/workshop");

afterEach(removeWorkspaces);

/** Every file under `dir` but .git, with its content. */
function filesOf(dir: string, prefix = ""): Record<string, string> {
  const files: Record<string, string> = {};
  for (const entry of readdirSync(join(dir, prefix), { withFileTypes: true })) {
    const path = join(prefix, entry.name);
    if (entry.name === ".git") continue;
    if (entry.isDirectory()) Object.assign(files, filesOf(dir, path));
    else files[path] = readFileSync(join(dir, path), "utf8");
  }
  return files;
}

describe("pi-quests sandbox", () => {
  it("makes an absent folder the quest's workspace: the template copied, a git repository, the baseline committed", async () => {
    const dir = join(makeWorkspace(), "practice", "first-file");
    const run = await runCli(["sandbox", PACK, "--quest", "first-file", dir]);
    expect(run.exitCode).toBe(0);
    expect(run.stderr).toBe("");
    const head = git(dir, "rev-parse", "HEAD").trim();
    expect(run.stdout).toBe(
      `${dir}: the workspace of first-file (Make your first file)\n  template: ${TEMPLATE}\n  baseline: ${head}`,
    );
    expect(filesOf(dir)).toEqual(filesOf(TEMPLATE));
    expect(git(dir, "log", "--format=%an <%ae>|%s").trim()).toBe(
      "pi-quests <pi-quests@localhost>|Quest sandbox: first-file",
    );
    expect(git(dir, "status", "--porcelain")).toBe("");
  });

  it("takes a quest file too, and an empty folder; a lone quest needs no --quest", async () => {
    const dir = makeWorkspace();
    const run = await runCli(["sandbox", join(WORKSHOP, "10-config.yaml"), dir]);
    expect(run.exitCode).toBe(0);
    expect(filesOf(dir)).toEqual(filesOf(join(WORKSHOP, "sandboxes/config")));
    expect(existsSync(join(dir, ".git"))).toBe(true);
  });

  it("resolves both paths against the folder it runs in", async () => {
    const root = makeWorkspace();
    cpSync(PACK, join(root, "pack"), { recursive: true });
    const run = await runCli(["sandbox", "pack", "--quest", "first-commit", "ws"], { cwd: root });
    expect(run.exitCode).toBe(0);
    expect(readdirSync(join(root, "ws")).sort()).toEqual([".git", "README.md"]);
  });

  it("a quest without a sandbox leaves the folder empty (made if absent), and says so", async () => {
    const dir = join(makeWorkspace(), "new");
    const run = await runCli(["sandbox", PACK, "--quest", "first-prompt", dir]);
    expect(run).toEqual({
      exitCode: 0,
      stdout: `first-prompt has no sandbox: a learner starts it in any folder, so ${dir} is left empty.`,
      stderr: "",
    });
    expect(readdirSync(dir)).toEqual([]);
  });

  it("refuses a folder that is not empty, and touches nothing in it: exit 3", async () => {
    const dir = makeWorkspace({ "notes.md": "mine\n" });
    const run = await runCli(["sandbox", PACK, "--quest", "first-file", dir]);
    expect(run).toEqual({
      exitCode: 3,
      stdout: "",
      stderr: `pi-quests sandbox: ${dir} is not empty (notes.md); give a folder that is absent or empty`,
    });
    expect(readdirSync(dir)).toEqual(["notes.md"]);
  });

  it("refuses a file for the folder", async () => {
    const file = join(makeWorkspace({ "a.txt": "" }), "a.txt");
    const run = await runCli(["sandbox", PACK, "--quest", "first-file", file]);
    expect([run.exitCode, run.stderr]).toEqual([3, `pi-quests sandbox: ${file} is not a folder`]);
  });

  it("refuses an unknown quest, a pack without --quest, and missing arguments, naming what to give", async () => {
    const dir = join(makeWorkspace(), "ws");
    const unknown = await runCli(["sandbox", PACK, "--quest", "first-fil", dir]);
    expect([unknown.exitCode, unknown.stderr]).toEqual([
      3,
      'pi-quests sandbox: no quest "first-fil" here; the quests are: first-prompt, first-file, first-commit',
    ]);
    const several = await runCli(["sandbox", PACK, dir]);
    expect([several.exitCode, several.stderr]).toEqual([
      3,
      "pi-quests sandbox: this pack has 3 quests; choose one with --quest ID (first-prompt, first-file, first-commit)",
    ]);
    const missing = await runCli(["sandbox", PACK, "--quest", "first-file"]);
    expect(missing.exitCode).toBe(3);
    expect(missing.stderr).toContain(
      "give a quest file or pack folder, then the folder to set up (got 1 argument(s))",
    );
    expect(existsSync(dir)).toBe(false);
  });

  it("a quest file with errors is reported as lint reports it, and nothing is made", async () => {
    const source = makeWorkspace({ "bad.yaml": "version: 1\nid: bad\ntitle: Bad\n" });
    const dir = join(makeWorkspace(), "ws");
    const run = await runCli(["sandbox", join(source, "bad.yaml"), dir]);
    expect(run.exitCode).toBe(3);
    expect(run.stderr).toMatch(new RegExp(`^${join(source, "bad.yaml")}:\\d+:\\d+: `));
    expect(existsSync(dir)).toBe(false);
  });

  it("a setup that fails is exit 1, and a folder it made is removed again", async () => {
    const pack = makeWorkspace({
      "10-q.yaml":
        "version: 1\nid: q\ntitle: Q\ngoal: g\nsandbox: sandboxes/q\nchecks:\n  - type: event\n    match: { event: input }\n",
      "sandboxes/q/a.txt": "a\n",
    });
    mkdirSync(join(pack, "sandboxes/q/.git"));
    writeFileSync(join(pack, "sandboxes/q/.git/HEAD"), "not a ref\n");
    const dir = join(makeWorkspace(), "ws");
    const run = await runCli(["sandbox", pack, dir]);
    expect(run.exitCode).toBe(1);
    expect(run.stderr).toMatch(/^pi-quests sandbox: could not set up the practice folder for "q": /);
    expect(existsSync(dir)).toBe(false);
  });

  it("--help prints the usage", async () => {
    const run = await runCli(["sandbox", "--help"]);
    expect(run.exitCode).toBe(0);
    expect(run.stdout.split("\n")[0]).toBe("Usage: pi-quests sandbox QUEST.yaml|PACK_DIR [--quest ID] DIR");
  });
});
