/**
 * One git call for the GitProbe's questions: run through the hardened git runner
 * (git-runner.ts), optionally reading pi-quests' private index (private-index.ts), and every
 * failure turned into a sentence a learner can act on. Nothing here throws.
 */
import path from "node:path";
import type { GitAnswer } from "../verifier/probes.ts";
import { createGitRunner, type GitResult, type GitRunner } from "./git-runner.ts";
import { withPrivateIndex } from "./private-index.ts";

/** A git call that prints nothing for this long is stuck (a lock, a network mount). */
const GIT_TIMEOUT_MS = 60_000;

/** Untracked files: only the `.gitignore` files decide what is ignored. */
export const UNTRACKED = ["ls-files", "--others", "--exclude-per-directory=.gitignore", "--full-name", "-z"];

/** Why a git call failed: `git` carries git's own words, the others have a fixed sentence. */
export type GitFailure = {
  ok: false;
  kind: "no_folder" | "no_git" | "not_repo" | "silent" | "git";
  message: string;
};
export type GitRun<T = string> = { ok: true; value: T } | GitFailure;

export type GitCalls = {
  /** The runner every call uses unless a private-index one is given. */
  runner: GitRunner;
  /** Runs git in `cwd`; its output as text. */
  run(cwd: string, args: string[], git?: GitRunner): Promise<GitRun>;
  /** Runs git in `cwd`; its output as bytes. */
  runBytes(git: GitRunner, cwd: string, args: string[]): Promise<GitRun<Buffer>>;
  /** Runs `ask` with git reading pi-quests' private index of the repository around `cwd`. */
  indexed<T>(cwd: string, ask: (git: GitRunner) => Promise<T | GitFailure>): Promise<T | GitFailure>;
  /** The commit a baseline names, as a full object id: later calls use it, never the name. */
  commitOf(cwd: string, revision: string): Promise<GitRun>;
};

export function gitCalls(binary: string): GitCalls {
  const runner = createGitRunner({ gitBinary: binary, timeoutMs: GIT_TIMEOUT_MS });
  const fail = (cwd: string, result: Extract<GitResult, { ok: false }>, command?: string) =>
    failureOf(binary, cwd, result, command);

  async function runBytes(git: GitRunner, cwd: string, args: string[]): Promise<GitRun<Buffer>> {
    const result = await git(args, { cwd });
    return result.ok ? { ok: true, value: result.stdout } : fail(cwd, result, args[0]);
  }

  async function run(cwd: string, args: string[], git: GitRunner = runner): Promise<GitRun> {
    const result = await runBytes(git, cwd, args);
    return result.ok ? { ok: true, value: result.value.toString("utf8") } : result;
  }

  async function indexed<T>(
    cwd: string,
    ask: (git: GitRunner) => Promise<T | GitFailure>,
  ): Promise<T | GitFailure> {
    const outcome = await withPrivateIndex(runner, cwd, ask, { timeoutMs: GIT_TIMEOUT_MS });
    return outcome.ok ? outcome.value : fail(cwd, outcome, "read-tree");
  }

  async function commitOf(cwd: string, revision: string): Promise<GitRun> {
    if (revision.trim() === "" || revision.startsWith("-")) {
      return { ok: false, kind: "git", message: `"${revision}" is not a valid revision name.` };
    }
    const verified = await run(cwd, ["rev-parse", "--verify", "--quiet", `${revision}^{commit}`]);
    if (!verified.ok) {
      // --quiet: an unknown revision is the one failure that prints nothing.
      if (verified.kind !== "silent") return verified;
      return { ok: false, kind: "silent", message: `"${revision}" does not name a commit in ${cwd}.` };
    }
    return { ok: true, value: verified.value.trim() };
  }

  return { runner, run, runBytes, indexed, commitOf };
}

/** The sentence for a failed git call in `cwd`; `command` is git's subcommand. */
function failureOf(
  binary: string,
  cwd: string,
  result: Extract<GitResult, { ok: false }>,
  command = "call",
): GitFailure {
  if (result.kind === "no_folder") {
    return { ok: false, kind: "no_folder", message: `The folder ${cwd} does not exist.` };
  }
  if (result.kind === "no_git") {
    return { ok: false, kind: "no_git", message: `git could not be started (${binary}): is it installed?` };
  }
  if (result.kind === "timeout") {
    return { ok: false, kind: "git", message: `git did not answer within ${GIT_TIMEOUT_MS / 1000} s.` };
  }
  if (/not a git repository/i.test(result.stderr) || /not inside a git repository/.test(result.message)) {
    return { ok: false, kind: "not_repo", message: `${cwd} is not inside a git repository.` };
  }
  if (result.stderr === "") {
    return { ok: false, kind: "silent", message: `git ${command} failed without saying why.` };
  }
  return { ok: false, kind: "git", message: `git ${command} failed: ${firstLine(result.stderr)}` };
}

/** Drops the failure kind: callers of the port only see the sentence. */
export function answer<T>(run: GitRun<T>): GitAnswer<T> {
  return run.ok ? run : { ok: false, message: run.message };
}

/** A workspace-relative path, normalized with `/`; absolute paths and `..` escapes are refused. */
export function workspacePath(written: string): GitAnswer<string> {
  if (written.trim() === "") return { ok: false, message: "The path is empty." };
  if (path.posix.isAbsolute(written) || path.win32.isAbsolute(written)) {
    return { ok: false, message: `${written} is absolute; give a path relative to the workspace.` };
  }
  const normalized = path.posix.normalize(written).replace(/\/+$/, "");
  if (normalized === ".." || normalized.startsWith("../")) {
    return { ok: false, message: `${written} leaves the workspace.` };
  }
  return { ok: true, value: normalized === "" ? "." : normalized };
}

function firstLine(text: string): string {
  return (
    text
      .split("\n")
      .map((line) => line.trim())
      .find((line) => line !== "") ?? "no message."
  );
}
