/**
 * The real GitProbe: read-only questions about a learner's repository, asked through the
 * hardened git runner (git-runner.ts). Every question that compares the working tree with a
 * commit reads pi-quests' private index (private-index.ts), never the learner's, and untracked
 * files are those the committed `.gitignore` files do not ignore (not `.git/info/exclude`,
 * which the agent can write without a trace).
 *
 * Nothing here writes to the repository, its index or its working tree, and no method throws:
 * every failure (no folder, not a repository, unknown revision, git missing) becomes
 * `{ ok: false, message }` with a sentence a learner can act on.
 */
import { lstat, readFile, readlink } from "node:fs/promises";
import path from "node:path";
import type { GitAnswer, GitProbe } from "../verifier/probes.ts";
import { createGitRunner, type GitResult, type GitRunner } from "./git-runner.ts";
import { withPrivateIndex } from "./private-index.ts";

export type GitProbeOptions = {
  /** The git executable; `git` from PATH by default. */
  gitBinary?: string;
};

/** diffSince keeps at most this much text, so one huge file cannot flood a report. */
export const MAX_DIFF_BYTES = 4 * 1024 * 1024;

/** A git call that prints nothing for this long is stuck (a lock, a network mount). */
const GIT_TIMEOUT_MS = 60_000;

/** Git reads a blob as binary when its first 8000 bytes hold a NUL; the untracked files do the same. */
const BINARY_SNIFF_BYTES = 8000;

/** Untracked files: only the `.gitignore` files decide what is ignored. */
const UNTRACKED = ["ls-files", "--others", "--exclude-per-directory=.gitignore", "--full-name", "-z"];

/** Why a git call failed: `git` carries git's own words, the others have a fixed sentence. */
type GitFailure = {
  ok: false;
  kind: "no_folder" | "no_git" | "not_repo" | "silent" | "git";
  message: string;
};
type GitRun = { ok: true; value: string } | GitFailure;

