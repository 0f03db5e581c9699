/**
 * Worktrees whose removal failed: a small journal beside their folder ({home}/pending-removal.json,
 * written atomically; not inside worktrees/, which holds only worktrees) so that the next run and every recovery retry them, even after git has
 * forgotten them (`git worktree prune`, a deleted `.git` file). Only a real folder directly
 * inside the verifier's own worktrees folder is ever removed this way, and no link is followed:
 * an entry naming a link, a file, or anything outside is dropped and left where it is.
 */
import { lstat, readFile, rm } from "node:fs/promises";
import { basename, dirname, join } from "node:path";
import type { IsolationEvidence } from "../verifier/checks/command.ts";
import type { ScriptOutcome } from "../verifier/probes.ts";
import { writeJson } from "./evidence.ts";

export const JOURNAL_NAME = "pending-removal.json";

type Journal = { version: 1; folders: string[] };

/** Folder names (not paths) in the journal; a missing or unreadable journal lists none. */
export async function pendingRemovals(worktreesDir: string): Promise<string[]> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(await readFile(journalOf(worktreesDir), "utf8"));
  } catch {
    return [];
  }
  const folders = (parsed as Partial<Journal> | null)?.folders;
  return Array.isArray(folders) ? folders.filter((name): name is string => isPlainName(name)) : [];
}

/** Adds the worktree at `path` (directly inside `worktreesDir`) to the journal. */
export async function recordPendingRemoval(worktreesDir: string, path: string): Promise<void> {
  const name = basename(path);
  if (!isPlainName(name) || join(worktreesDir, name) !== path) return;
  const folders = await pendingRemovals(worktreesDir);
  if (!folders.includes(name)) await writeJournal(worktreesDir, [...folders, name]);
}

/** Drops `names` from the journal (removed, or found not to be ours to remove). */
export async function forgetPendingRemovals(worktreesDir: string, names: readonly string[]): Promise<void> {
  if (names.length === 0) return;
  const folders = await pendingRemovals(worktreesDir);
  const left = folders.filter((name) => !names.includes(name));
  if (left.length !== folders.length) await writeJournal(worktreesDir, left);
}

export type PendingRemovalOutcome =
  | { kind: "removed"; path: string }
  | { kind: "gone"; path: string }
  | { kind: "dropped"; path: string; reason: string }
  | { kind: "failed"; path: string; message: string };

/**
 * Removes one journaled folder that git no longer lists. Refuses, and leaves in place, anything
 * that is not a real folder directly inside `worktreesDir` (which must itself be a real folder).
 */
export async function removeUnlistedWorktree(
  worktreesDir: string,
  name: string,
): Promise<PendingRemovalOutcome> {
  const path = join(worktreesDir, name);
  if (!isPlainName(name)) return { kind: "dropped", path, reason: "not a folder name" };
  const area = await lstat(worktreesDir).catch(() => undefined);
  if (!area?.isDirectory() || area.isSymbolicLink())
    return { kind: "failed", path, message: `${worktreesDir} is not a real folder; nothing was removed` };
  const info = await lstat(path).catch(() => undefined);
  if (!info) return { kind: "gone", path };
  if (info.isSymbolicLink())
    return { kind: "dropped", path, reason: "it is a symbolic link, which the verifier never follows" };
  if (!info.isDirectory()) return { kind: "dropped", path, reason: "it is not a folder" };
  try {
    // fs.rm walks with lstat: a link met inside is unlinked, never followed.
    await rm(path, { recursive: true, force: true, maxRetries: 2 });
  } catch (error) {
    return { kind: "failed", path, message: `could not remove ${path}: ${(error as Error).message}` };
  }
  const left = await lstat(path).then(
    () => true,
    () => false,
  );
  return left
    ? { kind: "failed", path, message: `${path} is still there after removing it` }
    : { kind: "removed", path };
}

const journalOf = (worktreesDir: string) => join(dirname(worktreesDir), JOURNAL_NAME);

function isPlainName(name: unknown): name is string {
  return typeof name === "string" && name !== "" && name !== "." && name !== ".." && !/[/\\\0]/.test(name);
}

function writeJournal(worktreesDir: string, folders: string[]): Promise<void> {
  const journal: Journal = { version: 1, folders };
  return writeJson(journalOf(worktreesDir), journal);
}

/**
 * Retries every journaled folder git no longer lists (`listed` says which it still does: those
 * are git's to remove, and a failure there is reported by the caller). Returns what it removed
 * and what it could not; removed, gone and refused entries leave the journal.
 */
export async function settlePendingRemovals(
  worktreesDir: string,
  listed: (path: string) => boolean,
): Promise<{ removed: string[]; failed: Array<{ worktree: string; message: string }> }> {
  const removed: string[] = [];
  const failed: Array<{ worktree: string; message: string }> = [];
  const settled: string[] = [];
  for (const name of await pendingRemovals(worktreesDir)) {
    if (listed(join(worktreesDir, name))) continue;
    const outcome = await removeUnlistedWorktree(worktreesDir, name);
    if (outcome.kind === "failed") failed.push({ worktree: outcome.path, message: outcome.message });
    else settled.push(name);
    if (outcome.kind === "removed") removed.push(outcome.path);
  }
  await forgetPendingRemovals(worktreesDir, settled);
  return { removed, failed };
}

/**
 * A run whose worktree could not be removed does not count, whatever the script did: it is
 * unavailable, saying that cleanup failed and where the folder is (the run's own record keeps
 * the script's exit code and output).
 */
export function cleanupIncomplete(outcome: ScriptOutcome, verification: IsolationEvidence): ScriptOutcome {
  const cleanup = verification.cleanup;
  if (cleanup.ok) return { ...outcome, verification };
  const ran = outcome.ok
    ? `the check ran (${outcome.exitCode === null ? `signal ${outcome.signal ?? "?"}` : `exit code ${outcome.exitCode}`})`
    : `the check did not finish (${outcome.kind})`;
  return {
    ok: false,
    kind: "unavailable",
    message: `cleanup failed, so the result is not used: ${ran}, but its worktree could not be removed (${cleanup.message}); it is kept at ${cleanup.keptWorktree} and is removed by the next run or recovery`,
    report: outcome.report,
    truncated: outcome.truncated,
    verification,
    ...(outcome.containment ? { containment: outcome.containment } : {}),
    ...(outcome.containmentNote ? { containmentNote: outcome.containmentNote } : {}),
  };
}
