/**
 * The GitProbe's diffSince: commits since the baseline and uncommitted changes, as one
 * baseline-to-working-tree diff text, untracked files written as git writes a new file, and the
 * whole bounded so one huge file cannot flood a report.
 */
import { lstat, readFile, readlink } from "node:fs/promises";
import path from "node:path";
import type { GitAnswer } from "../verifier/probes.ts";
import { answer, type GitCalls, type GitFailure, UNTRACKED, workspacePath } from "./git-calls.ts";

/** diffSince keeps at most this much text, so one huge file cannot flood a report. */
export const MAX_DIFF_BYTES = 4 * 1024 * 1024;

/** Git reads a blob as binary when its first 8000 bytes hold a NUL; the untracked files do the same. */
const BINARY_SNIFF_BYTES = 8000;

export async function diffSince(
  calls: GitCalls,
  cwd: string,
  baseline: string,
  limit: string | undefined,
): Promise<GitAnswer<string>> {
  // `:/` is the whole repository; `:(literal)` keeps `*` and `?` in a file name from globbing.
  let pathspec = ":/";
  if (limit !== undefined) {
    const where = workspacePath(limit);
    if (!where.ok) return where;
    pathspec = `:(literal)${where.value}`;
  }
  const base = await calls.commitOf(cwd, baseline);
  if (!base.ok) return answer(base);
  const top = await calls.run(cwd, ["rev-parse", "--show-toplevel"]);
  if (!top.ok) return answer(top);
  const listed = await trackedAndUntracked(calls, cwd, base.value, pathspec);
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
}

/**
 * The diff of tracked files from `base` to the working tree, and the untracked names, both read
 * through pi-quests' private index. The flags keep the text plain: no repository-configured diff
 * program, textconv, color or renames.
 */
function trackedAndUntracked(
  calls: GitCalls,
  cwd: string,
  base: string,
  pathspec: string,
): Promise<{ ok: true; value: [string, string] } | GitFailure> {
  return calls.indexed(cwd, async (git): Promise<{ ok: true; value: [string, string] } | GitFailure> => {
    const tracked = await calls.run(
      cwd,
      ["diff", "--no-ext-diff", "--no-textconv", "--no-color", "--no-renames", base, "--", pathspec],
      git,
    );
    if (!tracked.ok) return tracked;
    const untracked = await calls.run(cwd, [...UNTRACKED, "--", pathspec], git);
    if (!untracked.ok) return untracked;
    return { ok: true, value: [tracked.value, untracked.value] };
  });
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
