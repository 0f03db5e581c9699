import { relative } from "node:path";
import type { CommandCheck, CommandEvidence } from "../verifier/checks/command.ts";
import type { ReviewEvidence } from "../verifier/checks/review.ts";
import type { ScriptOutcome } from "../verifier/probes.ts";
import type { ReceiptHandle, ReceiptPort } from "../verifier/receipts-port.ts";
import type { CheckResult } from "../verifier/results.ts";
import { type FingerprintOutcome, fingerprint as takeWorkspaceFingerprint } from "./fingerprint.ts";
import { checkIdentity, normalizeRelativePath, redactCommand } from "./identity.ts";
import { newReceiptHeader, receiptEvidence } from "./receipt-parts.ts";
import { recordReview, reuseReview } from "./review-receipts.ts";
import type { Fingerprint, Receipt, ReceiptState, Termination } from "./schema.ts";
import { newestByIdentity, type ReceiptStore, supersedeKey } from "./store.ts";

export type ReceiptPortOptions = {
  store: ReceiptStore;
  /** The quest workspace, absolute and real. */
  workspace: string;
  /** The baseline the isolated verifier pinned: a receipt of another baseline is not reused. */
  baseline?: string;
  host: Receipt["provenance"]["host"];
  takeFingerprint?: (workspace: string) => Promise<FingerprintOutcome>;
  /**
   * The Pi whose SDK runs this evaluation's reviews (its package folder, real path): a review's
   * receipt answers only for the same Pi, so a judgment through a Pi the agent named
   * (`PI_QUESTS_PI=/its/folder pi-quests check`) never answers for the Pi the learner runs.
   */
  reviewer?: string;
  /**
   * The fingerprint the files are presumed to have, with no look (Fingerprinter.presume: the last
   * one taken): a receipt is chosen with it first. Only a choice: the recheck then looks at the
   * files, even when nothing passed, and `presumptionFailed` says when they were not as presumed;
   * the caller evaluates again, from a look. So one look answers an unchanged workspace. Only for
   * an evaluation that, made again, repeats nothing: one whose receipts are all of worktree
   * command checks (no review, nothing run in place).
   */
  presume?: (workspace: string) => Fingerprint | undefined;
  now?: () => Date;
  tool?: string;
};

/** The port, and whether its evaluation chose a receipt with a presumed fingerprint the files turned out not to have. */
export type PresumingReceiptPort = ReceiptPort & { presumptionFailed(): boolean };

/** One evaluation's view of the receipts and the files, shared by the port's steps (and review-receipts.ts). */
export type Evaluation = {
  options: ReceiptPortOptions;
  takeFingerprint: (workspace: string) => Promise<FingerprintOutcome>;
  now: () => Date;
  /** The workspace snapshot, taken once, until a check that ran in place may have changed it. */
  snapshot(): Promise<FingerprintOutcome>;
  forgetSnapshot(): void;
  /** The fingerprint presumed for this evaluation (ReceiptPortOptions.presume), asked once. */
  presumed(): Fingerprint | undefined;
  /** Whether the files were looked at in this evaluation (a snapshot taken). */
  looked(): boolean;
  /** Whether a receipt was chosen with the presumed fingerprint, and whether a look found other files since. */
  presumption: "unused" | "relied" | "failed";
  /** The stored receipts, read once and kept up to date with what this evaluation writes. */
  receipts(): Promise<Receipt[]>;
  write(receipt: Receipt): Promise<void>;
  /** Receipts begun and not yet finished, by id. */
  open: Map<string, Receipt>;
};

export function createReceiptPort(options: ReceiptPortOptions): PresumingReceiptPort {
  const evaluation = openEvaluation(options);
  return {
    presumptionFailed: () => evaluation.presumption === "failed",
    reuse: (check, questId, cwd) => reuse(evaluation, check, questId, cwd),
    begin: (check, questId, cwd) => begin(evaluation, check, questId, cwd),
    finish: (handle, result, outcome) => finish(evaluation, handle, result, outcome),
    recheck: (results) => recheck(evaluation, results),
    reuseReview: (check, questId) => reuseReview(evaluation, check, questId),
    recordReview: (check, questId, review) => recordReview(evaluation, check, questId, review),
  };
}

