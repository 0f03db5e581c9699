import { describe, expect, it } from "vitest";
import { evaluateQuest } from "../../src/verifier/evaluate.ts";
import { check } from "../support/checks.ts";
import { context, fakeProbes } from "../support/fake-probes.ts";

describe("evaluateQuest", () => {
  const pass = check({ type: "confirm", prompt: "p" }, "yes");
  const fail = check({ type: "file_exists", path: "absent" }, "absent");
  const wait = check({ type: "event", match: { event: "x" }, after: "never" }, "wait");
  const ctx = context({ probes: fakeProbes({}, { confirm: async () => true }) });

  it.each([
    [[pass], "pass", { passed: 1, failed: 0, pending: 0 }],
    [[pass, wait], "pending", { passed: 1, failed: 0, pending: 1 }],
    [[pass, wait, fail], "fail", { passed: 1, failed: 1, pending: 1 }],
  ] as const)("aggregates %#", async (checks, status, counts) => {
    const result = await evaluateQuest({ id: "q", checks: [...checks] }, ctx);
    expect(result).toMatchObject({ quest: "q", status, counts });
    expect(result.checks.map((c) => c.id)).toEqual(checks.map((c) => c.id));
  });

  it("a probe that throws makes its check pending, not the evaluation crash", async () => {
    const probes = fakeProbes(
      {},
      {
        fileExists: async () => {
          throw new Error("disk on fire");
        },
      },
    );
    const result = await evaluateQuest({ id: "q", checks: [fail] }, context({ probes }));
    expect(result.checks[0]).toMatchObject({
      status: "pending",
      evidence: { summary: expect.stringContaining("disk on fire") },
    });
  });

  it("after an abort the remaining checks are pending as stopped", async () => {
    const controller = new AbortController();
    controller.abort();
    const result = await evaluateQuest({ id: "q", checks: [pass] }, { ...ctx, signal: controller.signal });
    expect(result.checks[0]).toMatchObject({ status: "pending", evidence: { pending: "stopped" } });
  });
});
