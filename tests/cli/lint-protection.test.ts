/**
 * `pi-quests lint` warns about a command check without `editable` whose tests load files the
 * protection rule leaves to the learner (src/cli/lint-protection.ts): decided from the quest's
 * sandbox template on disk, said as file:line:col like an error, and never a change of the exit
 * code. The pack is fixtures/packs/sourced-calc.
 */
import { cpSync, readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { protectionWarnings, warningFor } from "../../src/cli/lint-protection.ts";
import { type PlanInput, planProtection } from "../../src/task-verifier/protected-paths.ts";
import { taskVerifierChecks } from "../../src/verifier/checks/registry.ts";
import { loadQuests } from "../../src/verifier/loader.ts";
import { REPO, runCli, runMain } from "../support/cli.ts";
import { makeWorkspace, removeWorkspaces } from "../support/workspace.ts";

afterEach(removeWorkspaces);

const PACK = join(REPO, "fixtures/packs/sourced-calc");
const WARNING =
  "without editable, the files this check's tests load are the learner's to change: calc.sh (loaded by test/run.sh), lib/assert.sh (loaded by test/run.sh); to protect them, give the quest `editable` listing what the learner may change";

/** A pack of one quest on a copy of the sandbox; `checks` is the YAML of its checks. */
function packWith(quest: string): string {
  const pack = makeWorkspace();
  cpSync(join(PACK, "sandboxes"), join(pack, "sandboxes"), { recursive: true });
  writeFileSync(join(pack, "q.yaml"), quest);
  return pack;
}

const HEAD = "version: 2\nid: q\ntitle: T\ngoal: g\n";
const lint = (path: string) => runMain(["lint", path], { cwd: REPO, env: {} });

describe("pi-quests lint: what a check without editable leaves to the learner", () => {
  it("the issue's pack: one warning at the check's run, naming the files and the fix; exit 0", async () => {
    const run = await runCli(["lint", PACK]);
    expect(run).toEqual({
      exitCode: 0,
      stdout: "2 quest(s) valid (1 warning)",
      stderr: `warning: ${join(PACK, "10-fix-add.yaml")}:14:10: ${WARNING}`,
    });
  });

  it("editable on the quest, or on the check, says what the learner may change: no warning", async () => {
    for (const quest of [
      `${HEAD}sandbox: sandboxes/calc\neditable: [calc.sh]\nchecks:\n  - type: command\n    run: bash test/run.sh\n`,
      `${HEAD}sandbox: sandboxes/calc\nchecks:\n  - type: command\n    run: bash test/run.sh\n    editable: [calc.sh]\n`,
    ]) {
      expect(await lint(packWith(quest))).toEqual({ exitCode: 0, stdout: "1 quest(s) valid\n", stderr: "" });
    }
  });

  it("nothing to say: no sandbox to read, a check run in place, or tests that load only protected files", async () => {
    const quests = [
      // No sandbox: the repository the check runs on is not on disk for lint.
      `${HEAD}checks:\n  - type: command\n    run: bash test/run.sh\n`,
      // isolation: none runs in the learner's folder: nothing is protected or put back.
      `${HEAD}sandbox: sandboxes/calc\nchecks:\n  - type: command\n    run: bash test/run.sh\n    isolation: none\n`,
      // The check's files are oracles: what they load is protected too.
      `${HEAD}sandbox: sandboxes/calc\nchecks:\n  - type: command\n    run: bash test/run.sh\n    oracle_paths: [calc.sh, lib]\n`,
    ];
    for (const quest of quests)
      expect(await lint(packWith(quest))).toEqual({ exitCode: 0, stdout: "1 quest(s) valid\n", stderr: "" });
  });

  it("one warning a check, each at its own run, a check run from test/ too", async () => {
    const pack = packWith(
      `${HEAD}sandbox: sandboxes/calc\nchecks:\n  - id: a\n    type: command\n    run: bash test/run.sh\n  - id: b\n    type: command\n    cwd: "{sandbox}/test"\n    run: bash run.sh\n`,
    );
    const run = await lint(pack);
    expect(run.exitCode).toBe(0);
    expect(run.stdout).toBe("1 quest(s) valid (2 warnings)\n");
    expect(run.stderr.split("\n").filter(Boolean)).toEqual([
      `warning: ${join(pack, "q.yaml")}:9:10: ${WARNING}`,
      // Run from test/, the check names test/run.sh all the same, and what it sources.
      `warning: ${join(pack, "q.yaml")}:13:10: ${WARNING}`,
    ]);
  });

  it("warnings never turn an invalid path valid, nor a valid one invalid: errors still exit 3", async () => {
    const bad = makeWorkspace({ "bad.yaml": "version: 1\nid: bad\n" });
    const run = await runMain(["lint", PACK, bad], { cwd: REPO, env: {} });
    expect(run.exitCode).toBe(3);
    expect(run.stderr).toContain(`warning: ${join(PACK, "10-fix-add.yaml")}:14:10: `);
    expect(run.stderr).toContain(join(bad, "bad.yaml"));
    expect(run.stdout).toBe("");
  });

  it("names at most six files, then how many more", () => {
    const loads = Array.from({ length: 8 }, (_, i) => ({ path: `lib/h${i}.sh`, loadedBy: "test/run.sh" }));
    expect(warningFor(loads)).toBe(
      "without editable, the files this check's tests load are the learner's to change: lib/h0.sh (loaded by test/run.sh), lib/h1.sh (loaded by test/run.sh), lib/h2.sh (loaded by test/run.sh), lib/h3.sh (loaded by test/run.sh), lib/h4.sh (loaded by test/run.sh), lib/h5.sh (loaded by test/run.sh) and 2 more; to protect them, give the quest `editable` listing what the learner may change",
    );
  });
});

describe("the built-in curriculum", () => {
  it("lints without a warning; its command checks protect the practice sandbox's checkers and tests", async () => {
    const loaded = await loadQuests(join(REPO, "quests"));
    if (!loaded.ok) throw new Error(JSON.stringify(loaded.diagnostics));
    expect(await protectionWarnings(loaded.value)).toEqual([]);
    const sandbox = join(REPO, "quests/sandboxes/practice");
    const files = listed(sandbox);
    let checked = 0;
    for (const quest of loaded.value) {
      for (const check of taskVerifierChecks(quest.checks)) {
        const input: PlanInput = {
          baselineFiles: files,
          baselineManifest: () => undefined,
          run: check.run,
          cwd: "",
          oraclePaths: check.oracle_paths,
        };
        const restored = planProtection(input).restore;
        // Every test of the sandbox is a test by convention, whatever the check runs.
        for (const test of files.filter((path) => path.startsWith("test/"))) expect(restored).toContain(test);
        if (check.oracle_paths.includes("tools"))
          for (const tool of files.filter((path) => path.startsWith("tools/")))
            expect(restored).toContain(tool);
        checked++;
      }
    }
    expect(checked).toBeGreaterThan(5);
  });
});

/** A folder's files, relative, as a sandbox's first commit holds them. */
function listed(dir: string, folder = ""): string[] {
  return readdirSync(join(dir, folder), { withFileTypes: true }).flatMap((entry) => {
    const path = folder === "" ? entry.name : `${folder}/${entry.name}`;
    return entry.isDirectory() ? listed(dir, path) : [path];
  });
}