function openEvaluation(options: ReceiptPortOptions): Evaluation {
  const takeFingerprint = options.takeFingerprint ?? takeWorkspaceFingerprint;
  let snapshot: Promise<FingerprintOutcome> | undefined;
  let presumed: { fingerprint: Fingerprint | undefined } | undefined;
  let stored: Promise<Receipt[]> | undefined;
  const receipts = () => {
    stored ??= options.store.list().then((listed) => listed.receipts);
    return stored;
  };
  return {
    options,
    takeFingerprint,
    now: options.now ?? (() => new Date()),
    snapshot: () => {
      snapshot ??= takeFingerprint(options.workspace);
      return snapshot;
    },
    forgetSnapshot: () => {
      snapshot = undefined;
    },
    looked: () => snapshot !== undefined,
    presumed: () => {
      presumed ??= { fingerprint: options.presume?.(options.workspace) };
      return presumed.fingerprint;
    },
    presumption: "unused",
    receipts,
    write: async (receipt) => {
      await options.store.write(receipt);
      const list = await receipts();
      const at = list.findIndex((existing) => existing.id === receipt.id);
      if (at >= 0) list[at] = receipt;
      else list.push(receipt);
    },
    open: new Map(),
  };
}

/** A check's folder as receipts name it: workspace-relative, "." for the root. */
function checkCwd(evaluation: Evaluation, cwd: string): string {
  return normalizeRelativePath(relative(evaluation.options.workspace, cwd) || ".");
}

/**
 * A fresh receipt of this exact check on this exact snapshot answers it again; nothing runs.
 * Only a `worktree` run is answered so: what it sees is the fingerprinted files on the pinned
 * baseline. An `isolation: none` command runs in the learner's folder with their environment and
 * may read what no fingerprint covers (the agent dir's trust.json, a running server), so it runs
 * every time it is evaluated.
 */
async function reuse(
  evaluation: Evaluation,
  check: CommandCheck,
  questId: string,
  cwd: string,
): Promise<CheckResult | undefined> {
  if (check.isolation !== "worktree") return undefined;
  // Presumed only until the files are looked at: then what the look found chooses.
  const presumed = evaluation.looked() ? undefined : evaluation.presumed();
  if (presumed) {
    const answer = await answerFrom(evaluation, check, questId, cwd, presumed.value);
    if (answer) {
      evaluation.presumption = "relied";
      return answer;
    }
  }
  const snap = await evaluation.snapshot();
  if (!snap.ok) return undefined;
  judgePresumption(evaluation, snap);
  // A check answered earlier in this evaluation was of other files: it is evaluated again, and
  // so is this one, which must not run now and then a second time (presumptionFailed).
  if (evaluation.presumption === "failed") return evaluatedAgain(check, cwd);
  return answerFrom(evaluation, check, questId, cwd, snap.fingerprint.value);
}

/** A look at the files after a receipt was chosen with the presumed fingerprint: were they other files? */
function judgePresumption(evaluation: Evaluation, look: FingerprintOutcome): void {
  if (evaluation.presumption !== "relied") return;
  if (!look.ok || look.fingerprint.value !== evaluation.presumed()?.value) evaluation.presumption = "failed";
}

/** The placeholder of a check left to the evaluation made again; never published. */
function evaluatedAgain(check: CommandCheck, cwd: string): CheckResult {
  return {
    id: check.id,
    type: "command",
    status: "pending",
    evidence: {
      kind: "command",
      summary: "the files changed since they were last looked at: evaluated again",
      script: check.id,
      cwd,
      isolation: check.isolation,
      pending: "stale",
    },
  };
}

