import { describe, expect, it } from "vitest";
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
