/**
 * The receipts port of the engine (src/verifier/receipts-port.ts), over a receipt store and the
 * workspace fingerprint: every command check run leaves a receipt; a fresh one (same check
 * identity, same snapshot, same baseline, a run that ended by exiting) answers the check again
 * without starting a process; a pass on a workspace that cannot be fingerprinted never counts.
 */
import { randomUUID } from "node:crypto";
import { relative } from "node:path";
import { aggregate } from "../verifier/evaluate.ts";
import type { ScriptOutcome } from "../verifier/probes.ts";
import type { ReceiptHandle, ReceiptPort } from "../verifier/receipts-port.ts";
import type { CheckResult, QuestResult, ReceiptEvidence } from "../verifier/results.ts";
import { type FingerprintOutcome, fingerprint as takeWorkspaceFingerprint } from "./fingerprint.ts";
import { checkIdentity, normalizeRelativePath, redactCommand } from "./identity.ts";
import { RECEIPT_SCHEMA, type Receipt, type ReceiptState, type Termination } from "./schema.ts";
import { newestByIdentity, type ReceiptStore, supersedeKey } from "./store.ts";

export type ReceiptPortOptions = {
  store: ReceiptStore;
  /** The quest workspace, absolute and real. */
  workspace: string;
  /** The baseline the isolated verifier pinned: a receipt of another baseline is not reused. */
  baseline?: string;
  host: Receipt["provenance"]["host"];
  takeFingerprint?: (workspace: string) => Promise<FingerprintOutcome>;
  now?: () => Date;
  tool?: string;
};

export type ReceiptsForEvaluation = ReceiptPort & {
  /**
   * Rechecks every passing command result against the files as they are now: a receipt whose
   * fingerprint no longer matches is stale, and its check pending. Call it before publishing a
   * quest as complete.
   */
  recheck(result: QuestResult): Promise<QuestResult>;
};

