/**
 * The `review` probe with the real adapters: a snapshot of the workspace (a copy of the files the
 * fingerprint covers, in the data dir: never the workspace itself, so nothing the reviewer could
 * do reaches the learner's files, and ignored files such as `.env` are never sent to a model),
 * the reviewer's session on it (src/probes/review-session.ts), the redacted transcript kept in
 * `{workspace home}/reviews/<id>/transcript.json`, and the snapshot removed afterwards.
 *
 * Why a copy rather than a git worktree: a review judges the learner's files as they are (no
 * oracle to restore, no baseline to start from), a copy works outside git too, and its
 * fingerprint is taken from the copied bytes, so the receipt names exactly what was read.
 */
import { createHash, randomUUID } from "node:crypto";
import { mkdir, realpath, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { redactDeep } from "../core/redact.ts";
import { workspaceHome } from "../core/workspace-key.ts";
import { NO_PI_SDK, type PiSdkSource } from "../probes/pi-sdk.ts";
import type { ReviewModelSource, ReviewSessionOutcome } from "../probes/review-session.ts";
import { snapshotWorkspace } from "../receipts/fingerprint.ts";
import type { RunFingerprint } from "../verifier/checks/command.ts";
import type { ReviewOutcome, ReviewRecord, ReviewRequest } from "../verifier/probes.ts";

export type { ReviewModelSource };

export type ReviewerOptions = {
  workspace: string;
  dataDir: string;
  agentDir: string;
  models: ReviewModelSource;
  /** Told when a review starts (with its model) and ends: the HUD says "reviewing…" meanwhile. */
  onActivity?(activity: { reviewing: true; checkId: string; model: string } | { reviewing: false }): void;
  /** Pi's SDK the reviewer's session is made with; without it a review is pending (unavailable). */
  pi?: PiSdkSource;
  /** The session, for tests (default: the real one through Pi's SDK). */
  runSession?: typeof import("../probes/review-session.ts").runReviewSession;
};

/** The reviewer behind `probes.review`. */
export function createReviewer(options: ReviewerOptions): (request: ReviewRequest) => Promise<ReviewOutcome> {
  return async (request) => {
    const home = workspaceHome(options.dataDir, await realpath(options.workspace));
    const runDir = join(
      home,
      "reviews",
      `${new Date().toISOString().replace(/[:.]/g, "-")}-${randomUUID().slice(0, 8)}`,
    );
    const root = join(runDir, "files");
    try {
      const pi = await (options.pi ?? NO_PI_SDK)();
      if (!pi.ok) return { ok: false, kind: "unavailable", message: `no reviewer here: ${pi.message}` };
      const snapshot = await snapshotWorkspace(options.workspace, root);
      const taken = snapshot.taken;
      const fingerprint: RunFingerprint = taken.ok
        ? { ok: true, ...taken.fingerprint }
        : { ok: false, reason: taken.reason };
      const runSession = options.runSession ?? (await import("../probes/review-session.ts")).runReviewSession;
      let started = false;
      const outcome = await runSession({
        sdk: pi.sdk,
        root,
        agentDir: options.agentDir,
        criterion: request.criterion,
        files: request.files,
        ...(request.model ? { model: request.model } : {}),
        models: options.models,
        timeoutMs: request.timeoutMs,
        ...(request.signal ? { signal: request.signal } : {}),
        onStart: (model) => {
          started = true;
          options.onActivity?.({ reviewing: true, checkId: request.checkId, model });
        },
      }).finally(() => {
        if (started) options.onActivity?.({ reviewing: false });
      });
      const record = "messages" in outcome ? await keepTranscript(runDir, outcome.messages) : undefined;
      const after = taken.ok ? await snapshot.again() : undefined;
      return reviewOutcome(outcome, fingerprint, record, after?.ok ? after.fingerprint.value : undefined);
    } catch (error) {
      return { ok: false, kind: "error", message: `the review could not run: ${(error as Error).message}` };
    } finally {
      await rm(root, { recursive: true, force: true }).catch(() => {});
    }
  };
}

function reviewOutcome(
  outcome: ReviewSessionOutcome,
  fingerprint: RunFingerprint,
  record: ReviewRecord | undefined,
  after: string | undefined,
): ReviewOutcome {
  const kept = record ? { record } : {};
  if (outcome.ended === "no_model") return { ok: false, kind: "no_model", message: outcome.message };
  if (outcome.ended !== "finished") {
    return { ok: false, kind: outcome.ended, message: outcome.message, model: outcome.model, ...kept };
  }
  // The reviewer has no tool that writes; should anything have changed the snapshot meanwhile, its judgment is of other files.
  if (fingerprint.ok && after !== fingerprint.value) {
    return {
      ok: false,
      kind: "changed",
      message: "the files under review changed during the review; review again",
      model: outcome.model,
      ...kept,
    };
  }
  return {
    ok: true,
    model: outcome.model,
    reads: outcome.ledger.reads,
    submissions: outcome.ledger.submissions,
    fingerprint,
    ...(outcome.ledger.refusedTools.length > 0 ? { refusedTools: outcome.ledger.refusedTools } : {}),
    ...kept,
  };
}

/** The session's messages, every string redacted, as `transcript.json` beside the snapshot. */
async function keepTranscript(runDir: string, messages: readonly unknown[]): Promise<ReviewRecord> {
  await mkdir(runDir, { recursive: true });
  const file = join(runDir, "transcript.json");
  const text = `${JSON.stringify(redactDeep(messages), null, 2)}\n`;
  await writeFile(file, text, { mode: 0o600 });
  return {
    runDir,
    transcript: { file, sha256: createHash("sha256").update(text).digest("hex"), messages: messages.length },
  };
}
