/**
 * Git for the fingerprint, through pi-quests' hardened runner: read-only for the learner's
 * repository, bounded by the scan's clock, and reading pi-quests' private index.
 */
import { isUtf8 } from "node:buffer";
import { createGitRunner, type GitRunner } from "../../probes/git-runner.ts";
import { type IndexedTree, type PrivateIndexOptions, withPrivateIndex } from "../../probes/private-index.ts";
import { checkTime, GitFailed, Refused, remainingMs, type Scan } from "./scan.ts";

/** Runs git in the workspace; throws GitFailed on an exit code not in `okCodes`. */
export type Git = (args: string[], okCodes?: number[], input?: string) => Promise<Buffer>;

/** The one runner every fingerprint uses; the fast path also pins the drivers through it. */
export const runner = createGitRunner();

export function gitIn(scan: Scan, git: GitRunner = runner): Git {
  return async (args, okCodes = [0], input) => {
    checkTime(scan);
    const result = await git(args, {
      cwd: scan.root,
      ...(input === undefined ? {} : { input }),
      okExitCodes: okCodes,
      timeoutMs: remainingMs(scan),
    });
    if (result.ok) return result.stdout;
    if (result.kind === "timeout") checkTime(scan);
    throw new GitFailed(result.message);
  };
}

/** Runs `work` with git reading pi-quests' private index of the workspace's repository. */
export async function inPrivateIndex<T>(
  scan: Scan,
  work: (git: Git, head: IndexedTree) => Promise<T>,
  options: Pick<PrivateIndexOptions, "refresh" | "commit" | "driversPinned">,
  git: GitRunner = runner,
): Promise<T> {
  const remaining = remainingMs(scan);
  const outcome = await withPrivateIndex(
    git,
    scan.root,
    (indexed, head) => work(gitIn(scan, indexed), head),
    {
      ...options,
      timeoutMs: Math.max(1, remaining),
    },
  );
  if (outcome.ok) return outcome.value;
  if (outcome.kind === "timeout") checkTime(scan);
  throw new GitFailed(outcome.message);
}

export async function insideGitWorkTree(git: Git): Promise<boolean> {
  try {
    return (await git(["rev-parse", "--is-inside-work-tree"])).toString().trim() === "true";
  } catch (error) {
    if (error instanceof GitFailed) return false;
    throw error;
  }
}

export function splitNul(output: Buffer): string[] {
  // A name in another encoding would be decoded into one no file has: refuse rather than miss it.
  if (!isUtf8(output)) throw new Refused("git lists a file name that is not valid UTF-8");
  return output.toString("utf8").split("\0").filter(Boolean);
}
