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
