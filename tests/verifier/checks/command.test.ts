import { describe, expect, it } from "vitest";
import { type IsolationEvidence, notAppliedSentence } from "../../../src/verifier/checks/command.ts";
import { hintFor, reportDetailFor } from "../../../src/verifier/checks/registry.ts";
import { evaluateCheck } from "../../../src/verifier/evaluate.ts";
import type { ScriptOutcome } from "../../../src/verifier/probes.ts";
import { check } from "../../support/checks.ts";
import { context, fakeProbes, WORKSPACE } from "../../support/fake-probes.ts";

describe("command", () => {
  const finished = (exitCode: number, stdout = "", stderr = ""): ScriptOutcome => ({
    ok: true,
    passed: exitCode === 0,
    exitCode,
    report: stdout + stderr,
    stdout,
    stderr,
    truncated: false,
  });
  const withRunner = (outcome: ScriptOutcome) =>
    context({ probes: fakeProbes({}, { runCommand: async () => outcome }) });
  const inPlace = (fields: Record<string, unknown>) =>
    check({ type: "command", isolation: "none", ...fields });

  it("passes on the expected exit code and output predicates", async () => {
    const result = await evaluateCheck(
      inPlace({ run: "npm test", stdout: { contains: "ok" } }),
      withRunner(finished(0, "all ok\n")),
    );
    expect(result).toMatchObject({
      status: "pass",
      evidence: { kind: "command", exitCode: 0, output: "all ok\n" },
    });
  });

  it("fails on another exit code, naming what was expected", async () => {
    const result = await evaluateCheck(inPlace({ run: "npm test" }), withRunner(finished(1, "", "boom")));
    expect(result).toMatchObject({
      status: "fail",
      evidence: { failed: ["exit code 1, expected = 0"], output: "boom" },
    });
  });

  it("a success word in the output does not pass a failing exit code", async () => {
    const result = await evaluateCheck(
      inPlace({ run: "printf 'PASS'; exit 1" }),
      withRunner(finished(1, "PASS")),
    );
    expect(result.status).toBe("fail");
  });

  it("honours exit_code and stderr predicates", async () => {
    const expectsFailure = inPlace({ run: "x", exit_code: { min: 1 }, stderr: { regex: "not found" } });
    expect((await evaluateCheck(expectsFailure, withRunner(finished(127, "", "x: not found")))).status).toBe(
      "pass",
    );
    expect((await evaluateCheck(expectsFailure, withRunner(finished(127, "", "other")))).status).toBe("fail");
  });

  it.each(["timeout", "stopped", "unavailable"] as const)("a %s is pending, never a pass", async (kind) => {
    const result = await evaluateCheck(
      inPlace({ run: "sleep 100", exit_code: { min: 0 } }),
      withRunner({ ok: false, kind, message: kind, report: "partial", truncated: false }),
    );
    expect(result).toMatchObject({ status: "pending", evidence: { kind: "command", output: "partial" } });
  });

  it("isolation: worktree is pending while no isolated verifier is wired in, and runs nothing", async () => {
    const probes = fakeProbes();
    const result = await evaluateCheck(check({ type: "command", run: "npm test" }), context({ probes }));
    expect(result).toMatchObject({ status: "pending", evidence: { pending: "isolation_unavailable" } });
    expect(probes.scripts).toEqual([]);
  });

  it("names the script after the quest and check, and runs it in cwd", async () => {
    const seen: string[] = [];
    const probes = fakeProbes(
      {},
      {
        runCommand: async (request) => {
          seen.push(request.script, request.cwd);
          return finished(0);
        },
      },
    );
    await evaluateCheck(inPlace({ run: "true", cwd: "pkg" }), context({ probes }));
    expect(seen).toEqual(["test-quest/the-check", `${WORKSPACE}/pkg`]);
  });

  it("a cwd outside the workspace fails before anything runs", async () => {
    const probes = fakeProbes();
    const result = await evaluateCheck(inPlace({ run: "true", cwd: "../.." }), context({ probes }));
    expect(result.status).toBe("fail");
    expect(probes.scripts).toEqual([]);
  });

  it("with isolation: worktree a cwd under {home} or {agent_dir} fails before anything runs (a pinned definition)", async () => {
    const probes = fakeProbes();
    const isolated = check({ type: "command", run: "true", cwd: "{home}/app" });
    const result = await evaluateCheck(isolated, context({ probes }));
    expect(result).toMatchObject({ status: "fail", evidence: { kind: "path" } });
    expect(result.evidence.summary).toMatch(/^\{home\}\/app: starts with \{home\}, outside the workspace/);
    expect(probes.scripts).toEqual([]);
  });
});

