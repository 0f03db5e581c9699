import type { CommandCheck } from "../../core/checks.ts";
import type { CheckResult } from "../../core/results.ts";
import type { EvaluationContext } from "../context.ts";
import { resolveQuestPath } from "../paths.ts";
import { describePredicate, matchesIntPredicate, matchesStringPredicate } from "../predicates.ts";
import type { ScriptOutcome } from "../probes.ts";
import { pathProblem, pending, result } from "./result.ts";

/** How much of a run's output the evidence keeps (the tail, which is what an author reads). */
export const EVIDENCE_OUTPUT_BYTES = 64 * 1024;

function tail(text: string): { output: string; cut: boolean } {
  return text.length > EVIDENCE_OUTPUT_BYTES
    ? { output: text.slice(-EVIDENCE_OUTPUT_BYTES), cut: true }
    : { output: text, cut: false };
}

export async function evaluateCommandCheck(
  check: CommandCheck,
  ctx: EvaluationContext,
): Promise<CheckResult> {
  const where = resolveQuestPath(check.cwd ?? ".", ctx.paths);
  if (!where.ok) return pathProblem(check, where.written, where.reason);
  const request = {
    script: `${ctx.questId}/${check.id}`,
    content: check.run,
    cwd: where.path.absolute,
    timeoutMs: check.timeout_ms,
    ...(ctx.signal ? { signal: ctx.signal } : {}),
  };
  let outcome: ScriptOutcome;
  if (check.isolation === "none") {
    outcome = await ctx.probes.runCommand(request);
  } else if (ctx.probes.runIsolated) {
    outcome = await ctx.probes.runIsolated({
      ...request,
      oraclePaths: check.oracle_paths,
      questId: ctx.questId,
      checkId: check.id,
    });
  } else {
    return pending(
      check,
      "isolation_unavailable",
      "isolation: worktree needs the isolated task verifier, which is not available here; not run",
    );
  }

  const evidenceBase = {
    kind: "command" as const,
    script: request.script,
    cwd: request.cwd,
    isolation: check.isolation,
  };
  if (!outcome.ok) {
    const { output, cut } = tail(outcome.report);
    return result(check, "pending", {
      ...evidenceBase,
      summary: `${outcome.kind}: ${outcome.message}`,
      output,
      outputTruncated: outcome.truncated || cut,
      ...(outcome.verification ? { verification: outcome.verification } : {}),
    });
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
  return result(check, failed.length === 0 ? "pass" : "fail", {
    ...evidenceBase,
    summary: failed.length === 0 ? `exit code ${exitCode}` : failed.join("; "),
    ...(outcome.exitCode !== null ? { exitCode: outcome.exitCode } : {}),
    ...(outcome.signal ? { signal: outcome.signal } : {}),
    output,
    outputTruncated: outcome.truncated || cut,
    ...(failed.length > 0 ? { failed } : {}),
    ...(outcome.verification ? { verification: outcome.verification } : {}),
  });
}
