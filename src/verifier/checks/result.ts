import type { CheckResult, CheckStatus, PendingKind } from "../results.ts";
import type { Check, Evidence } from "./registry.ts";

export function result(check: Check, status: CheckStatus, evidence: Evidence): CheckResult {
  return {
    id: check.id,
    type: check.type,
    status,
    ...(check.describe !== undefined ? { describe: check.describe } : {}),
    evidence,
  };
}

/** A check that cannot be decided now; never counted as passed. */
export function pending(
  check: Check,
  kind: PendingKind,
  summary: string,
  detail?: Record<string, unknown>,
): CheckResult {
  return result(check, "pending", { kind: "pending", pending: kind, summary, ...(detail ? { detail } : {}) });
}

export function pathProblem(check: Check, written: string, reason: string): CheckResult {
  return result(check, "fail", {
    kind: "path",
    summary: `${written}: ${reason}`,
    path: written,
    problem: "escape",
  });
}

/** What the learner reads for a check that could not be decided, by why: what happens next, or what to do. */
const PENDING_REASONS: Record<PendingKind, string> = {
  unavailable: "could not be checked here (/quest status --details says why)",
  timeout: "the check took too long; /quest check tries again",
  stopped: "the check was stopped; /quest check tries again",
  awaiting_confirmation: "/quest check to confirm",
  not_reached: "waits on something that has not happened yet",
  too_large: "a file is too large to check (/quest status --details)",
  isolation_unavailable: "could not be checked here (/quest status --details says why)",
  stale: "your files changed since it passed; it is checked again",
  no_fingerprint: "your folder could not be read whole; it cannot pass (/quest status --details)",
  awaiting_review: "/quest check to have it reviewed",
  needs_review: "the review could not be used (/quest status --details says why)",
  no_model: "needs a model: /login, or /model to pick one",
  error: "could not be checked (/quest status --details says why)",
};

/** What the learner reads for a check that could not be decided for this reason. */
export function pendingReason(kind: PendingKind): string {
  return PENDING_REASONS[kind];
}

/**
 * The learner's reason for a result its type does not word itself: a pending one by its kind, a
 * path the check cannot use by what is wrong with it, else the summary.
 */
export function sharedReason(result: CheckResult): string {
  const evidence = result.evidence;
  if (evidence.kind === "pending") {
    // A check that waits for another says which: its summary names the other check's description.
    if (evidence.pending === "not_reached" && evidence.summary.startsWith("it comes after "))
      return evidence.summary;
    return PENDING_REASONS[evidence.pending];
  }
  if (evidence.kind === "path") {
    return evidence.problem === "escape"
      ? `${evidence.path} is outside this quest's folder: the check cannot read it`
      : evidence.summary;
  }
  return evidence.summary;
}