/** The result a fresh receipt of this check on files of `fingerprint` holds, if there is one. */
async function answerFrom(
  evaluation: Evaluation,
  check: CommandCheck,
  questId: string,
  cwd: string,
  fingerprint: string,
): Promise<CheckResult | undefined> {
  const where = checkCwd(evaluation, cwd);
  const identity = checkIdentity(check, where);
  const newest = newestByIdentity(await evaluation.receipts()).get(supersedeKey(identity, where));
  const fresh =
    newest !== undefined &&
    newest.quest === questId &&
    (newest.state === "passed" || newest.state === "failed") &&
    newest.termination === "exit" &&
    newest.fingerprint?.value === fingerprint &&
    newest.provenance.baseline === (evaluation.options.baseline ?? null) &&
    newest.result !== null;
  if (!fresh || !newest.result || !isCommandEvidence(newest.result.evidence)) return undefined;
  return {
    id: check.id,
    type: "command",
    status: newest.result.status,
    ...(check.describe !== undefined ? { describe: check.describe } : {}),
    evidence: {
      ...newest.result.evidence,
      // What the run found; `receipt.reused` says it was not run again (the report shows it).
      summary: newest.result.summary,
      receipt: receiptEvidence(newest, true),
    },
  };
}

/**
 * What a receipt kept of a command result (finish writes it; the receipt's seal vouches for it),
 * told apart from anything else a stored receipt could hold.
 */
function isCommandEvidence(stored: unknown): stored is Omit<CommandEvidence, "receipt"> {
  return (
    typeof stored === "object" &&
    stored !== null &&
    "kind" in stored &&
    stored.kind === "command" &&
    "summary" in stored &&
    typeof stored.summary === "string"
  );
}

/** Records that the check starts (state `running`), with the snapshot it will judge. */
async function begin(
  evaluation: Evaluation,
  check: CommandCheck,
  questId: string,
  cwd: string,
): Promise<ReceiptHandle> {
  const { options } = evaluation;
  const snap = await evaluation.snapshot();
  const where = checkCwd(evaluation, cwd);
  const identity = checkIdentity(check, where);
  const receipt: Receipt = {
    ...(await newReceiptHeader(options, questId, check.id, identity)),
    command: redactCommand(check.run),
    cwd: where,
    startedAt: evaluation.now().toISOString(),
    endedAt: null,
    exitCode: null,
    termination: null,
    provenance: {
      isolation: check.isolation,
      runDir: null,
      baseline: check.isolation === "worktree" ? (options.baseline ?? null) : null,
      head: null,
      patchSha256: null,
      host: options.host,
      tool: options.tool ?? "pi-quests",
    },
    fingerprint: snap.ok ? snap.fingerprint : null,
    note: snap.ok ? null : `no fingerprint: ${snap.reason}`,
    state: "running",
    result: null,
  };
  await evaluation.write(receipt);
  evaluation.open.set(receipt.id, receipt);
  return { id: receipt.id };
}

/** Records how the run ended; returns the result with its receipt (pending when it cannot be green). */
async function finish(
  evaluation: Evaluation,
  handle: ReceiptHandle,
  result: CheckResult,
  outcome: ScriptOutcome,
): Promise<CheckResult> {
  const started = evaluation.open.get(handle.id);
  if (!started) return result;
  evaluation.open.delete(handle.id);
  if (started.provenance.isolation === "none") evaluation.forgetSnapshot();
  const receipt = finishedReceipt(started, result, outcome, evaluation.now());
  await evaluation.write(receipt);
  return withReceipt(result, receipt);
}

function finishedReceipt(
  started: Receipt,
  result: CheckResult,
  outcome: ScriptOutcome,
  ended: Date,
): Receipt {
  const termination: Termination = outcome.ok
    ? outcome.exitCode === null
      ? "signal"
      : "exit"
    : outcome.kind;
  const judged = judgedSnapshot(started, outcome);
  const { evidence } = result;
  return {
    ...started,
    ...judged,
    endedAt: ended.toISOString(),
    exitCode: outcome.ok ? outcome.exitCode : null,
    termination,
    provenance: {
      ...started.provenance,
      runDir: outcome.verification?.runDir ?? null,
      head: outcome.verification?.head ?? null,
      patchSha256: outcome.verification?.patchSha256 ?? null,
    },
    state: stateOf(result, outcome, judged.fingerprint !== null),
    result: {
      status: result.status,
      summary: evidence.summary,
      evidence: evidence.kind === "command" ? withoutReceipt(evidence) : evidence,
    },
  };
}

