/** `skill_valid`: passes when Pi's own skill discovery finds the skill and it breaks no rule. */
import { z } from "zod";
import { checkBaseFields, PathSchema } from "../../core/check-fields.ts";
import { ANY_TEMPLATE } from "../../core/paths.ts";
import type { EvaluationContext } from "../context.ts";
import { resolveQuestPath } from "../paths.ts";
import type { SkillCandidate } from "../probes.ts";
import type { CheckResult } from "../results.ts";
import { type CheckOf, defineCheckType } from "./define.ts";
import { pathProblem, pending, result } from "./result.ts";

export const SkillValidCheckSchema = z
  .strictObject({
    ...checkBaseFields,
    type: z.literal("skill_valid"),
    name: z.string().min(1).optional(),
    path: PathSchema.optional(),
  })
  .refine(
    (check) => (check.name === undefined) !== (check.path === undefined),
    "give exactly one of name or path",
  );
export type SkillValidCheck = CheckOf<typeof SkillValidCheckSchema>;

export type SkillEvidence = {
  kind: "skill";
  summary: string;
  name?: string;
  filePath?: string;
  violations: string[];
  diagnostics: string[];
  /** When Pi does not find the skill: the SKILL.md files found around it, each with why it is not the one. */
  candidates?: SkillCandidate[];
};

async function evaluateSkillValidCheck(check: SkillValidCheck, ctx: EvaluationContext): Promise<CheckResult> {
  let path: { absolute: string; root: string } | undefined;
  if (check.path !== undefined) {
    const resolved = resolveQuestPath(check.path, ctx.paths);
    if (!resolved.ok) return pathProblem(check, resolved.written, resolved.reason);
    path = resolved.path;
  }
  const outcome = await ctx.probes.skillValid({
    ...(check.name !== undefined ? { name: check.name } : {}),
    ...(path !== undefined ? { path: path.absolute, root: path.root } : {}),
    workspace: ctx.paths.workspace,
    agentDir: ctx.paths.agentDir,
  });
  if (!outcome.ok && "problem" in outcome)
    return pathProblem(check, check.path ?? check.name ?? "", outcome.message);
  if (!outcome.ok) return pending(check, outcome.unavailable ? "unavailable" : "error", outcome.message);
  const wanted = check.name ?? check.path ?? "";
  const passed = outcome.found !== undefined && outcome.violations.length === 0;
  const candidates = outcome.candidates ?? [];
  const elsewhere =
    candidates.length === 0
      ? ""
      : `; ${candidates.length === 1 ? "1 other SKILL.md was" : `${candidates.length} other SKILL.md files were`} found, and the evidence says why ${candidates.length === 1 ? "it is" : "each is"} not it`;
  const summary = passed
    ? `skill ${outcome.found?.name} is valid and Pi finds it`
    : outcome.found === undefined
      ? `Pi's skill discovery does not find ${wanted}${outcome.violations.length ? `: ${outcome.violations[0]}` : ""}${elsewhere}`
      : `skill ${outcome.found.name}: ${outcome.violations.join("; ")}`;
  return result(check, passed ? "pass" : "fail", {
    kind: "skill",
    summary,
    ...(outcome.found ? { name: outcome.found.name, filePath: outcome.found.filePath } : {}),
    violations: outcome.violations,
    diagnostics: outcome.diagnostics,
    ...(candidates.length > 0 ? { candidates } : {}),
  });
}

export const skillValidCheck = defineCheckType({
  type: "skill_valid",
  schema: SkillValidCheckSchema,
  evaluate: evaluateSkillValidCheck,
  needs: {},
  // What is wrong, by Pi's rules; another SKILL.md found and why it is not it is for --details.
  hint: (checked) =>
    checked.status === "fail" && checked.evidence.kind === "skill"
      ? checked.evidence.summary.replace(/; \d+ other SKILL\.md.*$/, "")
      : undefined,
  reportDetail: (checked) =>
    checked.evidence.kind === "skill" && checked.evidence.candidates
      ? { lines: checked.evidence.candidates.map(({ filePath, reason }) => `${filePath}: ${reason}`) }
      : {},
  pathFields: (check) =>
    check.path === undefined ? [] : [{ field: ["path"], written: check.path, rule: ANY_TEMPLATE }],
});
