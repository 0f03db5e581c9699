/**
 * The files a check is given, watched while it runs. The worktree lives in the data dir, which
 * the learner's user (and so Pi's agent) can write: a process left in the background could put
 * the fix into the worktree's copy of the code, or `exit 0` into its test, after pi-quests
 * prepared it and before the check reads it. Every file and link the worktree holds when the
 * check starts is recorded by lstat (inode, size, mode, mtime and ctime, in nanoseconds); after the
 * check, any of them changed or gone means the run may have judged other files than the ones
 * pi-quests gave it, and its result is not used. A user can set mtime back but not ctime, so a
 * write that puts the bytes back still shows. Files the check adds (caches, build output) are
 * its own and not compared. node_modules (links into the learner's, which the dependency pin
 * covers) and the worktree's `.git` file are left out. Before the first record, the checkout
 * itself is compared with what git recorded as it wrote each file (`checkedOutIntact`).
 */
import { type BigIntStats, lstatSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { type GitRunner, splitNul } from "../probes/git-runner.ts";

export type GivenFiles = ReadonlyMap<string, string>;

const LEFT_OUT = new Set(["node_modules", ".git"]);

const identity = (stats: BigIntStats) =>
  `${stats.ino}:${stats.size}:${stats.mode}:${stats.mtimeNs}:${stats.ctimeNs}`;

/** Every file and link below `worktree` (worktree-relative), with what its lstat says now. */
export function recordGivenFiles(worktree: string): GivenFiles {
  const given = new Map<string, string>();
  const visit = (folder: string) => {
    for (const entry of readdirSync(join(worktree, folder), { withFileTypes: true })) {
      if (folder === "" && LEFT_OUT.has(entry.name)) continue;
      const path = folder === "" ? entry.name : `${folder}/${entry.name}`;
      if (entry.isDirectory()) visit(path);
      else given.set(path, identity(lstatSync(join(worktree, path), { bigint: true })));
    }
  };
  visit("");
  return given;
}

/** The files of `before` that changed or went away in `after`, sorted. */
export function compareGivenFiles(before: GivenFiles, after: GivenFiles): string[] {
  const changed: string[] = [];
  for (const [path, identity] of before) if (after.get(path) !== identity) changed.push(path);
  return changed.sort();
}

/** The given files that changed or went away since `given` was recorded, sorted. */
export function changedGivenFiles(worktree: string, given: GivenFiles): string[] {
  return compareGivenFiles(given, recordGivenFiles(worktree));
}

/**
 * Whether the fresh worktree is what git checked out: no file differs from the stat data and
 * blob git recorded in the worktree's own index while it wrote the files (`diff-files`, which
 * reads a file's content when its stat data says "maybe"), and the index itself still holds the
 * baseline (`diff-index --cached`). Run right after checkout, before pi-quests writes anything.
 */
export async function checkedOutIntact(
  git: GitRunner,
  worktree: string,
  baseline: string,
): Promise<{ ok: true } | { ok: false; message: string }> {
  const files = await git(["diff-files", "--name-only", "-z"], { cwd: worktree });
  if (!files.ok)
    return { ok: false, message: `could not compare the worktree with its checkout: ${files.message}` };
  const index = await git(["diff-index", "--cached", "--name-only", "-z", baseline, "--"], { cwd: worktree });
  if (!index.ok)
    return { ok: false, message: `could not compare the worktree with its checkout: ${index.message}` };
  const changed = [...new Set([...splitNul(files.stdout), ...splitNul(index.stdout)])].sort();
  if (changed.length === 0) return { ok: true };
  const shown =
    changed.slice(0, 5).join(", ") + (changed.length > 5 ? ` and ${changed.length - 5} more` : "");
  return {
    ok: false,
    message: `files of the verifier's worktree changed right after git checked them out (${shown}), and pi-quests did not change them; the check did not run on them`,
  };
}
