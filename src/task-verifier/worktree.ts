/**
 * The verifier's detached worktrees: created at the pinned baseline under the data dir, removed
 * only when git lists them as its own worktrees, so cleanup can never delete anything else.
 */
import { lstat, mkdir, realpath, unlink } from "node:fs/promises";
import { join, relative, sep } from "node:path";
import type { GitRunner } from "../probes/git-runner.ts";
import { killMarked, processesWithMarker } from "../probes/os/env-marker.ts";

/**
 * The variable every process of a check inherits: the run's folder in the data dir. A process
 * that left the check's process group (`setsid`), or whose group outlived a host that crashed,
 * still carries it, so the verifier can find it and stop it.
 */
export const RUN_VARIABLE = "PI_QUESTS_VERIFICATION_RUN";

/** Live processes (Linux /proc) that inherited RUN_VARIABLE with a value `matches` accepts. */
export function markedProcesses(matches: (run: string) => boolean): number[] {
  return processesWithMarker(RUN_VARIABLE, matches);
}

/** SIGKILLs every marked process until none is left; returns those still alive after `timeoutMs`. */
export function stopMarkedProcesses(matches: (run: string) => boolean, timeoutMs = 3000): Promise<number[]> {
  return killMarked(RUN_VARIABLE, matches, timeoutMs);
}

/** Absolute paths of the worktrees git has registered for the repository at `workspace`. */
export async function registeredWorktrees(
  git: GitRunner,
  workspace: string,
): Promise<{ ok: true; paths: string[] } | { ok: false; message: string }> {
  const listed = await git(["worktree", "list", "--porcelain", "-z"], { cwd: workspace });
  if (!listed.ok) return listed;
  const paths = listed.stdout
    .toString("utf8")
    .split("\0")
    .filter((field) => field.startsWith("worktree "))
    .map((field) => field.slice("worktree ".length));
  return { ok: true, paths };
}

/** Makes `dir` (and its parents below `root`) as real folders; refuses any symbolic link on the way. */
export async function ensureRealFolder(root: string, dir: string): Promise<string | undefined> {
  const fromRoot = relative(root, dir);
  if (fromRoot.startsWith("..")) return `${dir} is outside ${root}`;
  let current = root;
  for (const part of fromRoot.split(sep).filter(Boolean)) {
    current = join(current, part);
    try {
      const info = await lstat(current);
      if (info.isSymbolicLink())
        return `${current} is a symbolic link; the verifier does not follow links in its data dir`;
      if (!info.isDirectory()) return `${current} is not a folder`;
    } catch {
      await mkdir(current);
    }
  }
  return undefined;
}

/**
 * Writing files is what a checkout costs, and on a virtual disk each file waits on its own
 * round trip: git's parallel checkout overlaps them (10,000 files here: 3 to 7 s with one
 * worker, under 2 s with eight; docs/benchmarks.md). Below a thousand files the workers cost more
 * than they save.
 */
const CHECKOUT_WORKERS = 8;

export async function createWorktree(
  git: GitRunner,
  workspace: string,
  target: string,
  baseline: string,
): Promise<{ ok: true } | { ok: false; message: string }> {
  const added = await git(
    [
      "-c",
      `checkout.workers=${CHECKOUT_WORKERS}`,
      "-c",
      "checkout.thresholdForParallelism=1000",
      "worktree",
      "add",
      "--detach",
      "--force",
      target,
      baseline,
    ],
    { cwd: workspace },
  );
  if (!added.ok) return added;
  // git resolved the path itself; make sure it made what we asked for, where we asked.
  const made = await realpath(target).catch(() => undefined);
  if (made !== target) return { ok: false, message: `the worktree did not appear at ${target}` };
  return { ok: true };
}

/** Removes a worktree, but only one git has registered; anything else stays where it is. */
export async function removeWorktree(
  git: GitRunner,
  workspace: string,
  target: string,
): Promise<{ ok: true } | { ok: false; message: string }> {
  const registered = await registeredWorktrees(git, workspace);
  if (!registered.ok) return registered;
  if (!registered.paths.includes(target)) {
    return {
      ok: false,
      message: `${target} is not a registered worktree of ${workspace}; it was left in place`,
    };
  }
  // An agent can swap the folder for a link (to the learner's files): git would follow it.
  // Removing the link touches nothing it points to; git forgets the worktree at the next prune.
  const info = await lstat(target).catch(() => undefined);
  if (info?.isSymbolicLink()) {
    await unlink(target);
    return { ok: true };
  }
  const removed = await git(["worktree", "remove", "--force", "--force", target], { cwd: workspace });
  if (!removed.ok) return removed;
  const left = await lstat(target).then(
    () => true,
    () => false,
  );
  return left
    ? { ok: false, message: `git removed ${target} from its list but the folder is still there` }
    : { ok: true };
}
