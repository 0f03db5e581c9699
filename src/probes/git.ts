/**
 * The real GitProbe: read-only questions about a learner's repository, asked through the
 * hardened git runner (git-runner.ts). Every question that compares the working tree with a
 * commit reads pi-quests' private index (private-index.ts), never the learner's, and untracked
 * files are those the committed `.gitignore` files do not ignore (not `.git/info/exclude`,
 * which the agent can write without a trace).
 *
 * Nothing here writes to the repository, its index or its working tree, and no method throws:
 * every failure (no folder, not a repository, unknown revision, git missing) becomes
 * `{ ok: false, message }` with a sentence a learner can act on. The calls and their sentences
 * are git-calls.ts; diffSince is git-diff.ts, compareWithBaseline git-baseline-file.ts.
 */
import type { GitAnswer, GitProbe } from "../verifier/probes.ts";
import { compareWithBaseline } from "./git-baseline-file.ts";
import { answer, type GitCalls, type GitRun, gitCalls, UNTRACKED, workspacePath } from "./git-calls.ts";
import { diffSince } from "./git-diff.ts";

export { MAX_DIFF_BYTES } from "./git-diff.ts";

export type GitProbeOptions = {
  /** The git executable; `git` from PATH by default. */
  gitBinary?: string;
};

export function createGitProbe(options: GitProbeOptions = {}): GitProbe {
  const calls = gitCalls(options.gitBinary ?? "git");
  return {
    resolveRevision: async (cwd, revision) => answer(await calls.commitOf(cwd, revision)),
    countCommitsSince: (cwd, baseline, branch) => countCommitsSince(calls, cwd, baseline, branch),
    committedSince: (cwd, baseline, file) => committedSince(calls, cwd, baseline, file),
    changedPaths: (cwd) => changedPaths(calls, cwd),
    branchExists: (cwd, branch) => branchExists(calls, cwd, branch),
    currentBranch: (cwd) => currentBranch(calls, cwd),
    diffSince: (cwd, baseline, limit) => diffSince(calls, cwd, baseline, limit),
    compareWithBaseline: (cwd, baseline, file) => compareWithBaseline(calls, cwd, baseline, file),
  };
}

async function countCommitsSince(
  calls: GitCalls,
  cwd: string,
  baseline: string,
  branch: string | undefined,
): Promise<GitAnswer<number | "missing_branch">> {
  const base = await calls.commitOf(cwd, baseline);
  if (!base.ok) return answer(base);
  let tip = "HEAD";
  if (branch !== undefined) {
    const exists = await branchExists(calls, cwd, branch);
    if (!exists.ok) return exists;
    if (!exists.value) return { ok: true, value: "missing_branch" };
    tip = `refs/heads/${branch}`;
  }
  const counted = await calls.run(cwd, ["rev-list", "--count", `${base.value}..${tip}`]);
  if (!counted.ok) return answer(counted);
  return { ok: true, value: Number.parseInt(counted.value.trim(), 10) };
}

/** Whether HEAD holds `file`, and whether its object there is the baseline's (a tree entry compared by id). */
async function committedSince(
  calls: GitCalls,
  cwd: string,
  baseline: string,
  file: string,
): Promise<GitAnswer<"committed" | "unchanged" | "not_in_head">> {
  const where = workspacePath(file);
  if (!where.ok) return where;
  const base = await calls.commitOf(cwd, baseline);
  if (!base.ok) return answer(base);
  const head = await calls.commitOf(cwd, "HEAD");
  if (!head.ok) return answer(head);
  const entryIn = async (commit: string) => {
    const listed = await calls.run(cwd, ["ls-tree", "-z", commit, "--", where.value]);
    return listed.ok ? { ok: true as const, value: listed.value.split("\0")[0] ?? "" } : listed;
  };
  const now = await entryIn(head.value);
  if (!now.ok) return answer(now);
  if (now.value === "") return { ok: true, value: "not_in_head" };
  const then = await entryIn(base.value);
  if (!then.ok) return answer(then);
  return { ok: true, value: now.value === then.value ? "unchanged" : "committed" };
}

/** Tracked changes as `git status --porcelain=v1` lines, then untracked files as `?? name` lines. */
async function changedPaths(calls: GitCalls, cwd: string): Promise<GitAnswer<string[]>> {
  const listed = await calls.indexed(cwd, async (git): Promise<GitRun> => {
    const status = await calls.run(cwd, ["status", "--porcelain=v1", "--untracked-files=no"], git);
    if (!status.ok) return status;
    const others = await calls.run(cwd, [...UNTRACKED, "--", ":/"], git);
    if (!others.ok) return others;
    const untracked = others.value
      .split("\0")
      .filter((name) => name !== "")
      .map((name) => `?? ${quotedPath(name)}`);
    const lines = [...status.value.split("\n").filter((line) => line !== ""), ...untracked];
    return { ok: true, value: lines.join("\n") };
  });
  if (!listed.ok) return answer(listed);
  return { ok: true, value: listed.value.split("\n").filter((line) => line !== "") };
}

async function branchExists(calls: GitCalls, cwd: string, branch: string): Promise<GitAnswer<boolean>> {
  if (branch.trim() === "" || branch.startsWith("-")) {
    return { ok: false, message: `"${branch}" is not a valid branch name.` };
  }
  // for-each-ref also lists refs *under* the name (feature/x for feature), so match exactly.
  const refs = await calls.run(cwd, ["for-each-ref", "--format=%(refname)", `refs/heads/${branch}`]);
  if (!refs.ok) return answer(refs);
  return { ok: true, value: refs.value.split("\n").includes(`refs/heads/${branch}`) };
}

async function currentBranch(calls: GitCalls, cwd: string): Promise<GitAnswer<string | null>> {
  // "refs/heads/NAME" on a branch, "HEAD" when detached (an unborn branch is an error: no commit yet).
  const head = await calls.run(cwd, ["rev-parse", "--symbolic-full-name", "HEAD"]);
  if (!head.ok) return answer(head);
  const ref = head.value.trim();
  return { ok: true, value: ref.startsWith("refs/heads/") ? ref.slice("refs/heads/".length) : null };
}

/** A path as `git status --porcelain=v1` writes it: C-quoted when it holds a quote, backslash or control character. */
function quotedPath(name: string): string {
  const special = (char: string) => char === '"' || char === "\\" || char < " " || char === "\x7f";
  if (![...name].some(special)) return name;
  const escapes: Record<string, string> = { "\t": "\\t", "\n": "\\n", '"': '\\"', "\\": "\\\\" };
  const body = [...name]
    .map((char) => {
      const code = char.charCodeAt(0);
      return (
        escapes[char] ?? (code < 0x20 || code === 0x7f ? `\\${code.toString(8).padStart(3, "0")}` : char)
      );
    })
    .join("");
  return `"${body}"`;
}