export function createReceiptPort(options: ReceiptPortOptions): ReceiptsForEvaluation {
  /** A check's folder as receipts name it: workspace-relative, "." for the root. */
  const checkCwd = (cwd: string) => normalizeRelativePath(relative(options.workspace, cwd) || ".");
  const takeFingerprint = options.takeFingerprint ?? takeWorkspaceFingerprint;
  const now = options.now ?? (() => new Date());
  // One snapshot serves the whole evaluation, until a check that ran in place may have changed it.
  let snapshot: Promise<FingerprintOutcome> | undefined;
  const current = () => {
    snapshot ??= takeFingerprint(options.workspace);
    return snapshot;
  };
  let stored: Promise<Receipt[]> | undefined;
  const receipts = () => {
    stored ??= options.store.list().then((listed) => listed.receipts);
    return stored;
  };
  const open = new Map<string, Receipt>();

  const write = async (receipt: Receipt) => {
    await options.store.write(receipt);
    const list = await receipts();
    const at = list.findIndex((existing) => existing.id === receipt.id);
    if (at >= 0) list[at] = receipt;
    else list.push(receipt);
  };

  const evidenceOf = (receipt: Receipt, reused: boolean): ReceiptEvidence => ({
    id: receipt.id,
    state: receipt.state,
    reused,
    ...(receipt.fingerprint ? { fingerprint: receipt.fingerprint.value } : {}),
    ...(receipt.note ? { note: receipt.note } : {}),
  });

  return {
    async reuse(check, questId, cwd) {
      const snap = await current();
      if (!snap.ok) return undefined;
      const identity = checkIdentity(check, checkCwd(cwd));
      const newest = newestByIdentity(await receipts()).get(supersedeKey(identity, checkCwd(cwd)));
      const fresh =
        newest !== undefined &&
        newest.quest === questId &&
        (newest.state === "passed" || newest.state === "failed") &&
        newest.termination === "exit" &&
        newest.fingerprint?.value === snap.fingerprint.value &&
        (check.isolation === "none" || newest.provenance.baseline === (options.baseline ?? null)) &&
        newest.result !== null;
      if (!fresh || !newest.result) return undefined;
      const evidence = newest.result.evidence as CheckResult["evidence"];
      return {
        id: check.id,
        type: "command",
        status: newest.result.status,
        ...(check.describe !== undefined ? { describe: check.describe } : {}),
        evidence: {
          ...evidence,
          // What the run found; `receipt.reused` says it was not run again (the report shows it).
          summary: newest.result.summary,
          ...(evidence.kind === "command" ? { receipt: evidenceOf(newest, true) } : {}),
        } as CheckResult["evidence"],
      };
    },

    async begin(check, questId, cwd): Promise<ReceiptHandle> {
      const snap = await current();
      const identity = checkIdentity(check, checkCwd(cwd));
      const receipt: Receipt = {
        schema: RECEIPT_SCHEMA,
        id: randomUUID(),
        quest: questId,
        check: check.id,
        attempt: await options.store.nextAttempt(identity),
        checkIdentity: identity,
        command: redactCommand(check.run),
        cwd: checkCwd(cwd),
        workspace: options.workspace,
        startedAt: now().toISOString(),
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
      await write(receipt);
      open.set(receipt.id, receipt);
      return { id: receipt.id };
    },

    async finish(handle, result, outcome) {
      const started = open.get(handle.id);
      if (!started) return result;
      open.delete(handle.id);
      if (started.provenance.isolation === "none") snapshot = undefined;
      const termination: Termination = outcome.ok
        ? outcome.exitCode === null
          ? "signal"
          : "exit"
        : outcome.kind;
      const judged = judgedSnapshot(started, outcome);
      const state = stateOf(result, outcome, judged.fingerprint !== null);
      const { receipt: _ignored, ...evidence } = result.evidence as CheckResult["evidence"] & {
        receipt?: unknown;
      };
      const receipt: Receipt = {
        ...started,
        ...judged,
        endedAt: now().toISOString(),
        exitCode: outcome.ok ? outcome.exitCode : null,
        termination,
        provenance: {
          ...started.provenance,
          runDir: outcome.verification?.runDir ?? null,
          head: outcome.verification?.head ?? null,
          patchSha256: outcome.verification?.patchSha256 ?? null,
        },
        state,
        result: { status: result.status, summary: result.evidence.summary, evidence },
      };
      await write(receipt);
      const withReceipt = {
        ...result,
        evidence: { ...result.evidence, receipt: evidenceOf(receipt, false) },
      };
      if (result.status === "pass" && receipt.fingerprint === null) {
        return {
          ...withReceipt,
          status: "pending",
          evidence: {
            ...withReceipt.evidence,
            summary: `${result.evidence.summary}; but ${receipt.note ?? "the workspace has no fingerprint"}, so this pass cannot count`,
            pending: "no_fingerprint",
          } as CheckResult["evidence"],
        };
      }
      return withReceipt as CheckResult;
    },

    async recheck(questResult) {
      const passing = questResult.checks.filter((c) => c.status === "pass" && c.evidence.kind === "command");
      if (passing.length === 0) return questResult;
      const now = await takeFingerprint(options.workspace);
      const checks = questResult.checks.map((c): CheckResult => {
        const receipt = c.evidence.kind === "command" ? c.evidence.receipt : undefined;
        if (c.status !== "pass" || !receipt) return c;
        if (now.ok && now.fingerprint.value === receipt.fingerprint) return c;
        const why = now.ok
          ? "the files changed after this check passed"
          : `the files cannot be fingerprinted now (${now.reason})`;
        return {
          ...c,
          status: "pending",
          evidence: {
            ...c.evidence,
            summary: `${why}: receipt ${receipt.id} is stale; check again`,
            receipt: { ...receipt, state: "stale" },
            pending: "stale",
          } as CheckResult["evidence"],
        };
      });
      return { ...questResult, ...aggregate(checks), checks };
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
