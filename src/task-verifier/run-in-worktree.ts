/**
 * Inside the run's worktree: the checkout confirmed as git wrote it, the candidate's patch
 * applied, the fingerprint taken, the protected files put back from the baseline, and then the
 * check run, with the files it was given watched while it runs.
 */
import { realpathSync } from "node:fs";
import { join } from "node:path";
import { isInside } from "../core/paths.ts";
import { inRepositoryPaths } from "../verifier/learner-paths.ts";
import type { ScriptOutcome } from "../verifier/probes.ts";
import type { BaselineTree } from "./baseline-facts.ts";
import type { Candidate } from "./candidate.ts";
import { binFolderState } from "./declared-bins.ts";
import {
  changedGivenFiles,
  checkedOutIntact,
  compareGivenFiles,
  type GivenFiles,
  recordGivenFiles,
} from "./given-files.ts";
import { applyCandidate, type LinkedBins, type Preparation, protect } from "./prepare.ts";
import { planProtection } from "./protected-paths.ts";
import { type RunContext, runName } from "./run-context.ts";
import { fingerprintRun } from "./run-fingerprint.ts";
import { byPath, type RunRecord } from "./run-record.ts";
import { toolEnvironment } from "./tools.ts";
import { listSome, unavailable } from "./unavailable.ts";
import { RUN_VARIABLE } from "./worktree.ts";

type Step<T> = { ok: true; value: T } | { ok: false; outcome: ScriptOutcome };

const refused = (message: string, record: RunRecord): { ok: false; outcome: ScriptOutcome } => ({
  ok: false,
  outcome: unavailable(message, record.verification),
});

export async function prepareAndRun(
  ctx: RunContext,
  record: RunRecord,
  candidate: Candidate,
  tree: BaselineTree,
): Promise<ScriptOutcome> {
  const prepared = await prepareWorktree(ctx, record, candidate, tree);
  return prepared.ok ? runWatched(ctx, record, prepared.value) : prepared.outcome;
}

/** What the run watches while the check runs: the files it was given, and the `.bin` folders linked whole. */
type Watched = { given: GivenFiles; linkedBins: LinkedBins[] };

/** The worktree as the check gets it; the record of its files, to compare with after the run. */
async function prepareWorktree(
  ctx: RunContext,
  record: RunRecord,
  candidate: Candidate,
  tree: BaselineTree,
): Promise<Step<Watched>> {
  const { git, place } = ctx;
  const { worktree, verification } = record;
  // What git checked out is what git recorded in the worktree's index as it wrote each file:
  // a file written over since (a background process that found the worktree) differs from it.
  // Recorded first, compared with git's record next: a write on either side of the record is
  // caught by one of the two. From here on, only the paths the verifier writes itself (the
  // patch, the restores) may differ when the check starts.
  const checkedOut = recordGivenFiles(worktree);
  const intact = await checkedOutIntact(git, worktree, place.baseline);
  if (!intact.ok) return refused(intact.message, record);
  const applied = await applyCandidate(git, worktree, record.patchFile, candidate.sha256);
  if (!applied.ok)
    return refused(`the candidate's changes do not apply to the baseline: ${applied.message}`, record);
  // Before anything is restored: exactly the files the candidate gave the run.
  const listing = await ctx.facts.listing();
  verification.fingerprint = listing.ok
    ? await fingerprintRun(worktree, listing.listing, candidate.paths, {
        repository: place.repositoryRoot,
        paths: candidate.leftOut ?? [],
      })
    : { ok: false, reason: `cannot list the baseline's files: ${listing.message}` };
  const restored = await restoreProtected(ctx, record, tree, candidate.paths);
  if (!restored.ok) return restored;
  const written = new Set([
    ...candidate.paths,
    ...restored.value.restored,
    ...restored.value.manifestsMerged,
    ...restored.value.removedConfigs,
  ]);
  // One record serves both comparisons: what changed since the checkout, and (after the run)
  // what changed while the check ran; no write can fall between two records.
  const given = recordGivenFiles(worktree);
  const tampered = compareGivenFiles(checkedOut, given).filter((path) => !written.has(path));
  if (tampered.length > 0)
    return refused(
      `files of the verifier's worktree changed after git checked them out and before the check ran (${listSome(tampered)}), and pi-quests did not change them; the check did not run on them`,
      record,
    );
  return { ok: true, value: { given, linkedBins: restored.value.linkedBins } };
}

