/**
 * The port through which command checks leave receipts and reuse them. The engine decides what
 * a check means; the port (src/receipts) decides whether a fresh receipt already answers it, and
 * records every run. Absent, checks simply run.
 */
import type { CommandCheck } from "./checks/command.ts";
import type { ReviewCheck } from "./checks/review.ts";
import type { ReviewOutcome, ScriptOutcome } from "./probes.ts";
import type { CheckResult } from "./results.ts";

export type ReceiptHandle = { readonly id: string };

export type ReceiptPort = {
  /** `cwd` is the check's folder, absolute (templates resolved). A fresh receipt of this exact check on this exact snapshot answers it; nothing runs. */
  reuse(check: CommandCheck, questId: string, cwd: string): Promise<CheckResult | undefined>;
  /** Records that the check starts (state `running`), with the snapshot it will judge. */
  begin(check: CommandCheck, questId: string, cwd: string): Promise<ReceiptHandle>;
  /** Records how it ended; returns the result with its receipt (pending when it cannot be green). */
  finish(handle: ReceiptHandle, result: CheckResult, outcome: ScriptOutcome): Promise<CheckResult>;
  /**
   * A review check: a fresh receipt of a valid judgment (pass or fail) of this exact review on
   * this exact snapshot answers it; nothing is reviewed again.
   */
  reuseReview?(check: ReviewCheck, questId: string): Promise<CheckResult | undefined>;
  /** Records a review as it ended (on the fingerprint of the snapshot it read); returns the result with its receipt. */
  recordReview?(check: ReviewCheck, questId: string, review: FinishedReview): Promise<CheckResult>;
  /**
   * The evaluation's last step: every passing command result, against the files as they are now.
   * A receipt whose fingerprint no longer matches is stale, and its check pending.
   */
  recheck(results: readonly CheckResult[]): Promise<CheckResult[]>;
};

/** A review that ended, as `recordReview` records it. */
export type FinishedReview = { started: Date; result: CheckResult; outcome: ReviewOutcome };
