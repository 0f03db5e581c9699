/**
 * `pi-quests lint` warns where a command check runs a package script the learner's work cannot
 * change (src/cli/lint-package-scripts.ts): the verifier restores package.json's `scripts` from
 * the sandbox, so `npm run hello` fails although package.json is editable. A warning says why and
 * what to do, and never changes the exit code. Issue 27, item 8.
 */
import { afterEach, describe, expect, it } from "vitest";
import { REPO, runMain } from "../support/cli.ts";
import { makeWorkspace, removeWorkspaces } from "../support/workspace.ts";

afterEach(removeWorkspaces);

const lint = (path: string) => runMain(["lint", path], { cwd: REPO, env: {} });

const HEAD = "version: 2\nid: q\ntitle: T\ngoal: g\n";
const MANIFEST = JSON.stringify({ name: "practice", scripts: { test: "node --test" } });

/** A pack whose quest has a sandbox holding this package.json (and a test so the check has oracles). */
function packWith(quest: string, manifest = MANIFEST): string {
  return makeWorkspace({
    "q.yaml": quest,
    "sandboxes/s/package.json": manifest,
    "sandboxes/s/test/a.test.js": "import 'node:test';\n",
  });
}

const warnings = (stderr: string, pack: string) =>
  stderr.replaceAll(`${pack}/`, "").trimEnd().split("\n").filter(Boolean);

describe("pi-quests lint: a package script the learner cannot change", () => {
  it("a script the sandbox's package.json does not have: the check can never pass, and lint says why and what to do", async () => {
    const pack = packWith(
      `${HEAD}sandbox: sandboxes/s\neditable: [package.json, "src/**"]\nchecks:\n  - type: command\n    run: npm run hello\n`,
    );
    const run = await lint(pack);
    expect(run.exitCode).toBe(0);
    expect(run.stdout).toBe("1 quest(s) valid (1 warning)\n");
    expect(warnings(run.stderr, pack)).toEqual([
      `warning: q.yaml:9:10: runs the package script "hello", which the sandbox's package.json does not have: the verifier restores package.json's scripts from the sandbox before every run, so a learner's change to them never runs, so this check can never pass; add "hello" to the sandbox's package.json, or put the command itself in run (to check a script the learner writes, read it with a json_path check on package.json, path $.scripts["hello"])`,
    ]);
  });

  it("a script the sandbox has, of a package.json editable lists: what runs is the sandbox's", async () => {
    const pack = packWith(
      `${HEAD}sandbox: sandboxes/s\nchecks:\n  - type: command\n    run: npm test\n    editable: [package.json]\n`,
    );
    const run = await lint(pack);
    expect(warnings(run.stderr, pack)).toEqual([
      `warning: q.yaml:8:10: runs the package script "test" of package.json, which editable lists, but the verifier restores package.json's scripts from the sandbox before every run, so a learner's change to them never runs: what runs is the sandbox's "test"; to check a script the learner writes, read it with a json_path check on package.json (path $.scripts["test"]) and put the command it should run in run`,
    ]);
  });

  it("nothing to say: the sandbox's own script with package.json not editable, isolation none, or no sandbox and package.json not editable", async () => {
    for (const quest of [
      `${HEAD}sandbox: sandboxes/s\neditable: ["src/**"]\nchecks:\n  - type: command\n    run: npm test\n`,
      `${HEAD}sandbox: sandboxes/s\neditable: [package.json]\nchecks:\n  - type: command\n    run: npm run hello\n    isolation: none\n`,
      `${HEAD}editable: ["src/**"]\nchecks:\n  - type: command\n    run: npm run hello\n`,
    ]) {
      const pack = packWith(quest);
      const run = await lint(pack);
      expect(run.stderr, quest).toBe("");
      expect(run.stdout).toBe("1 quest(s) valid\n");
    }
  });

  it("a script in a sub-folder's package.json is looked up where npm looks: the nearest package.json at or above the check's cwd", async () => {
    const pack = makeWorkspace({
      "q.yaml": `${HEAD}sandbox: sandboxes/s\neditable: ["app/src/**"]\nchecks:\n  - type: command\n    cwd: app/src\n    run: npm run build\n`,
      "sandboxes/s/app/package.json": JSON.stringify({ scripts: { test: "node --test" } }),
      "sandboxes/s/app/src/index.js": "",
    });
    const run = await lint(pack);
    expect(warnings(run.stderr, pack)).toEqual([
      expect.stringContaining(
        `runs the package script "build", which the sandbox's app/package.json does not have`,
      ),
    ]);
  });
});
