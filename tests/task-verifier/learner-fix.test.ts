/**
 * The isolated verifier never throws away the learner's fix. The pack of the issue,
 * fixtures/packs/sourced-calc: its test/run.sh sources ./calc.sh (the code the learner fixes) and
 * lib/assert.sh (a helper). Without `editable` the rule protects the test and nothing it sources,
 * so the fix counts and a broken fix fails; with `editable: [calc.sh]` the helper stays the
 * pack's. And what the run did not use of the learner's changes is said in words: in the
 * evidence, on the HUD and in the report. Real git, real bash, the engine and the real verifier.
 */
import { chmodSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { hudCheck } from "../../src/extension/quest-hud-state.ts";
import type { CommandEvidence } from "../../src/verifier/checks/command.ts";
import { formatQuestResult } from "../../src/verifier/report.ts";
import { check } from "../support/checks.ts";
import { REPO } from "../support/cli.ts";
import {
  evaluateThrough,
  expectCleanAfter,
  finished,
  makeRepo,
  request,
  snapshot,
  verifierFor,
} from "../support/task-verifier.ts";
import { git, removeWorkspaces } from "../support/workspace.ts";

afterEach(removeWorkspaces);

const SANDBOX = join(REPO, "fixtures/packs/sourced-calc/sandboxes/calc");
const RUN = "bash test/run.sh";
const FIX = "add() { echo $(($1 + $2)); }\n";

/** The pack's sandbox template, file by file, as a learner's first commit holds it. */
function template(folder = ""): Record<string, string> {
  return Object.fromEntries(
    readdirSync(join(SANDBOX, folder), { withFileTypes: true }).flatMap((entry) => {
      const path = folder === "" ? entry.name : `${folder}/${entry.name}`;
      return entry.isDirectory()
        ? Object.entries(template(path))
        : [[path, readFileSync(join(SANDBOX, path), "utf8")]];
    }),
  );
}

/** What the learner (or Pi's agent) writes in the workspace. */
function write(workspace: string, path: string, content: string): void {
  writeFileSync(join(workspace, path), content);
}

describe("without editable: the learner's changes to what the test sources are used", () => {
  it("the learner's fix to calc.sh is applied, and the check passes", async () => {
    const workspace = makeRepo(template());
    const { verifier, dataDir } = await verifierFor(workspace, { pin: [request(workspace, RUN)] });
    write(workspace, "calc.sh", FIX);

    const before = snapshot(workspace);
    const outcome = finished(await verifier.run(request(workspace, RUN)));
    expect(outcome.passed, outcome.report).toBe(true);
    expect(outcome.report).toContain("PASS");
    expect(outcome.verification?.restored).toEqual(["test/run.sh"]);
    expect(outcome.verification?.notApplied).toEqual([]);
    expectCleanAfter(workspace, before, dataDir);
  });

  it("a learner who breaks a committed fix fails: calc.sh is not put back from the baseline", async () => {
    const workspace = makeRepo(template());
    write(workspace, "calc.sh", FIX);
    git(workspace, "commit", "-q", "-am", "fix add");
    // The baseline is the commit with the fix (pi-quests check's default: HEAD).
    const { verifier, dataDir } = await verifierFor(workspace, { pin: [request(workspace, RUN)] });
    write(workspace, "calc.sh", "add() { echo $(($1 * $2)); }\n");

    const before = snapshot(workspace);
    const outcome = finished(await verifier.run(request(workspace, RUN)));
    expect(outcome.passed, outcome.report).toBe(false);
    expect(outcome.report).toContain("FAIL: got 6, want 5");
    expect(outcome.verification?.restored).not.toContain("calc.sh");
    expectCleanAfter(workspace, before, dataDir);
  });

  it("a rewrite of the sourced helper is applied too: the rule protects no file for being loaded (lint warns)", async () => {
    const workspace = makeRepo(template());
    const { verifier, dataDir } = await verifierFor(workspace, { pin: [request(workspace, RUN)] });
    write(workspace, "lib/assert.sh", "assert_eq() { :; }\n");

    const before = snapshot(workspace);
    const outcome = finished(await verifier.run(request(workspace, RUN)));
    expect(outcome.passed, outcome.report).toBe(true);
    expectCleanAfter(workspace, before, dataDir);
  });

  it("a rewrite of the test itself is put back, the check fails, and the learner is told in words", async () => {
    const workspace = makeRepo(template());
    const { verifier, dataDir } = await verifierFor(workspace, { pin: [request(workspace, RUN)] });
    write(workspace, "test/run.sh", "echo PASS\n");

    const before = snapshot(workspace);
    const result = await evaluateThrough(verifier.runRequest, [check({ type: "command", run: RUN }, "c")], {
      workspace,
      dataDir,
    });
    const [tests] = result.checks;
    expect(tests?.status).toBe("fail");
    const evidence = tests?.evidence as CommandEvidence;
    expect(evidence.verification?.notApplied).toEqual([{ path: "test/run.sh", reason: "test" }]);
    expect(evidence.unusedChanges).toEqual(["test/run.sh is a test: your change to it was not used"]);
    expect(evidence.summary).toBe(
      "exit code 1, expected = 0; 1 change to a protected file not applied (test/run.sh)",
    );
    // The HUD's line, and /quest status (the same report as pi-quests check).
    expect(hudCheck({ id: "c", describe: "the tests pass" }, tests).reason).toBe(
      "test/run.sh is a test: your change to it was not used",
    );
    expect(formatQuestResult(result, "Fix add")).toContain(
      [
        "      not used in the check's run:",
        "      - test/run.sh is a test: your change to it was not used",
        "      last 1 line(s) of output:",
        "      | FAIL: got -1, want 5",
      ].join("\n"),
    );
    expectCleanAfter(workspace, before, dataDir);
  });
});

describe("with editable: [calc.sh], the helper the test sources stays the pack's", () => {
  const EDITABLE = { editable: ["calc.sh"] };

  it("a rewrite of lib/assert.sh is not applied: the check fails, and says why in words", async () => {
    const workspace = makeRepo(template());
    const { verifier, dataDir } = await verifierFor(workspace, { pin: [request(workspace, RUN, EDITABLE)] });
    write(workspace, "lib/assert.sh", "assert_eq() { :; }\n");

    const before = snapshot(workspace);
    const result = await evaluateThrough(
      verifier.runRequest,
      [check({ type: "command", run: RUN, editable: ["calc.sh"] }, "c")],
      { workspace, dataDir },
    );
    const [tests] = result.checks;
    expect(tests?.status).toBe("fail");
    const evidence = tests?.evidence as CommandEvidence;
    expect(evidence.output).toContain("FAIL: got -1, want 5");
    expect(evidence.verification?.leftOut).toEqual(["lib/assert.sh"]);
    expect(evidence.verification?.notApplied).toEqual([
      { path: "lib/assert.sh", reason: "outside_editable" },
    ]);
    // The learner reads what failed; that the helper was not used is the author's detail
    // (`/quest status --details`), as for any change outside what the quest lets change.
    expect(hudCheck({ id: "c" }, tests).reason).toBe("FAIL: got -1, want 5");
    expect(evidence.unusedChanges).toEqual([
      "lib/assert.sh is outside what this quest lets you change: not used",
    ]);
    expectCleanAfter(workspace, before, dataDir);
  });

  it("the fix to calc.sh passes beside a rewritten helper, which is listed as not applied", async () => {
    const workspace = makeRepo(template());
    const { verifier, dataDir } = await verifierFor(workspace, { pin: [request(workspace, RUN, EDITABLE)] });
    write(workspace, "calc.sh", FIX);
    write(workspace, "lib/assert.sh", "assert_eq() { echo ok; }\n");

    const before = snapshot(workspace);
    const outcome = finished(await verifier.run(request(workspace, RUN, EDITABLE)));
    expect(outcome.passed, outcome.report).toBe(true);
    expect(outcome.report).toContain("ok: 5");
    expect(outcome.verification?.leftOut).toEqual(["lib/assert.sh"]);
    expectCleanAfter(workspace, before, dataDir);
  });
});

describe("what the run did not use, each with why", () => {
  it("a test, the package scripts, a named script, an added test and config: listed; a chmod +x the check keeps is not", async () => {
    const workspace = makeRepo({
      "package.json": `${JSON.stringify({ name: "demo", private: true, scripts: { test: "bash scripts/check.sh" } })}\n`,
      "scripts/check.sh": "node test/add.test.js\n",
      "scripts/hello.sh": "echo hello\n",
      "test/add.test.js": 'if (require("../src/add.js").add(2, 3) !== 5) process.exit(1);\n',
      "src/add.js": "exports.add = (a, b) => a - b;\n",
    });
    const run = "npm test && bash ./scripts/hello.sh";
    const { verifier, dataDir } = await verifierFor(workspace, { pin: [request(workspace, run)] });
    write(workspace, "test/add.test.js", "process.exit(0);\n");
    write(
      workspace,
      "package.json",
      `${JSON.stringify({ name: "demo", private: true, scripts: { test: "true" } })}\n`,
    );
    write(workspace, "scripts/check.sh", "exit 0\n");
    write(workspace, "test/extra.test.js", "process.exit(0);\n");
    write(workspace, ".mocharc.json", "{}\n");
    chmodSync(join(workspace, "scripts/hello.sh"), 0o755);

    const before = snapshot(workspace);
    const outcome = finished(await verifier.run(request(workspace, run)));
    expect(outcome.passed, outcome.report).toBe(false);
    expect(outcome.verification?.notApplied).toEqual([
      { path: ".mocharc.json", reason: "added_configuration" },
      { path: "package.json", reason: "package_scripts" },
      { path: "scripts/check.sh", reason: "named", by: 'npm script "test"' },
      { path: "test/add.test.js", reason: "test" },
      { path: "test/extra.test.js", reason: "added_test" },
    ]);
    expectCleanAfter(workspace, before, dataDir);
  });
});
