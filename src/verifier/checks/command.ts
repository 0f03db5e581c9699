import type { CommandCheck } from "../../core/checks.ts";
import type { EvaluationContext } from "../context.ts";
import { resolveQuestPath } from "../paths.ts";
import { describePredicate, matchesIntPredicate, matchesStringPredicate } from "../predicates.ts";
import type { ScriptOutcome } from "../probes.ts";
import type { CheckResult } from "../results.ts";
import { pathProblem, pending, result } from "./result.ts";

/** How much of a run's output the evidence keeps (the tail, which is what an author reads). */
export const EVIDENCE_OUTPUT_BYTES = 64 * 1024;

function tail(text: string): { output: string; cut: boolean } {
  return text.length > EVIDENCE_OUTPUT_BYTES
    ? { output: text.slice(-EVIDENCE_OUTPUT_BYTES), cut: true }
    : { output: text, cut: false };
}

/** The summary, and a short note of the changes outside `editable` that the run did not see. */
function withLeftOut(summary: string, leftOut: readonly string[] | undefined): string {
  if (!leftOut || leftOut.length === 0) return summary;
  const shown = leftOut.slice(0, 3).join(", ");
  const more = leftOut.length > 3 ? ` and ${leftOut.length - 3} more` : "";
  const what =
    leftOut.length === 1 ? "1 change outside editable" : `${leftOut.length} changes outside editable`;
  return `${summary}; ${what} not applied (${shown}${more})`;
}

/**
 * A command check: answered by a fresh receipt when there is one, else run (in the isolated
 * verifier, or in place) and judged, and the run recorded as a receipt.
 */
export async function evaluateCommandCheck(
  check: CommandCheck,
  ctx: EvaluationContext,
): Promise<CheckResult> {
  const where = resolveQuestPath(check.cwd ?? ".", ctx.paths);
  if (!where.ok) return pathProblem(check, where.written, where.reason);
  if (check.isolation === "worktree" && !ctx.probes.runIsolated) {
    return pending(
      check,
      "isolation_unavailable",
      "isolation: worktree needs the isolated task verifier, which is not available here; not run",
    );
  }
  const receipts = ctx.receipts;
  if (!receipts) return (await runAndJudge(check, ctx, where.path.absolute)).result;
  const reused = await receipts.reuse(check, ctx.questId, where.path.absolute);
  if (reused) return reused;
  const handle = await receipts.begin(check, ctx.questId, where.path.absolute);
  const { result, outcome } = await runAndJudge(check, ctx, where.path.absolute);
  return receipts.finish(handle, result, outcome);
}

async function runAndJudge(
  check: CommandCheck,
  ctx: EvaluationContext,
  cwd: string,
): Promise<{ result: CheckResult; outcome: ScriptOutcome }> {
  const request = {
    script: `${ctx.questId}/${check.id}`,
    content: check.run,
    cwd,
    timeoutMs: check.timeout_ms,
    ...(ctx.signal ? { signal: ctx.signal } : {}),
  };
  const outcome: ScriptOutcome =
    check.isolation === "none" || !ctx.probes.runIsolated
      ? await ctx.probes.runCommand(request)
      : await ctx.probes.runIsolated({
          ...request,
          oraclePaths: check.oracle_paths,
          questId: ctx.questId,
          checkId: check.id,
          ...(check.editable ? { editable: check.editable } : {}),
        });

  const evidenceBase = {
    kind: "command" as const,
    script: request.script,
    cwd: request.cwd,
    isolation: check.isolation,
    ...(outcome.containment ? { containment: outcome.containment } : {}),
  };
  if (!outcome.ok) {
    const { output, cut } = tail(outcome.report);
    const pendingResult = result(check, "pending", {
      ...evidenceBase,
      summary: withLeftOut(`${outcome.kind}: ${outcome.message}`, outcome.verification?.leftOut),
      output,
      outputTruncated: outcome.truncated || cut,
      ...(outcome.verification ? { verification: outcome.verification } : {}),
    });
    return { result: pendingResult, outcome };
  }

  const failed: string[] = [];
  const exitCode = outcome.exitCode ?? -1;
  if (outcome.exitCode === null || !matchesIntPredicate(check.exit_code, exitCode)) {
    failed.push(
      outcome.exitCode === null
        ? `ended by signal ${outcome.signal ?? "?"}`
        : `exit code ${exitCode}, expected ${describePredicate(check.exit_code)}`,
    );
  }
  if (check.stdout !== undefined && !matchesStringPredicate(check.stdout, outcome.stdout)) {
    failed.push(`stdout does not match ${describePredicate(check.stdout)}`);
  }
  if (check.stderr !== undefined && !matchesStringPredicate(check.stderr, outcome.stderr)) {
    failed.push(`stderr does not match ${describePredicate(check.stderr)}`);
  }
  const { output, cut } = tail(outcome.report);
  const judged = result(check, failed.length === 0 ? "pass" : "fail", {
    ...evidenceBase,
    summary: withLeftOut(
      failed.length === 0 ? `exit code ${exitCode}` : failed.join("; "),
      outcome.verification?.leftOut,
    ),
    ...(outcome.exitCode !== null ? { exitCode: outcome.exitCode } : {}),
    ...(outcome.signal ? { signal: outcome.signal } : {}),
    output,
    outputTruncated: outcome.truncated || cut,
    ...(failed.length > 0 ? { failed } : {}),
    ...(outcome.verification ? { verification: outcome.verification } : {}),
  });
  return { result: judged, outcome };
}
