/** `confirm`: the learner says it is done; pending until they answer yes. */
import { z } from "zod";
import { checkBaseFields } from "../../core/check-fields.ts";
import type { EvaluationContext } from "../context.ts";
import type { CheckResult } from "../results.ts";
import { type CheckOf, defineCheckType } from "./define.ts";
import { result } from "./result.ts";

export const ConfirmCheckSchema = z.strictObject({
  ...checkBaseFields,
  type: z.literal("confirm"),
  prompt: z.string().min(1),
});
export type ConfirmCheck = CheckOf<typeof ConfirmCheckSchema>;

export type ConfirmEvidence = { kind: "confirm"; summary: string; prompt: string; answer?: boolean };

async function evaluateConfirmCheck(check: ConfirmCheck, ctx: EvaluationContext): Promise<CheckResult> {
  const answer = await ctx.probes.confirm(check);
  if (answer === true) {
    return result(check, "pass", {
      kind: "confirm",
      summary: "the learner confirmed",
      prompt: check.prompt,
      answer,
    });
  }
  return result(check, "pending", {
    kind: "confirm",
    summary:
      answer === false
        ? "the learner has not confirmed yet (answered no)"
        : "awaiting the learner's confirmation",
    prompt: check.prompt,
    ...(answer === false ? { answer } : {}),
  });
}

export const confirmCheck = defineCheckType({
  type: "confirm",
  schema: ConfirmCheckSchema,
  evaluate: evaluateConfirmCheck,
  needs: { confirmation: (check) => check.prompt },
  // The learner is the one to act: say how.
  hint: (result) => {
    if (result.status !== "pending" || result.evidence.kind !== "confirm") return undefined;
    return result.evidence.answer === false
      ? "you answered no; /quest check asks again"
      : "/quest check to confirm";
  },
});