function withoutReceipt(evidence: CommandEvidence): Omit<CommandEvidence, "receipt"> {
  const { receipt: _receipt, ...rest } = evidence;
  return rest;
}

/** The result the engine gets back: with its receipt; a pass on files without a fingerprint is pending. */
function withReceipt(result: CheckResult, receipt: Receipt): CheckResult {
  const { evidence } = result;
  if (evidence.kind !== "command") return result;
  const receipted = { ...evidence, receipt: receiptEvidence(receipt, false) };
  if (result.status !== "pass" || receipt.fingerprint !== null) return { ...result, evidence: receipted };
  return {
    ...result,
    status: "pending",
    evidence: {
      ...receipted,
      summary: `${evidence.summary}; but ${receipt.note ?? "the workspace has no fingerprint"}, so this pass cannot count`,
      pending: "no_fingerprint",
    },
  };
}

/**
 * Rechecks every passing command result against the files as they are now: a receipt whose
 * fingerprint no longer matches is stale, and its check pending.
 */
async function recheck(evaluation: Evaluation, results: readonly CheckResult[]): Promise<CheckResult[]> {
  const receipted = results.some((c) => c.status === "pass" && hasReceipt(c.evidence));
  // A receipt chosen by a presumption is looked at even when it failed: it may be of other files.
  if (!receipted && evaluation.presumption === "unused") return [...results];
  // Already known: the caller evaluates again, from a look.
  if (evaluation.presumption === "failed") return [...results];
  const now = await evaluation.takeFingerprint(evaluation.options.workspace);
  judgePresumption(evaluation, now);
  return results.map((result) => staleIfChanged(result, now));
}

/** The evidence of a check that leaves receipts (a command, a review). */
function hasReceipt(evidence: CheckResult["evidence"]): evidence is CommandEvidence | ReviewEvidence {
  return evidence.kind === "command" || evidence.kind === "review";
}

function staleIfChanged(result: CheckResult, now: FingerprintOutcome): CheckResult {
  const { evidence } = result;
  if (result.status !== "pass" || !hasReceipt(evidence) || !evidence.receipt) return result;
  const receipt = evidence.receipt;
  if (now.ok && now.fingerprint.value === receipt.fingerprint) return result;
  const why = now.ok
    ? "the files changed after this check passed"
    : `the files cannot be fingerprinted now (${now.reason})`;
  return {
    ...result,
    status: "pending",
    evidence: {
      ...evidence,
      summary: `${why}: receipt ${receipt.id} is stale; check again`,
      receipt: { ...receipt, state: "stale" },
      pending: "stale",
    },
  };
}

/**
 * The snapshot a finished run judged. A worktree run reports the fingerprint of the very files
 * it used (taken in its worktree after the patch): the one taken at `begin`, before the run
 * waited for its lock and captured the files, could describe other files than the run saw.
 */
function judgedSnapshot(started: Receipt, outcome: ScriptOutcome): Pick<Receipt, "fingerprint" | "note"> {
  if (started.provenance.isolation !== "worktree")
    return { fingerprint: started.fingerprint, note: started.note };
  const taken = outcome.verification?.fingerprint;
  if (taken?.ok) {
    const { ok: _ok, ...fingerprint } = taken;
    return { fingerprint, note: null };
  }
  return {
    fingerprint: null,
    note: taken
      ? `no fingerprint of the files the run used: ${taken.reason}`
      : "the run reported no fingerprint of the files it used",
  };
}

/** The receipt's state: how the run ended, and whether it can be trusted to be green. */
function stateOf(result: CheckResult, outcome: ScriptOutcome, fingerprinted: boolean): ReceiptState {
  if (!outcome.ok) {
    switch (outcome.kind) {
      case "timeout":
        return "failed";
      case "stopped":
        return "cancelled";
      case "unavailable":
        return "skipped";
    }
  }
  if (result.status === "fail") return "failed";
  if (result.status === "pass" && fingerprinted) return "passed";
  return "skipped";
}
