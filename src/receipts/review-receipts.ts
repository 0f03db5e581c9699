/**
 * Receipts of review checks, for the receipts port (port.ts). A review leaves a receipt like a
 * command: `kind: "review"`, the criterion as its "command", the fingerprint of the snapshot the
 * reviewer read, and the result. A receipt of a valid judgment (passed or failed, `judged`) on
 * the files as they are answers the check again, so a review runs at most once per fingerprint;
 * a judgment the rules refused, a timeout or a provider error is recorded and never reused.
 */
import { createHash } from "node:crypto";
import { canonicalJson } from "../core/seal.ts";
import type { ReviewCheck, ReviewEvidence } from "../verifier/checks/review.ts";
import type { FinishedReview } from "../verifier/receipts-port.ts";
import type { CheckResult } from "../verifier/results.ts";
import { normalizeRelativePath, redactCommand } from "./identity.ts";
import type { Evaluation } from "./port.ts";
import { newReceiptHeader, receiptEvidence } from "./receipt-parts.ts";
import type { Receipt, Termination } from "./schema.ts";
import { newestByIdentity, supersedeKey } from "./store.ts";

/** Bumped when the definition below, or the reviewer's instructions, change meaning. */
const REVIEW_IDENTITY = "pi-quests.review-identity/1";

/**
 * What a review judges: its criterion, where it starts, the model it asks for and its limit,
 * and the Pi whose SDK judges it (`reviewer`, see ReceiptPortOptions). The learner's current
 * model, when the check names none, is left out: switching models does not buy a second review
 * of the same files.
 */
export function reviewIdentity(check: ReviewCheck, reviewer?: string): string {
  const definition = {
    identity: REVIEW_IDENTITY,
    reviewer: reviewer ?? null,
    type: check.type,
    criterion: check.criterion,
    files: [...new Set(check.files.map(normalizeRelativePath))].sort(),
    model: check.model ?? null,
    timeout_ms: check.timeout_ms,
  };
  return createHash("sha256").update(canonicalJson(definition)).digest("hex");
}

function isReviewEvidence(stored: unknown): stored is Omit<ReviewEvidence, "receipt"> {
  return (
    typeof stored === "object" &&
    stored !== null &&
    (stored as { kind?: unknown }).kind === "review" &&
    typeof (stored as { summary?: unknown }).summary === "string"
  );
}

/** A fresh receipt of a valid judgment of this review on these files answers it; nothing is reviewed. */
export async function reuseReview(
  evaluation: Evaluation,
  check: ReviewCheck,
  questId: string,
): Promise<CheckResult | undefined> {
  const snap = await evaluation.snapshot();
  if (!snap.ok) return undefined;
  const identity = reviewIdentity(check, evaluation.options.reviewer);
  const newest = newestByIdentity(await evaluation.receipts()).get(supersedeKey(identity, "."));
  const fresh =
    newest !== undefined &&
    newest.kind === "review" &&
    newest.quest === questId &&
    (newest.state === "passed" || newest.state === "failed") &&
    newest.termination === "judged" &&
    newest.fingerprint?.value === snap.fingerprint.value;
  if (!fresh || !newest.result || !isReviewEvidence(newest.result.evidence)) return undefined;
  return {
    id: check.id,
    type: "review",
    status: newest.result.status,
    ...(check.describe !== undefined ? { describe: check.describe } : {}),
    evidence: { ...newest.result.evidence, receipt: receiptEvidence(newest, true) },
  };
}

function terminationOf(review: FinishedReview): Termination {
  const { outcome } = review;
  if (outcome.ok) return "judged";
  return outcome.kind === "timeout" || outcome.kind === "stopped" ? outcome.kind : "unavailable";
}

/** Records a review as it ended, on the fingerprint of the snapshot the reviewer read. */
export async function recordReview(
  evaluation: Evaluation,
  check: ReviewCheck,
  questId: string,
  review: FinishedReview,
): Promise<CheckResult> {
  const { options } = evaluation;
  const { result, outcome } = review;
  const identity = reviewIdentity(check, evaluation.options.reviewer);
  const taken = outcome.ok ? outcome.fingerprint : undefined;
  const fingerprint = taken?.ok
    ? { algorithm: taken.algorithm, value: taken.value, entries: taken.entries, bytes: taken.bytes }
    : null;
  const termination = terminationOf(review);
  const evidence = result.evidence.kind === "review" ? result.evidence : undefined;
  const receipt: Receipt = {
    ...(await newReceiptHeader(options, questId, check.id, identity)),
    kind: "review",
    command: redactCommand(`review: ${check.criterion}`),
    cwd: ".",
    startedAt: review.started.toISOString(),
    endedAt: evaluation.now().toISOString(),
    exitCode: null,
    termination,
    provenance: {
      isolation: "snapshot",
      runDir: outcome.record?.runDir ?? null,
      baseline: null,
      head: null,
      patchSha256: null,
      host: options.host,
      tool: options.tool ?? "pi-quests",
    },
    fingerprint,
    note: taken && !taken.ok ? `no fingerprint of the snapshot: ${taken.reason}` : null,
    state:
      result.status === "fail" && termination === "judged"
        ? "failed"
        : result.status === "pass" && fingerprint !== null
          ? "passed"
          : "skipped",
    result: {
      status: result.status,
      summary: result.evidence.summary,
      evidence: evidence ?? result.evidence,
    },
  };
  await evaluation.write(receipt);
  if (!evidence) return result;
  return { ...result, evidence: { ...evidence, receipt: receiptEvidence(receipt, false) } };
}
