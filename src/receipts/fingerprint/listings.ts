/**
 * What git says about the workspace, parsed for the fast path: HEAD's files, the paths git
 * status names, the untracked files, and the files whose attributes convert their bytes.
 */
import { type Git, splitNul } from "./git.ts";
import type { Entry } from "./scan.ts";

/** Tracked changes; untracked files come from UNTRACKED, which reads only the `.gitignore` files. */
export const STATUS = [
  "status",
  "--porcelain=v2",
  "-z",
  "--untracked-files=no",
  "--no-renames",
  "--ignore-submodules=all",
];
export const UNTRACKED = ["ls-files", "-z", "--others", "--exclude-per-directory=.gitignore", "--full-name"];

/** A path (repository-relative) git names, and whether it is still a member of the fingerprint. */
export type Change = { path: string; kept: boolean };

/** Untracked files (repository-relative) are members. */
export function* untrackedChanges(others: Buffer): Generator<Change> {
  for (const path of splitNul(others)) yield { path, kept: true };
}

/** HEAD's files below `prefix` (the workspace), by workspace-relative path; gitlinks left out. */
export function headFiles(tree: Buffer, prefix: string): Map<string, Entry> {
  const files = new Map<string, Entry>();
  for (const record of splitNul(tree)) {
    // `<mode> <type> <blob>\t<path>`; the size is filled in from the disk.
    const tab = record.indexOf("\t");
    const [mode, type, blob] = record.slice(0, tab).split(/ +/);
    const fullPath = record.slice(tab + 1);
    if (type !== "blob" || !fullPath.startsWith(prefix)) continue;
    if (mode !== "100644" && mode !== "100755" && mode !== "120000") continue;
    const path = fullPath.slice(prefix.length);
    files.set(path, { path, mode, size: 0, ...(blob ? { blob } : {}) });
  }
  return files;
}

/**
 * Paths (repository-relative) `git status` lists. `kept` says whether the path is still a
 * member: tracked in the index, or untracked and not ignored. `D.` is a path removed from the
 * index, kept only if it is also listed as untracked; `DA` is an intent-to-add entry (`git add
 * -N`), which is in the index although git compares it with HEAD as deleted.
 */
export function* statusChanges(status: Buffer): Generator<Change> {
  const records = splitNul(status);
  for (let i = 0; i < records.length; i++) {
    const record = records[i] as string;
    const kind = record[0];
    if (kind === "?") yield { path: record.slice(2), kept: true };
    else if (kind === "1") yield { path: afterFields(record, 8), kept: record.slice(2, 4) !== "D." };
    else if (kind === "u") yield { path: afterFields(record, 10), kept: true };
    else if (kind === "2") {
      // Renames are off, but if git reports one anyway: the new path, then the old one.
      yield { path: afterFields(record, 9), kept: true };
      yield { path: records[++i] ?? "", kept: false };
    }
  }
}

/** The rest of `record` after `count` space-separated fields: a path may contain spaces. */
function afterFields(record: string, count: number): string {
  let at = 0;
  for (let i = 0; i < count; i++) at = record.indexOf(" ", at) + 1;
  return record.slice(at);
}

/**
 * HEAD's files below the workspace (workspace-relative) whose blob git may store with other bytes
 * than the disk's even when git status says nothing: a converting attribute is set for them.
 */
export async function convertedFiles(git: Git, paths: string[]): Promise<string[]> {
  if (paths.length === 0) return [];
  // `--all` prints only the attributes set for each path: usually nothing at all.
  const attributes = await git(["check-attr", "-z", "--stdin", "--all"], [0], `${paths.join("\0")}\0`);
  const converted = new Set<string>();
  const fields = attributes.toString("utf8").split("\0");
  for (let i = 0; i + 2 < fields.length; i += 3) {
    const [path = "", attribute = "", value = ""] = fields.slice(i, i + 3);
    if (CONVERTING.has(attribute) && !(value === "unset" && NOT_TEXT.has(attribute))) converted.add(path);
  }
  return [...converted];
}

/** Attributes that change the bytes between disk and blob, when set; `-text`/`-crlf` mean binary. */
const CONVERTING = new Set(["text", "eol", "crlf", "filter", "ident", "working-tree-encoding"]);
const NOT_TEXT = new Set(["text", "crlf"]);