/** Every test, oracle and script the verdict rests on, put back from the baseline. */
async function restoreProtected(
  ctx: RunContext,
  record: RunRecord,
  tree: BaselineTree,
  candidatePaths: readonly string[],
): Promise<Step<Preparation>> {
  const { git, place, pinned } = ctx;
  const texts = await ctx.facts.texts(git);
  if (!texts.ok)
    return refused(
      `could not restore the protected files: reading the baseline's test configuration and build files failed (${texts.message})`,
      record,
    );
  const plan = planProtection({
    baselineFiles: tree.files,
    baselineManifest: tree.manifest,
    run: pinned.check.run,
    cwd: ctx.cwd,
    oraclePaths: pinned.check.oracle_paths,
    baselineContent: (path) => texts.texts.get(path),
    ...(ctx.scope ? { editable: ctx.scope } : {}),
  });
  if (plan.missingOracles.length > 0)
    return refused(
      `oracle_paths must be files tracked at the baseline: ${plan.missingOracles.join(", ")}`,
      record,
    );
  const prepared = await protect(
    git,
    record.worktree,
    place.repositoryRoot,
    place.baseline,
    plan,
    tree.manifestBytes,
    candidatePaths,
  );
  if (!prepared.ok) return refused(`could not restore the protected files: ${prepared.message}`, record);
  record.verification.restored = prepared.value.restored;
  record.verification.manifestsMerged = prepared.value.manifestsMerged;
  record.verification.removedConfigs = prepared.value.removedConfigs;
  // In words for the learner (the command check's evidence): what of theirs the run did not see.
  record.verification.notApplied = [
    ...(record.verification.notApplied ?? []),
    ...prepared.value.overridden.map(({ path, rule, ...by }) => ({ path, reason: rule, ...by })),
    ...prepared.value.manifestsMerged.map((path) => ({ path, reason: "package_scripts" as const })),
    ...prepared.value.undeclaredBins.map((path) => ({ path, reason: "undeclared_bin" as const })),
  ].sort(byPath);
  return { ok: true, value: prepared.value };
}

/**
 * Runs the check; a change to the files it was given, while it ran, makes its result unused.
 * What the check printed names the worktree's files; the outcome names them as the learner's
 * (the same path under the repository), and only the run's output.log keeps the bytes as printed.
 */
async function runWatched(
  ctx: RunContext,
  record: RunRecord,
  { given, linkedBins }: Watched,
): Promise<ScriptOutcome> {
  const cwd = join(record.worktree, ctx.cwd);
  if (leavesWorktree(cwd, record.worktree))
    return unavailable(
      `the check's folder ${ctx.cwd} leads out of the worktree through a link (the candidate's change); nothing ran`,
      record.verification,
    );
  const printed = await ctx.runScript({
    script: runName(ctx),
    content: ctx.pinned.check.run,
    cwd,
    timeoutMs: ctx.pinned.check.timeout_ms,
    ...(ctx.signal ? { signal: ctx.signal } : {}),
    env: {
      ...toolEnvironment(ctx.tools, record.searchPath.path),
      [RUN_VARIABLE]: record.runDir,
    },
  });
  record.printed = printed.report;
  const ran = inRepositoryPaths(printed, {
    worktrees: [record.worktree, realPathOr(record.worktree)],
    repository: ctx.place.repositoryRoot,
  });
  const touched = changedGivenFiles(record.worktree, given);
  // An entry planted in a `.bin` linked whole after it was checked (a process that adds one and
  // takes it away again) moved the folder's times: the check may have run it.
  const binsMoved = linkedBins.filter(({ source, state }) => binFolderState(source) !== state);
  if (binsMoved.length > 0)
    return {
      ...unavailable(
        `${listSome(binsMoved.map(({ path }) => path))} changed while the check ran (an entry added, removed or replaced, by the check itself or by another process); the check may have run a tool no package declares, so its result is not used`,
        record.verification,
      ),
      report: ran.report,
      truncated: ran.truncated,
    };
  if (touched.length === 0) return ran;
  return {
    ...unavailable(
      `files pi-quests gave the check changed while it ran (${listSome(touched)}), by the check itself or by another process; the run may have judged other files than the candidate's, so its result is not used`,
      record.verification,
    ),
    report: ran.report,
    truncated: ran.truncated,
  };
}

function realPathOr(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return path;
  }
}

/**
 * Whether the check's folder, as the candidate left it, is a link (or lies below one) that leads
 * out of the worktree: the check would run among files nobody put back. A missing folder is the
 * script runner's to report.
 */
function leavesWorktree(cwd: string, worktree: string): boolean {
  try {
    return !isInside(realpathSync(cwd), realpathSync(worktree));
  } catch {
    return false;
  }
}
