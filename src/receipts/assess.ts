/**
 * Reassessment without running anything: each check's newest receipt, judged against
 * the files as they are now. Recorded receipts are never rewritten here.
 */
import { type FingerprintOutcome, fingerprint as takeWorkspaceFingerprint } from "./fingerprint.ts";
import type { Receipt } from "./schema.ts";
import { type AlteredReceipt, newestByIdentity, type ReceiptStore } from "./store.ts";

export type Freshness = "fresh" | "stale" | "incomplete";

export type ReceiptAssessment = {
  receipt: Receipt;
  freshness: Freshness;
  reason: string;
  /** Older receipts of the same check identity and folder that this one supersedes. */
  superseded: number;
};

export type Reassessment = {
  assessments: ReceiptAssessment[];
  warnings: string[];
  /** Receipt files ignored because pi-quests did not write them as they are. */
  altered: AlteredReceipt[];
  interrupted: Receipt[];
  fingerprint: FingerprintOutcome;
};

export function assessReceipt(
  receipt: Receipt,
  current: FingerprintOutcome,
): { freshness: Freshness; reason: string } {
  if (receipt.state === "running") return { freshness: "incomplete", reason: "still running" };
  if (receipt.termination === "interrupted")
    return { freshness: "incomplete", reason: "interrupted: the process died mid-run" };
  if (receipt.state !== "passed" && receipt.state !== "failed") {
    return {
      freshness: "incomplete",
      reason: `${receipt.state}${receipt.termination ? ` (${receipt.termination})` : ""}`,
    };
  }
  if (receipt.fingerprint === null)
    return { freshness: "incomplete", reason: receipt.note ?? "no fingerprint" };
  if (!current.ok)
    return {
      freshness: "incomplete",
      reason: `the workspace cannot be fingerprinted now: ${current.reason}`,
    };
  if (receipt.fingerprint.value !== current.fingerprint.value) {
    return { freshness: "stale", reason: "the files changed since this receipt" };
  }
  return { freshness: "fresh", reason: "same files as when it ran" };
}

/** Finds interrupted runs first (and records them as such), then assesses every check's newest receipt. */
export async function reassess(
  store: ReceiptStore,
  workspace: string,
  takeFingerprint: (workspace: string) => Promise<FingerprintOutcome> = takeWorkspaceFingerprint,
): Promise<Reassessment> {
  const interrupted = await store.recoverInterrupted();
  const { receipts, warnings, altered } = await store.list();
  const current = await takeFingerprint(workspace);
  const newest = newestByIdentity(receipts);
  const assessments = [...newest.values()].map((receipt) => {
    const superseded = receipts.filter(
      (other) =>
        other.id !== receipt.id && other.checkIdentity === receipt.checkIdentity && other.cwd === receipt.cwd,
    ).length;
    return { receipt, ...assessReceipt(receipt, current), superseded };
  });
  assessments.sort((a, b) => a.receipt.startedAt.localeCompare(b.receipt.startedAt));
  return { assessments, warnings, altered, interrupted, fingerprint: current };
}