describe("command: the learner's changes the isolated run did not use, in words", () => {
  const verification = (
    notApplied: IsolationEvidence["notApplied"],
    leftOut?: string[],
  ): IsolationEvidence => ({
    runDir: "/data/runs/1",
    baseline: "b".repeat(40),
    head: "b".repeat(40),
    patchSha256: "0".repeat(64),
    patchBytes: 10,
    restored: ["test/calc.test.js"],
    manifestsMerged: [],
    removedConfigs: [],
    ...(leftOut ? { leftOut } : {}),
    notApplied,
    cleanup: { ok: true },
  });
  const isolated = (exitCode: number, evidence: IsolationEvidence) =>
    context({
      probes: fakeProbes(
        {},
        {
          runIsolated: async () => ({
            ok: true,
            passed: exitCode === 0,
            exitCode,
            report: exitCode === 0 ? "ok\n" : "not ok 1 - adds\n",
            stdout: "",
            stderr: "",
            truncated: false,
            verification: evidence,
          }),
        },
      ),
    });
  const tests = check({ type: "command", run: "npm test" });

  it.each([
    [
      { path: "hello.txt", reason: "outside_editable" },
      "hello.txt is outside what this quest lets you change: not used",
    ],
    [
      { path: "test/calc.test.js", reason: "test" },
      "test/calc.test.js is a test: your change to it was not used",
    ],
    [
      { path: "vitest.config.ts", reason: "configuration" },
      "vitest.config.ts is test or package configuration: your change to it was not used",
    ],
    [
      { path: "scripts/check.sh", reason: "named", by: 'npm script "test"' },
      'scripts/check.sh is run by npm script "test": your change to it was not used',
    ],
    [
      { path: "expected/out.txt", reason: "oracle" },
      "expected/out.txt is what the check compares against: your change to it was not used",
    ],
    [
      { path: "Makefile", reason: "build", by: "make test" },
      "Makefile is a build file the check's command reads: your change to it was not used",
    ],
    [
      { path: "setup.js", reason: "setup", by: "vitest.config.ts" },
      "setup.js is a setup file the test configuration (vitest.config.ts) names: your change to it was not used",
    ],
    [
      { path: "package.json", reason: "package_scripts" },
      "the scripts and test settings of package.json are the quest's: your change to them was not used",
    ],
    [
      { path: "test/new.test.js", reason: "added_test" },
      "test/new.test.js is a test you added: the check does not run it",
    ],
    [
      { path: ".mocharc.json", reason: "added_configuration" },
      ".mocharc.json is configuration you added: not used",
    ],
    [
      { path: "app/package.json", reason: "added_package_json" },
      "app/package.json would take over the project's package.json: not used",
    ],
    [
      { path: "dist/app.js", reason: "generated" },
      "dist/app.js is in a generated folder (dist/, build/...), which checks never see: not used",
    ],
    [
      { path: "node_modules/.bin/grep", reason: "undeclared_bin" },
      'node_modules/.bin/grep is declared by no installed package (a package.json\'s "bin"): the check does not run it',
    ],
  ] as const)("%j: %s", (item, sentence) => {
    expect(notAppliedSentence(item)).toBe(sentence);
  });

  it("a failed check: the evidence, the HUD and the report say which changes were not used and why", async () => {
    const result = await evaluateCheck(
      tests,
      isolated(
        1,
        verification(
          [
            { path: "hello.txt", reason: "outside_editable" },
            { path: "test/calc.test.js", reason: "test" },
          ],
          ["hello.txt"],
        ),
      ),
    );
    expect(result).toMatchObject({
      status: "fail",
      evidence: {
        summary:
          "exit code 1, expected = 0; 1 change outside editable not applied (hello.txt); 1 change to a protected file not applied (test/calc.test.js)",
        unusedChanges: [
          "hello.txt is outside what this quest lets you change: not used",
          "test/calc.test.js is a test: your change to it was not used",
        ],
        // The structured fields stay.
        verification: { restored: ["test/calc.test.js"], leftOut: ["hello.txt"] },
      },
    });
    // The HUD names the protected file the learner changed (it may be why it fails); a change
    // outside editable (often an earlier quest's file) is left to the report.
    expect(hintFor(result)).toBe("test/calc.test.js is a test: your change to it was not used");
    expect(reportDetailFor(result).lines).toEqual([
      "not used in the check's run:",
      "- hello.txt is outside what this quest lets you change: not used",
      "- test/calc.test.js is a test: your change to it was not used",
      "last 1 line(s) of output:",
      "| not ok 1 - adds",
    ]);
  });

  it("a passing check says it to the author only; a run that used everything is worded without its exit code", async () => {
    const passed = await evaluateCheck(
      tests,
      isolated(0, verification([{ path: "test/calc.test.js", reason: "test" }])),
    );
    expect(passed.evidence.summary).toBe(
      "exit code 0; 1 change to a protected file not applied (test/calc.test.js)",
    );
    expect(hintFor(passed)).toBeUndefined();
    expect(reportDetailFor(passed).lines).toBeUndefined();

    const failed = await evaluateCheck(tests, isolated(1, verification([])));
    expect(failed.evidence).not.toHaveProperty("unusedChanges");
    expect(failed.evidence.summary).toBe("exit code 1, expected = 0");
    // Nothing left out: the HUD says what failed, in words, never the exit code.
    expect(hintFor(failed)).not.toMatch(/exit code|expected/);
  });
});
