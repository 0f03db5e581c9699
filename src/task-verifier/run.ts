/**
 * One run of a pinned check, under the workspace lock: the candidate taken, the run's evidence
 * opened, a fresh worktree made, prepared and run in, then removed, and the evidence finished.
 * A run whose worktree could not be removed does not count, and stops verification.
 */
import { relative, sep } from "node:path";
import { withPrivateIndex } from "../probes/private-index.ts";
import type { ScriptOutcome } from "../verifier/probes.ts";
import { captureCandidate } from "./candidate.ts";
import { editableScope } from "./candidate-scope.ts";
import { cleanupIncomplete } from "./pending-removal.ts";
import type { RunContext } from "./run-context.ts";
import { prepareAndRun } from "./run-in-worktree.ts";
import { finishRunRecord, type RunRecord, startRunRecord } from "./run-record.ts";
import { makeRunWorktree, removeRunWorktree } from "./run-worktree.ts";
import { unavailable } from "./unavailable.ts";

export async function runLocked(ctx: RunContext): Promise<ScriptOutcome> {
  const { git, place } = ctx;
  const tree = await ctx.facts.tree();
  if (!tree.ok) return unavailable(tree.message);
  const drifted = ctx.dependenciesChanged();
  if (drifted) return unavailable(drifted);
  const editable = ctx.pinned.check.editable;
  const scope = editable
    ? editableScope(editable, relative(place.repositoryRoot, place.workspace).split(sep).join("/"))
    : undefined;
  const run: RunContext = scope ? { ...ctx, scope } : ctx;
  // The candidate compares the disk with the baseline through an index pi-quests built.
  const indexed = await withPrivateIndex(
    git,
    place.repositoryRoot,
    (own) => captureCandidate(own, place.repositoryRoot, place.baseline, scope),
    { driversPinned: true },
  );
  const captured = indexed.ok ? indexed.value : indexed;
  if (!captured.ok) return unavailable(`could not take the candidate's changes: ${captured.message}`);
  const { candidate } = captured;

  const opened = await startRunRecord(run, candidate);
  if (!opened.ok) return unavailable(opened.message);
  const { record } = opened;
  const { verification } = record;
  /** A worktree that could not be removed is kept for inspection, and verification stops. */
  const keep = async (message: string) => {
    verification.cleanup = { ok: false, message, keptWorktree: record.worktree };
    await ctx.recovery.halt(record.worktree, message);
  };
  const made = await makeRunWorktree(git, place.repositoryRoot, record.worktree, place.baseline, keep);
  if (!made.ok) return unavailable(made.message, verification);

  let outcome: ScriptOutcome;
  const startedAt = new Date().toISOString();
  try {
    outcome = await prepareAndRun(run, record, candidate, tree.tree);
  } finally {
    const removed = await removeRunWorktree(git, place.repositoryRoot, record.worktree, record.runDir);
    if (!removed.ok) await keep(removed.message);
  }
  outcome = withDriftDuring(ctx, outcome, record);
  await finishRunRecord(run, record, outcome, startedAt);
  if (!verification.cleanup.ok) return cleanupIncomplete(outcome, verification);
  return { ...outcome, verification };
}

/** node_modules changed during the run (and perhaps put back): ctime still shows it. */
function withDriftDuring(ctx: RunContext, outcome: ScriptOutcome, record: RunRecord): ScriptOutcome {
  const driftedDuring = outcome.ok ? ctx.dependenciesChanged() : undefined;
  if (!driftedDuring) return outcome;
  return {
    ...unavailable(driftedDuring, record.verification),
    report: outcome.report,
    truncated: outcome.truncated,
  };
}
