/**
 * A run's evidence in the data dir: the candidate's patch, the provenance (what the run was made
 * of, written before the run and again after), the check's output and the run's own record.
 */
import { createHash, randomBytes } from "node:crypto";
import { mkdir } from "node:fs/promises";
import { join } from "node:path";
import type { IsolationEvidence } from "../verifier/checks/command.ts";
import type { ScriptOutcome } from "../verifier/probes.ts";
import type { Candidate } from "./candidate.ts";
import { type CheckPath, checkPath } from "./check-path.ts";
import { writeAtomically, writeJson } from "./evidence.ts";
import { type RunContext, runName } from "./run-context.ts";

export type RunRecord = {
  runDir: string;
  /** Where the run's worktree goes: the same check on the same candidate gets the same place. */
  worktree: string;
  patchFile: string;
  /** Filled in as the run goes; the outcome carries it. */
  verification: IsolationEvidence;
  /** The PATH the check runs with, and what was dropped from it. */
  searchPath: CheckPath;
  untracked: string[];
  /** What the check printed, as it printed it (the outcome names the learner's paths instead). */
  printed?: string;
};

/** Sorts by path, the way git lists paths (by code unit). */
export const byPath = (a: { path: string }, b: { path: string }) =>
  a.path < b.path ? -1 : a.path > b.path ? 1 : 0;

const hex = (...parts: string[]) => createHash("sha256").update(JSON.stringify(parts)).digest("hex");

/** The run's folder with the candidate's patch and the first provenance; a message when it cannot be written. */
export async function startRunRecord(
  ctx: RunContext,
  candidate: Candidate,
): Promise<{ ok: true; record: RunRecord } | { ok: false; message: string }> {
  const { workspace, repositoryRoot, baseline, dataDir, home } = ctx.place;
  const runId = `${new Date().toISOString().replace(/[:.]/g, "-")}-${randomBytes(4).toString("hex")}`;
  const runDir = join(home, "runs", runId);
  const worktree = join(
    home,
    "worktrees",
    hex(workspace, ctx.pinned.questId, ctx.pinned.check.id, baseline, candidate.sha256).slice(0, 32),
  );
  const patchFile = join(runDir, "candidate.patch");
  try {
    await mkdir(runDir);
    await writeAtomically(patchFile, candidate.patch);
  } catch (error) {
    return { ok: false, message: `cannot write evidence to ${runDir}: ${(error as Error).message}` };
  }
  const verification: IsolationEvidence = {
    runDir,
    worktree,
    repository: repositoryRoot,
    baseline,
    head: candidate.head,
    patchSha256: candidate.sha256,
    patchBytes: candidate.patch.length,
    restored: [],
    manifestsMerged: [],
    removedConfigs: [],
    ...(candidate.leftOut ? { leftOut: candidate.leftOut } : {}),
    // Outside editable, in a generated folder; what restoring puts back is added when it is done.
    notApplied: [
      ...(candidate.leftOut ?? []).map((path) => ({ path, reason: "outside_editable" as const })),
      ...candidate.generatedLeftOut.map((path) => ({ path, reason: "generated" as const })),
    ].sort(byPath),
    cleanup: { ok: true },
    generatedLeftOut: candidate.generatedLeftOut,
  };
  const searchPath = await checkPath(ctx.env?.PATH ?? process.env.PATH ?? "", {
    workspace,
    repositoryRoot,
    dataDir,
    env: ctx.env ?? process.env,
  });
  const record = { runDir, worktree, patchFile, verification, searchPath, untracked: candidate.untracked };
  await writeProvenance(record);
  return { ok: true, record };
}

function writeProvenance(record: RunRecord): Promise<void> {
  return writeJson(join(record.runDir, "provenance.json"), {
    ...record.verification,
    untracked: record.untracked,
  });
}

/** The check's output, the run's record (how it ran and ended, and its cleanup), the final provenance. */
export async function finishRunRecord(
  ctx: RunContext,
  record: RunRecord,
  outcome: ScriptOutcome,
  startedAt: string,
): Promise<void> {
  // The bytes as the check printed them, worktree paths and all; when no check ran, the outcome's.
  await writeAtomically(join(record.runDir, "output.log"), record.printed ?? outcome.report);
  await writeJson(join(record.runDir, "run.json"), {
    executable: "bash",
    arguments: ["-c", ctx.pinned.check.run, runName(ctx)],
    directory: join(record.worktree, ctx.cwd),
    node: ctx.tools.node,
    npm: ctx.tools.npmCli ?? null,
    path: { kept: record.searchPath.kept, dropped: record.searchPath.dropped },
    startedAt,
    endedAt: new Date().toISOString(),
    exitCode: outcome.ok ? outcome.exitCode : null,
    signal: outcome.ok ? (outcome.signal ?? null) : null,
    termination: outcome.ok ? (outcome.exitCode === null ? "signal" : "exit") : outcome.kind,
    ...(outcome.ok ? {} : { message: outcome.message }),
    outputFile: "output.log",
    outputTruncated: outcome.truncated,
    containment: outcome.containment ?? null,
    ...(outcome.containmentNote ? { containmentNote: outcome.containmentNote } : {}),
    cleanup: record.verification.cleanup,
  });
  await writeProvenance(record);
}
