/**
 * A run's worktree: made fresh at the baseline (after removing one a dead run left in its place,
 * if git registered it), and removed after the run once every process of the check is gone.
 */
import { lstat } from "node:fs/promises";
import type { GitRunner } from "../probes/git-runner.ts";
import { createWorktree, registeredWorktrees, removeWorktree, stopMarkedProcesses } from "./worktree.ts";

type Done = { ok: true } | { ok: false; message: string };

/**
 * Makes the run's worktree. `keep` is told of a half-made worktree that could not be removed:
 * it stays for inspection, and verification stops.
 */
export async function makeRunWorktree(
  git: GitRunner,
  repositoryRoot: string,
  worktree: string,
  baseline: string,
  keep: (message: string) => Promise<void>,
): Promise<Done> {
  if (await lstat(worktree).catch(() => undefined)) {
    // Left by a run that died: only a registered worktree may be removed.
    const removed = await removeWorktree(git, repositoryRoot, worktree);
    if (!removed.ok) return { ok: false, message: `a previous worktree is in the way: ${removed.message}` };
  }
  const created = await createWorktree(git, repositoryRoot, worktree, baseline);
  if (created.ok) return created;
  // git may have failed halfway, after registering the worktree: that one is ours to remove.
  const registered = await registeredWorktrees(git, repositoryRoot);
  if (!registered.ok || registered.paths.includes(worktree)) {
    const removed = registered.ok
      ? await removeWorktree(git, repositoryRoot, worktree)
      : { ok: false as const, message: registered.message };
    if (!removed.ok) await keep(removed.message);
  }
  return { ok: false, message: `could not create the worktree: ${created.message}` };
}

/** Removes the run's worktree, once no process marked with the run's folder is left. */
export async function removeRunWorktree(
  git: GitRunner,
  repositoryRoot: string,
  worktree: string,
  runDir: string,
): Promise<Done> {
  // The group is gone; a process that left it (setsid) still carries the run's mark.
  const survivors = await stopMarkedProcesses((run) => run === runDir);
  return survivors.length > 0
    ? { ok: false, message: `processes of the check could not be stopped: ${survivors.join(", ")}` }
    : await removeWorktree(git, repositoryRoot, worktree);
}
