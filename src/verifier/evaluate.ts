import type { Check } from "../core/checks.ts";
import { evaluateCommandCheck } from "./checks/command.ts";
import { evaluateEventCheck } from "./checks/event.ts";
import { evaluateFileExistsCheck } from "./checks/file-exists.ts";
import { evaluateGitCheck } from "./checks/git.ts";
import {
  evaluateConfirmCheck,
  evaluateMcpHandshakeCheck,
  evaluateSkillValidCheck,
} from "./checks/integrations.ts";
import { pending } from "./checks/result.ts";
import { evaluateStructuredPathCheck } from "./checks/structured-path.ts";
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
    return await dispatch(check, ctx, index ?? indexEvents(ctx.events));
  } catch (error) {
    return pending(
      check,
      "error",
      `the verifier could not evaluate this check: ${(error as Error).message ?? error}`,
    );
  }
}

function dispatch(
  check: Check,
  ctx: EvaluationContext,
  index: EventIndex,
): CheckResult | Promise<CheckResult> {
  switch (check.type) {
    case "event":
      return evaluateEventCheck(check, ctx, index);
    case "file_exists":
      return evaluateFileExistsCheck(check, ctx);
    case "json_path":
    case "yaml_path":
      return evaluateStructuredPathCheck(check, ctx);
    case "command":
      return evaluateCommandCheck(check, ctx);
    case "git":
      return evaluateGitCheck(check, ctx);
    case "mcp_handshake":
      return evaluateMcpHandshakeCheck(check, ctx);
    case "skill_valid":
      return evaluateSkillValidCheck(check, ctx);
    case "confirm":
      return evaluateConfirmCheck(check, ctx);
    default: {
      const unknown: never = check;
      throw new Error(`unknown check type ${(unknown as { type: string }).type}`);
    }
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

/** Evaluates every check of a quest, in order (checks may run processes: one at a time). */
export async function evaluateQuest(
  quest: Pick<Quest, "id" | "checks">,
  ctx: EvaluationContext,
): Promise<QuestResult> {
  const index = indexEvents(ctx.events);
  const checks: CheckResult[] = [];
  for (const check of quest.checks) checks.push(await evaluateCheck(check, ctx, index));
  return { quest: quest.id, ...aggregate(checks), checks };
}
