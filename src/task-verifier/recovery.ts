/**
 * Recovery of interrupted runs, and the stop a failed cleanup puts on verification. A worktree
 * or a process a run left behind (a crash, a kill, a removal that failed) is cleaned up under
 * the workspace lock, so never a live run's; while something cannot be cleaned up, no check runs.
 */
import { join, sep } from "node:path";
import type { GitRunner } from "../probes/git-runner.ts";
import { acquireWorkspaceLock, DEFAULT_STALE_MS, DEFAULT_WAIT_MS, type LockOptions } from "./lock.ts";
import { recordPendingRemoval, settlePendingRemovals } from "./pending-removal.ts";
import type { RecoveryReport } from "./types.ts";
import { registeredWorktrees, removeWorktree, stopMarkedProcesses } from "./worktree.ts";

export type RecoveryPlace = {
  git: GitRunner;
  repositoryRoot: string;
  /** The workspace's folder in the data dir. */
  home: string;
  lockPath: string;
  lock?: LockOptions;
};

export type Recovery = {
  /** Recovery proper; the caller holds the workspace lock, so no run of any process is live. */
  recoverLocked(): Promise<RecoveryReport>;
  /** Waits for the workspace lock, then recovers. */
  recover(): Promise<RecoveryReport>;
  /** Whether a run must recover first: recovery was deferred, or a cleanup failed. */
  due(): boolean;
  /** Why verification is stopped now, if it is. */
  stopReason(): string | undefined;
  /** A worktree that could not be removed: kept, journaled, and verification stops. */
  halt(worktree: string, message: string): Promise<void>;
  /** Construction's recovery, or, when another process holds the lock, the first run's. */
  atStart(): Promise<void>;
};

export function createRecovery(place: RecoveryPlace): Recovery {
  const { git, repositoryRoot, home } = place;
  const worktrees = join(home, "worktrees");
  const runsFolder = `${join(home, "runs")}${sep}`;
  let halted: { worktree: string; message: string } | undefined;
  /** Set when construction could not recover (another process held the lock): the first run does. */
  let deferred = false;

  const removeLeftWorktrees = async (report: RecoveryReport): Promise<void> => {
    const registered = await registeredWorktrees(git, repositoryRoot);
    if (!registered.ok) {
      report.failed.push({ worktree: worktrees, message: registered.message });
      return;
    }
    for (const worktree of registered.paths.filter((path) => path.startsWith(`${worktrees}${sep}`))) {
      const removed = await removeWorktree(git, repositoryRoot, worktree);
      if (removed.ok) report.removed.push(worktree);
      else report.failed.push({ worktree, message: removed.message });
    }
    await git(["worktree", "prune"], { cwd: repositoryRoot });
    // Folders whose removal failed earlier, which git may have forgotten since.
    const still = await registeredWorktrees(git, repositoryRoot);
    const settled = await settlePendingRemovals(worktrees, (path) =>
      still.ok ? still.paths.includes(path) : true,
    );
    report.removed.push(...settled.removed);
    report.failed.push(...settled.failed);
  };

  const recoverLocked = async (): Promise<RecoveryReport> => {
    const report: RecoveryReport = { removed: [], failed: [] };
    deferred = false;
    // What a crashed run left running: its check's processes still carry their run folder.
    const survivors = await stopMarkedProcesses((run) => run.startsWith(runsFolder));
    if (survivors.length > 0)
      report.failed.push({
        worktree: worktrees,
        message: `processes left by an earlier verification could not be stopped: ${survivors.join(", ")}`,
      });
    await removeLeftWorktrees(report);
    // A leftover that cannot be cleaned up stops verification, as a failed cleanup does.
    const failed = report.failed[0];
    halted = failed ? { worktree: failed.worktree, message: failed.message } : undefined;
    return report;
  };

  const recover = async (): Promise<RecoveryReport> => {
    const lock = await acquireWorkspaceLock(place.lockPath, place.lock);
    if (!lock.ok) return { removed: [], failed: [{ worktree: worktrees, message: lock.message }] };
    try {
      return await recoverLocked();
    } finally {
      await lock.release();
    }
  };

  return {
    recoverLocked,
    recover,
    due: () => deferred || halted !== undefined,
    stopReason: () =>
      halted
        ? `verification stopped: cleaning up ${halted.worktree} failed (${halted.message}); it is kept for inspection`
        : undefined,
    halt: async (worktree, message) => {
      halted = { worktree, message };
      await recordPendingRemoval(worktrees, worktree);
    },
    atStart: async () => {
      // A restart cleans up after a crash. The crashed holder's lock goes stale within staleMs, so
      // construction waits that long at most; a live holder (another session verifying right now)
      // keeps it fresh, and then the first run here recovers instead, under the lock.
      const staleMs = place.lock?.staleMs ?? DEFAULT_STALE_MS;
      const waitMs = Math.min(place.lock?.waitMs ?? DEFAULT_WAIT_MS, staleMs + 1000);
      const lock = await acquireWorkspaceLock(place.lockPath, { ...place.lock, waitMs });
      if (!lock.ok) {
        deferred = true;
        return;
      }
      try {
        await recoverLocked();
      } finally {
        await lock.release();
      }
    },
  };
}
