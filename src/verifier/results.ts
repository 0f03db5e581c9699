/**
 * What an evaluation says: a status per check with its evidence, and the quest's status. The
 * evidence of each check type is declared in its module (src/verifier/checks/); the registry
 * joins them into `Evidence`.
 */
import type { CheckType, Evidence } from "./checks/registry.ts";

export type CheckStatus = "pass" | "fail" | "pending";

/** Why a check could not be decided: every pending result names one. */
export type PendingKind =
  | "unavailable" // a tool, a process or a service could not start
  | "timeout"
  | "stopped" // cancelled or disposed
  | "awaiting_confirmation"
  | "not_reached" // an event boundary that has not happened yet
  | "too_large"
  | "isolation_unavailable"
  | "stale" // a pass whose receipt no longer matches the files
  | "no_fingerprint" // ran, but the workspace could not be fingerprinted: never green
  | "awaiting_review" // a review check not reviewed yet: `/quest check` has it reviewed
  | "needs_review" // a reviewer's judgment the acceptance rules do not take
  | "no_model" // no model to review with
  | "error"; // any other infrastructure error

/** A path a check could not use: it leaves its root, or is too large, binary or unreadable. */
export type PathEvidence = {
  kind: "path";
  summary: string;
  path: string;
  problem: "escape" | "too_large" | "binary" | "unreadable";
};

/** A check that could not be decided, of any type. */
export type PendingEvidence = {
  kind: "pending";
  summary: string;
  pending: PendingKind;
  detail?: Record<string, unknown>;
};

/** Typed evidence: each check type says what it saw. `summary` is the one line a person reads. */
export type CheckResult = {
  id: string;
  type: CheckType;
  status: CheckStatus;
  describe?: string;
  evidence: Evidence;
};

export type QuestCounts = { passed: number; failed: number; pending: number };

export type QuestResult = {
  quest: string;
  status: CheckStatus;
  counts: QuestCounts;
  checks: CheckResult[];
};
