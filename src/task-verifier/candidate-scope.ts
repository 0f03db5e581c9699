/**
 * What the candidate may change (`editable`, version 2). Only changes to editable paths are
 * taken into the candidate's patch; every other changed path (changed, added, deleted, a mode
 * or a link) stays the baseline's in the worktree, and is listed as left out. Filtering the
 * paths before the patch is taken keeps the patch's sha256 covering exactly what is applied.
 */
import { globMatcher } from "../core/glob.ts";
import { type GitRunner, splitNul } from "../probes/git-runner.ts";

/** Repository-relative path → whether the candidate's change to it is applied. */
export type CandidateScope = (path: string) => boolean;

/**
 * The scope of `editable` globs, which are relative to the quest workspace; `workspaceInRepository`
 * is that workspace relative to the repository root ("" when they are the same folder). A path
 * outside the workspace is never editable.
 */
export function editableScope(editable: readonly string[], workspaceInRepository: string): CandidateScope {
  const matches = globMatcher(editable);
  const prefix =
    workspaceInRepository === "" || workspaceInRepository === "." ? "" : `${workspaceInRepository}/`;
  return (path) => path.startsWith(prefix) && matches(path.slice(prefix.length));
}

export type ScopedPaths = {
  /** Tracked paths whose changes are applied, as literal pathspecs for `git diff`. */
  trackedPathspecs: string[];
  /** Untracked files that are taken. */
  untracked: string[];
  /** Changed paths (tracked or untracked) that are not editable, sorted. */
  leftOut: string[];
};

/**
 * Splits the workspace's changes since the baseline by the scope. The tracked list comes from
 * the same diff the patch is taken with (no renames, so a rename is a deletion and an addition,
 * each judged by its own path).
 */
export async function splitByScope(
  git: GitRunner,
  workspace: string,
  baseline: string,
  untracked: readonly string[],
  inScope: CandidateScope,
): Promise<{ ok: true; paths: ScopedPaths } | { ok: false; message: string }> {
  const changed = await git(["diff", "--name-only", "-z", "--no-renames", "--no-ext-diff", baseline, "--"], {
    cwd: workspace,
  });
  if (!changed.ok) return changed;
  const tracked = splitNul(changed.stdout);
  const leftOut = [...tracked, ...untracked].filter((path) => !inScope(path));
  return {
    ok: true,
    paths: {
      trackedPathspecs: tracked.filter(inScope).map((path) => `:(literal)${path}`),
      untracked: untracked.filter(inScope),
      leftOut: [...new Set(leftOut)].sort(),
    },
  };
}
