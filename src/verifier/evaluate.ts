import type { Check } from "./checks/registry.ts";
import { evaluateByType } from "./checks/registry.ts";
import { pending } from "./checks/result.ts";
import type { EvaluationContext } from "./context.ts";
import { type EventIndex, indexEvents } from "./event-index.ts";
import type { Quest } from "./quest.ts";
import type { CheckResult, CheckStatus, QuestCounts, QuestResult } from "./results.ts";

/** Evaluates one check. Never throws: an unexpected error is a pending result that says so. */
export async function evaluateCheck(
  check: Check,
  ctx: EvaluationContext,
  index?: EventIndex,
): Promise<CheckResult> {
  if (ctx.signal?.aborted)
    return pending(check, "stopped", "the evaluation was stopped before this check ran");
  try {
    return await evaluateByType(check.type, check, ctx, index ?? indexEvents(ctx.events));
  } catch (error) {
    return pending(
      check,
      "error",
      `the verifier could not evaluate this check: ${(error as Error).message ?? error}`,
    );
  }
}

/** A quest fails if any check fails; otherwise it is pending if any is pending; otherwise it passes. */
export function aggregate(results: readonly CheckResult[]): { status: CheckStatus; counts: QuestCounts } {
  const counts: QuestCounts = { passed: 0, failed: 0, pending: 0 };
  for (const { status } of results) {
    if (status === "pass") counts.passed++;
    else if (status === "fail") counts.failed++;
    else counts.pending++;
  }
  const status: CheckStatus = counts.failed > 0 ? "fail" : counts.pending > 0 ? "pending" : "pass";
  return { status, counts };
}

/**
 * Evaluates every check of a quest, in order (checks may run processes: one at a time). The last
 * step is the receipts' recheck: a pass whose receipt no longer matches the files is pending.
 */
export async function evaluateQuest(
  quest: Pick<Quest, "id" | "checks">,
  ctx: EvaluationContext,
): Promise<QuestResult> {
  const index = indexEvents(ctx.events);
  const evaluated: CheckResult[] = [];
  const withChecks = { ...ctx, questChecks: quest.checks };
  for (const check of quest.checks) evaluated.push(await evaluateCheck(check, withChecks, index));
  const checks = ctx.receipts ? await ctx.receipts.recheck(evaluated) : evaluated;
  return { quest: quest.id, ...aggregate(checks), checks };
}
