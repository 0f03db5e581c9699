import { describe, expect, it } from "vitest";
import { reportDetailFor } from "../../../src/verifier/checks/registry.ts";
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

  it("is pending, unavailable, where Pi's skill loader is not there; pending, error, for another failure", async () => {
    const answer = (outcome: { ok: false; message: string; unavailable?: true }) =>
      context({ probes: fakeProbes({}, { skillValid: async () => outcome }) });
    const skill = check({ type: "skill_valid", name: "x" });
    expect(
      await evaluateCheck(skill, answer({ ok: false, unavailable: true, message: "no Pi here" })),
    ).toMatchObject({ status: "pending", evidence: { pending: "unavailable", summary: "no Pi here" } });
    expect(await evaluateCheck(skill, answer({ ok: false, message: "EIO" }))).toMatchObject({
      status: "pending",
      evidence: { pending: "error", summary: "EIO" },
    });
  });

  it("a skill Pi does not find: the summary counts the SKILL.md files around it, the report says why each is not it", async () => {
    const candidates = [
      { filePath: "skills/greet/SKILL.md", reason: "it is not in a folder Pi searches for skills" },
      { filePath: ".pi/skills/hello/SKILL.md", reason: 'Pi loads it as the skill "hello", not "greet"' },
    ];
    const ctx = context({
      probes: fakeProbes(
        {},
        { skillValid: async () => ({ ok: true, violations: [], diagnostics: [], candidates }) },
      ),
    });
    const result = await evaluateCheck(check({ type: "skill_valid", name: "greet" }), ctx);
    expect(result).toMatchObject({ status: "fail", evidence: { kind: "skill", candidates } });
    expect(result.evidence.summary).toBe(
      "Pi's skill discovery does not find greet; 2 other SKILL.md files were found, and the evidence says why each is not it",
    );
    expect(reportDetailFor(result).lines).toEqual([
      "skills/greet/SKILL.md: it is not in a folder Pi searches for skills",
      '.pi/skills/hello/SKILL.md: Pi loads it as the skill "hello", not "greet"',
    ]);
  });
});
