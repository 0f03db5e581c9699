import { describe, expect, it } from "vitest";
import { evaluateCheck } from "../../../src/verifier/evaluate.ts";
import { check } from "../../support/checks.ts";
import { context, fakeProbes } from "../../support/fake-probes.ts";

describe("skill_valid", () => {
  it("skill_valid needs discovery and no violations", async () => {
    const answer = (found: boolean, violations: string[]) =>
      context({
        probes: fakeProbes(
          {},
          {
            skillValid: async () => ({
              ok: true,
              ...(found ? { found: { name: "x", filePath: "/s" } } : {}),
              violations,
              diagnostics: [],
            }),
          },
        ),
      });
    const skill = check({ type: "skill_valid", name: "x" });
    expect((await evaluateCheck(skill, answer(true, []))).status).toBe("pass");
    expect((await evaluateCheck(skill, answer(true, ["name too long"]))).status).toBe("fail");
    expect((await evaluateCheck(skill, answer(false, []))).status).toBe("fail");
  });
});
