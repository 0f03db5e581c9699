/**
 * Red team: a `node_modules/.bin` look-alike planted before a `pi-quests check`, where no quest
 * activation pinned the dependencies. npm puts the worktree's `node_modules/.bin` first on a
 * script's PATH, so a `.bin/grep` that exits 0 would answer the test's `grep`. Now the worktree's
 * `.bin` holds only what installed packages declare (src/task-verifier/declared-bins.ts): the
 * real grep answers, and the run says what it left out. A package's declared bin still runs.
 * The real CLI as a process, real git, real npm.
 */
import { chmodSync, mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { runCli } from "../support/cli.ts";
import { makeRepo, NPM_CLI, snapshot } from "../support/task-verifier.ts";
import { makeWorkspace, removeWorkspaces } from "../support/workspace.ts";

afterEach(removeWorkspaces);

const QUEST =
  "version: 1\nid: hello\ntitle: Say hello\ngoal: g\nchecks:\n  - id: says-hello\n    type: command\n    run: npm test\n";

/** A project whose `npm test` is `test`, with hello.txt saying `says`; node_modules ignored, as npm leaves them. */
function project(test: string, says: string): string {
  const manifest = { name: "demo", version: "1.0.0", private: true, scripts: { test } };
  return makeRepo({
    ".gitignore": "node_modules/\n",
    "package.json": `${JSON.stringify(manifest, null, 2)}\n`,
    "hello.txt": `${says}\n`,
  });
}

function executable(path: string, body: string): void {
  mkdirSync(join(path, ".."), { recursive: true });
  writeFileSync(path, `#!/bin/sh\n${body}\n`);
  chmodSync(path, 0o755);
}

/** `pi-quests check` of the quest in `workspace`, as JSON, with npm found. */
async function check(workspace: string) {
  const quest = join(makeWorkspace({ "q.yaml": QUEST }), "q.yaml");
  const run = await runCli(["check", quest, "--cwd", workspace, "--data-dir", makeWorkspace(), "--json"], {
    env: { PI_QUESTS_NPM_CLI: NPM_CLI },
  });
  return { exitCode: run.exitCode, result: JSON.parse(run.stdout), stderr: run.stderr };
}

describe("a node_modules/.bin look-alike before a pi-quests check", () => {
  it("a planted `.bin/grep` that exits 0 does not answer the test's grep: the check fails, and says what was left out", async () => {
    const workspace = project("grep -q hello hello.txt", "goodbye");
    executable(join(workspace, "node_modules/.bin/grep"), "exit 0");
    const before = snapshot(workspace);
    const { exitCode, result } = await check(workspace);
    expect(result.status).toBe("fail");
    expect(exitCode).toBe(1);
    expect(result.checks[0].evidence.unusedChanges).toEqual([
      'node_modules/.bin/grep is declared by no installed package (a package.json\'s "bin"): the check does not run it',
    ]);
    expect(result.checks[0].evidence.summary).toContain(
      "1 undeclared node_modules/.bin entry not applied (node_modules/.bin/grep)",
    );
    expect(snapshot(workspace)).toEqual(before);
  }, 60_000);

  it("a package's declared bin still runs, through the learner's link or as the package declares it", async () => {
    const workspace = project("hello-check hello.txt", "hello");
    const folder = join(workspace, "node_modules/hello-check");
    executable(join(folder, "bin/check.sh"), 'grep -q hello "$1"');
    writeFileSync(
      join(folder, "package.json"),
      '{ "name": "hello-check", "version": "1.0.0", "bin": { "hello-check": "bin/check.sh" } }\n',
    );
    mkdirSync(join(workspace, "node_modules/.bin"));
    // As npm links it: relative, into the package.
    symlinkSync("../hello-check/bin/check.sh", join(workspace, "node_modules/.bin/hello-check"));
    expect((await check(workspace)).result.status).toBe("pass");

    // A planted look-alike under the declared name (a script, not npm's link) is not what runs.
    const planted = project("hello-check hello.txt", "goodbye");
    const plantedFolder = join(planted, "node_modules/hello-check");
    executable(join(plantedFolder, "bin/check.sh"), 'grep -q hello "$1"');
    writeFileSync(
      join(plantedFolder, "package.json"),
      '{ "name": "hello-check", "version": "1.0.0", "bin": "bin/check.sh" }\n',
    );
    executable(join(planted, "node_modules/.bin/hello-check"), "exit 0");
    expect((await check(planted)).result.status).toBe("fail");
  }, 60_000);
});