export function createGitProbe(options: GitProbeOptions = {}): GitProbe {
  const binary = options.gitBinary ?? "git";
  const runner = createGitRunner({ gitBinary: binary, timeoutMs: GIT_TIMEOUT_MS });

  function fail(cwd: string, result: Extract<GitResult, { ok: false }>, command = "call"): GitFailure {
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

  async function runBytes(
    git: GitRunner,
    cwd: string,
    args: string[],
  ): Promise<{ ok: true; value: Buffer } | GitFailure> {
    const result = await git(args, { cwd });
    return result.ok ? { ok: true, value: result.stdout } : fail(cwd, result, args[0]);
  }

  async function run(cwd: string, args: string[], git: GitRunner = runner): Promise<GitRun> {
    const result = await runBytes(git, cwd, args);
    return result.ok ? { ok: true, value: result.value.toString("utf8") } : result;
  }

  /** Runs `ask` with git reading pi-quests' private index of the repository around `cwd`. */
  async function indexed<T>(
    cwd: string,
    ask: (git: GitRunner) => Promise<T | GitFailure>,
  ): Promise<T | GitFailure> {
    const outcome = await withPrivateIndex(runner, cwd, ask, { timeoutMs: GIT_TIMEOUT_MS });
    return outcome.ok ? outcome.value : fail(cwd, outcome, "read-tree");
  }

  /** The commit a baseline names, as a full object id: later calls use it, never the name. */
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

  return {
    async resolveRevision(cwd, revision) {
      return answer(await commitOf(cwd, revision));
    },

    async countCommitsSince(cwd, baseline) {
      const base = await commitOf(cwd, baseline);
      if (!base.ok) return answer(base);
      const counted = await run(cwd, ["rev-list", "--count", `${base.value}..HEAD`]);
      if (!counted.ok) return answer(counted);
      return { ok: true, value: Number.parseInt(counted.value.trim(), 10) };
    },

    async changedPaths(cwd) {
      const listed = await indexed(cwd, async (git): Promise<GitRun> => {
        const status = await run(cwd, ["status", "--porcelain=v1", "--untracked-files=no"], git);
        if (!status.ok) return status;
        const others = await run(cwd, [...UNTRACKED, "--", ":/"], git);
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
    },

    async branchExists(cwd, branch) {
      if (branch.trim() === "" || branch.startsWith("-")) {
        return { ok: false, message: `"${branch}" is not a valid branch name.` };
      }
      // for-each-ref also lists refs *under* the name (feature/x for feature), so match exactly.
      const refs = await run(cwd, ["for-each-ref", "--format=%(refname)", `refs/heads/${branch}`]);
      if (!refs.ok) return answer(refs);
      return { ok: true, value: refs.value.split("\n").includes(`refs/heads/${branch}`) };
    },

    async diffSince(cwd, baseline, limit) {
      // `:/` is the whole repository; `:(literal)` keeps `*` and `?` in a file name from globbing.
      let pathspec = ":/";
      if (limit !== undefined) {
        const where = workspacePath(limit);
        if (!where.ok) return where;
        pathspec = `:(literal)${where.value}`;
      }
      const base = await commitOf(cwd, baseline);
      if (!base.ok) return answer(base);
      const top = await run(cwd, ["rev-parse", "--show-toplevel"]);
      if (!top.ok) return answer(top);

      // Commits since the baseline and uncommitted tracked changes, in one baseline-to-working-tree diff.
      // The flags keep the text plain: no repository-configured diff program, textconv, color or renames.
      const listed = await indexed(
        cwd,
        async (git): Promise<{ ok: true; value: [string, string] } | GitFailure> => {
          const tracked = await run(
            cwd,
            [
              "diff",
              "--no-ext-diff",
              "--no-textconv",
              "--no-color",
              "--no-renames",
              base.value,
              "--",
              pathspec,
            ],
            git,
          );
          if (!tracked.ok) return tracked;
          const untracked = await run(cwd, [...UNTRACKED, "--", pathspec], git);
          if (!untracked.ok) return untracked;
          return { ok: true, value: [tracked.value, untracked.value] };
        },
      );
      if (!listed.ok) return answer(listed);
      const [tracked, untracked] = listed.value;

      const text = new BoundedText(MAX_DIFF_BYTES);
      text.add(tracked);
      // An untracked folder with its own .git is listed as `name/`; its files are not ours to show.
      const names = untracked.split("\0").filter((name) => name !== "" && !name.endsWith("/"));
      for (const name of names) {
        if (text.full) break;
        const section = await untrackedFileDiff(top.value.trim(), name, text.room);
        if (section === undefined) text.markTruncated();
        else text.add(section);
      }
      return { ok: true, value: text.toString() };
    },

    async compareWithBaseline(cwd, baseline, file) {
      const where = workspacePath(file);
      if (!where.ok) return where;
      if (where.value === ".")
        return { ok: false, message: "compareWithBaseline needs a file, not the workspace." };
      const base = await commitOf(cwd, baseline);
      if (!base.ok) return answer(base);

      // ls-tree takes the path relative to cwd, like the rest of this probe.
      const listed = await run(cwd, ["ls-tree", "-z", "-l", base.value, "--", where.value]);
      if (!listed.ok) return answer(listed);
      const entry = parseTreeEntry(listed.value);
      if (entry === undefined) return { ok: true, value: "missing_in_baseline" };
      if (entry.type !== "blob") {
        return {
          ok: false,
          message: `${file} is a ${entry.type === "tree" ? "folder" : "submodule"} in the baseline, not a file.`,
        };
      }

      const now = await workingTreeBytes(path.join(cwd, where.value), entry.size);
      if (now === "missing") return { ok: true, value: "missing_now" };
      if (now === "different") return { ok: true, value: "different" };

      // A blob as its raw stored bytes (replace refs ignored): no textconv, line-ending or smudge filter.
      const then = await runBytes(runner, cwd, ["cat-file", "blob", entry.oid]);
      if (!then.ok) return answer(then);
      return { ok: true, value: then.value.equals(now) ? "same" : "different" };
    },
  };
}

/** Drops the failure kind: callers of the port only see the sentence. */
function answer<T>(run: { ok: true; value: T } | GitFailure): GitAnswer<T> {
  return run.ok ? run : { ok: false, message: run.message };
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

/** A workspace-relative path, normalized with `/`; absolute paths and `..` escapes are refused. */
function workspacePath(written: string): GitAnswer<string> {
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

type TreeEntry = { type: string; oid: string; size: number };

/** The first `<mode> <type> <oid> <size>\t<path>` record of `ls-tree -z -l`, if any. */
function parseTreeEntry(output: string): TreeEntry | undefined {
  const record = output.split("\0")[0];
  const match = record?.match(/^\d+ (\w+) ([0-9a-f]+) +(\d+|-)\t/);
  if (match === null || match === undefined) return undefined;
  const [, type = "", oid = "", size = "-"] = match;
  return { type, oid, size: size === "-" ? -1 : Number(size) };
}

/**
 * The bytes git would store for a working-tree path: a file's content, or a symbolic link's target
 * (never what the link points to). "different" when the size or the kind already tells.
 */
async function workingTreeBytes(
  absolute: string,
  baselineSize: number,
): Promise<Buffer | "missing" | "different"> {
  try {
    const stat = await lstat(absolute);
    if (stat.isSymbolicLink()) return await readlink(absolute, { encoding: "buffer" });
    if (!stat.isFile() || stat.size !== baselineSize) return "different";
    return await readFile(absolute);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "ENOENT" || code === "ENOTDIR") return "missing";
    // Unreadable now: it cannot be shown to be the same.
    return "different";
  }
}

/**
 * An untracked file written as git would write a new file, every line prefixed with `+`.
 * Undefined when the file does not fit in `room` bytes (the diff is then truncated).
 */
async function untrackedFileDiff(top: string, name: string, room: number): Promise<string | undefined> {
  const absolute = path.join(top, name);
  let content: Buffer;
  let mode: string;
  try {
    const stat = await lstat(absolute);
    if (stat.size > room) return undefined;
    if (stat.isSymbolicLink()) {
      content = await readlink(absolute, { encoding: "buffer" });
      mode = "120000";
    } else if (stat.isFile()) {
      content = await readFile(absolute);
      mode = (stat.mode & 0o111) !== 0 ? "100755" : "100644";
    } else {
      return "";
    }
  } catch {
    // Deleted between listing and reading: nothing to show.
    return "";
  }

  const header = `diff --git a/${name} b/${name}\nnew file mode ${mode}\n`;
  if (content.length === 0) return header;
  if (content.subarray(0, BINARY_SNIFF_BYTES).includes(0)) {
    return `${header}Binary files /dev/null and b/${name} differ\n`;
  }
  const text = content.toString("utf8");
  const endsWithNewline = text.endsWith("\n");
  const lines = (endsWithNewline ? text.slice(0, -1) : text).split("\n");
  const range = lines.length === 1 ? "+1" : `+1,${lines.length}`;
  const body = lines.map((line) => `+${line}\n`).join("");
  const noNewline = endsWithNewline ? "" : "\\ No newline at end of file\n";
  return `${header}--- /dev/null\n+++ b/${name}\n@@ -0,0 ${range} @@\n${body}${noNewline}`;
}

/** Text that stops growing at a byte limit, cut at a line end, and says so at its end. */
class BoundedText {
  private readonly parts: string[] = [];
  private readonly limit: number;
  private used = 0;
  private truncated = false;

  constructor(limit: number) {
    this.limit = limit;
  }

  get room(): number {
    return this.limit - this.used;
  }

  get full(): boolean {
    return this.truncated;
  }

  add(part: string): void {
    if (this.truncated) return;
    const bytes = Buffer.byteLength(part);
    if (bytes <= this.room) {
      this.parts.push(part);
      this.used += bytes;
      return;
    }
    const head = Buffer.from(part).subarray(0, this.room).toString("utf8");
    const lastLineEnd = head.lastIndexOf("\n");
    this.parts.push(lastLineEnd === -1 ? "" : head.slice(0, lastLineEnd + 1));
    this.markTruncated();
  }

  markTruncated(): void {
    this.truncated = true;
  }

  toString(): string {
    const text = this.parts.join("");
    if (!this.truncated) return text;
    return `${text}\n[diff truncated: it is larger than ${this.limit / (1024 * 1024)} MiB]\n`;
  }
}

function firstLine(text: string): string {
  return (
    text
      .split("\n")
      .map((line) => line.trim())
      .find((line) => line !== "") ?? "no message."
  );
}
