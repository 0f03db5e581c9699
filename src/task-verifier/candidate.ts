/**
 * The candidate: what the learner's workspace changed since the pinned baseline, as exact patch
 * bytes. Tracked changes (commits since the baseline included) come from `git diff BASELINE`,
 * untracked non-ignored files from `git diff --no-index` against /dev/null. Neither writes to the
 * learner's index, objects or files.
 */
import { createHash } from "node:crypto";
import { type GitRunner, splitNul } from "./git.ts";

export type Candidate = {
  patch: Buffer;
  sha256: string;
  /** The workspace's HEAD when the patch was taken (it may differ from the baseline). */
  head: string;
  untracked: string[];
};

const DIFF_OPTIONS = [
  "--binary",
  "--full-index",
  "--no-renames",
  "--no-ext-diff",
  "--no-textconv",
  "--no-color",
];

export async function captureCandidate(
  git: GitRunner,
  workspace: string,
  baseline: string,
): Promise<{ ok: true; candidate: Candidate } | { ok: false; message: string }> {
  const head = await git(["rev-parse", "--verify", "HEAD^{commit}"], { cwd: workspace });
  if (!head.ok) return head;
  const tracked = await git(["diff", ...DIFF_OPTIONS, baseline, "--"], { cwd: workspace });
  if (!tracked.ok) return tracked;
  const others = await git(["ls-files", "--others", "--exclude-standard", "-z"], { cwd: workspace });
  if (!others.ok) return others;

  const parts = [tracked.stdout];
  const untracked = splitNul(others.stdout).sort();
  for (const path of untracked) {
    // --no-index exits 1 when the files differ, which a new file always does.
    const added = await git(["diff", "--no-index", ...DIFF_OPTIONS, "--", "/dev/null", path], {
      cwd: workspace,
      okExitCodes: [0, 1],
    });
    if (!added.ok) return added;
    parts.push(added.stdout);
  }
  const patch = Buffer.concat(parts);
  return {
    ok: true,
    candidate: {
      patch,
      sha256: createHash("sha256").update(patch).digest("hex"),
      head: head.stdout.toString("utf8").trim(),
      untracked,
    },
  };
}
