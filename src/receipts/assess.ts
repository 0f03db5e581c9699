/**
 * Reassessment without running anything: each check's newest receipt, judged against
 * the files as they are now. Recorded receipts are never rewritten here.
 */
import { type FingerprintOutcome, fingerprint as takeWorkspaceFingerprint } from "./fingerprint.ts";
import type { Receipt } from "./schema.ts";
import {
  type AlteredReceipt,
  currentHost,
  hostAlive,
  INTERRUPTED_NOTE,
  newestByIdentity,
  type ReceiptStore,
} from "./store.ts";

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

export type ReassessOptions = {
  takeFingerprint?: (workspace: string) => Promise<FingerprintOutcome>;
  /**
   * Whether interrupted runs are recorded as such first (a write). False for another writer's
   * store, which this process only reads: a run whose process is gone is then only said so.
   */
  recover?: boolean;
};

/** Finds interrupted runs first (and records them as such), then assesses every check's newest receipt. */
export async function reassess(
  store: ReceiptStore,
  workspace: string,
  { takeFingerprint = takeWorkspaceFingerprint, recover = true }: ReassessOptions = {},
): Promise<Reassessment> {
  const interrupted = recover ? await store.recoverInterrupted() : [];
  const { receipts, warnings, altered } = await store.list();
  const current = await takeFingerprint(workspace);
  const newest = newestByIdentity(receipts);
  const here = currentHost();
  const assessments = [...newest.values()].map((receipt) => {
    const superseded = receipts.filter(
      (other) =>
        other.id !== receipt.id && other.checkIdentity === receipt.checkIdentity && other.cwd === receipt.cwd,
    ).length;
    const gone = !recover && receipt.state === "running" && !hostAlive(receipt.provenance.host, here);
    const assessed = gone
      ? { freshness: "incomplete" as const, reason: INTERRUPTED_NOTE }
      : assessReceipt(receipt, current);
    return { receipt, ...assessed, superseded };
  });
  assessments.sort((a, b) => a.receipt.startedAt.localeCompare(b.receipt.startedAt));
  return { assessments, warnings, altered, interrupted, fingerprint: current };
}
