/**
 * Content fingerprints (seed 001). The contract for both paths, which must give the same value:
 * - the files: non-ignored names (tracked files, and untracked files git does not ignore; without
 *   git, every file the .gitignore files do not exclude), outside the generated folders below;
 * - per file: its mode (100644, 100755 or 120000) and git's blob id of its content (for a
 *   symbolic link, of the link's target; a link is never followed);
 * - the fingerprint: sha256 of the sorted `mode blob path` lines;
 * - limits: 100,000 entries, 128 MiB, 4 MiB a file, 5 s; over any of them, or on a read error,
 *   there is no fingerprint.
 */
import { isUtf8 } from "node:buffer";
import { createHash } from "node:crypto";
import {
  closeSync,
  constants,
  type Dirent,
  fstatSync,
  lstatSync,
  openSync,
  readlinkSync,
  readSync,
  realpathSync,
  type Stats,
} from "node:fs";
import { readdir, readFile, realpath } from "node:fs/promises";
import { dirname, join } from "node:path";
import { performance } from "node:perf_hooks";
import ignore, { type Ignore } from "ignore";
import { createGitRunner, type GitRunner, pinDrivers } from "../probes/git-runner.ts";
import { type IndexedTree, type PrivateIndexOptions, withPrivateIndex } from "../probes/private-index.ts";
import type { Fingerprint } from "./schema.ts";

export const GENERATED_FOLDERS = [
  ".git",
  "node_modules",
  "dist",
  "build",
  "target",
  ".venv",
  "__pycache__",
] as const;

export const FINGERPRINT_LIMITS = {
  entries: 100_000,
  bytes: 128 * 1024 * 1024,
  fileBytes: 4 * 1024 * 1024,
  milliseconds: 5_000,
} as const;

export type FingerprintLimits = { entries: number; bytes: number; fileBytes: number; milliseconds: number };

export type FingerprintOutcome =
  | { ok: true; fingerprint: Fingerprint; path: "fast" | "full" }
  | { ok: false; reason: string };

/** Git's blob id of `content`: what `git hash-object` prints for a file with these bytes. */
export function gitBlobId(content: Buffer): string {
  return createHash("sha1").update(`blob ${content.length}\0`).update(content).digest("hex");
}

/**
 * The fingerprint of every file, read from disk. In a git work tree the files are those git
 * lists (tracked and present, or untracked and not ignored); elsewhere, a walk honoring the
 * `.gitignore` files.
 */
export async function fullFingerprint(
  workspace: string,
  limits: FingerprintLimits = FINGERPRINT_LIMITS,
): Promise<FingerprintOutcome> {
  return settle(async () => {
    const scan = await startScan(workspace, limits);
    return { fingerprint: await fullScan(scan), path: "full" as const };
  });
}

/**
 * The same value as `fullFingerprint`, reading only the files git says differ from HEAD. No
 * fingerprint when git is missing or fails here; a repository without commits is read in full.
 */
export async function fastFingerprint(
  workspace: string,
  limits: FingerprintLimits = FINGERPRINT_LIMITS,
): Promise<FingerprintOutcome> {
  return settle(async () => {
    const scan = await startScan(workspace, limits);
    return fastOrFull(scan);
  });
}

/** The fast path when git works in `workspace`, else the full one, within one time budget. */
export async function fingerprint(
  workspace: string,
  limits: FingerprintLimits = FINGERPRINT_LIMITS,
): Promise<FingerprintOutcome> {
  return settle(async () => {
    const scan = await startScan(workspace, limits);
    try {
      return await fastOrFull(scan);
    } catch (error) {
      if (!(error instanceof GitFailed)) throw error;
      return { fingerprint: await fullScan(scan), path: "full" as const };
    }
  });
}

// ---------------------------------------------------------------------------------------------
// One scan: the workspace, its limits and clock, and the two ways to stop without a fingerprint.

/** Over a limit, or something unreadable: no fingerprint, with this message as the reason. */
class Refused extends Error {}

/** Git is missing or failed: the fast path cannot answer, the full one may. */
class GitFailed extends Error {}

type Scan = {
  /** The workspace's real path: every file read must be below it, through no link. */
  root: string;
  limits: FingerprintLimits;
  started: number;
  /** Folder (workspace-relative) → whether it is a real folder below the root, no link on the way. */
  folders: Map<string, boolean>;
};

type Mode = "100644" | "100755" | "120000";

/** One file of the fingerprint; `blob` is filled in when the file has been read. */
type Entry = { path: string; mode: Mode; size: number; blob?: string };

const GENERATED = new Set<string>(GENERATED_FOLDERS);

/**
 * Files are read with synchronous calls, in slices of this many ms between which the event loop
 * runs. Promise-based fs calls cost ~50 µs a file in thread-pool hops: 100,000 small files (the
 * entries limit) would spend the whole time budget on them.
 */
const SLICE_MS = 10;

async function settle(work: () => Promise<{ fingerprint: Fingerprint; path: "fast" | "full" }>) {
  try {
    return { ok: true, ...(await work()) } satisfies FingerprintOutcome;
  } catch (error) {
    if (error instanceof Refused || error instanceof GitFailed)
      return { ok: false, reason: error.message } as const;
    throw error;
  }
}

async function startScan(workspace: string, limits: FingerprintLimits): Promise<Scan> {
  const started = performance.now();
  let root: string;
  try {
    root = await realpath(workspace);
  } catch (error) {
    throw new Refused(`cannot open the workspace ${workspace}: ${codeOf(error)}`);
  }
  return { root, limits, started, folders: new Map() };
}

function checkTime(scan: Scan): void {
  const elapsed = performance.now() - scan.started;
  if (elapsed > scan.limits.milliseconds) {
    throw new Refused(
      `over the milliseconds limit (${scan.limits.milliseconds}): the scan took ${Math.ceil(elapsed)} ms`,
    );
  }
}

function codeOf(error: unknown): string {
  return error instanceof Error ? ((error as NodeJS.ErrnoException).code ?? error.message) : String(error);
}

const isGenerated = (path: string) => path.split("/").some((segment) => GENERATED.has(segment));

// ---------------------------------------------------------------------------------------------
// The full path.

async function fullScan(scan: Scan): Promise<Fingerprint> {
  const git = gitIn(scan);
  const listed = (await insideGitWorkTree(git))
    ? await inPrivateIndex(scan, gitFiles, { refresh: "none" })
    : await walk(scan);
  const entries: Entry[] = [];
  await inSlices(scan, listed, (path) => {
    const entry = isGenerated(path) ? null : inspect(scan, path);
    if (entry) entries.push(entry);
  });
  return finish(scan, entries);
}

async function insideGitWorkTree(git: Git): Promise<boolean> {
  try {
    return (await git(["rev-parse", "--is-inside-work-tree"])).toString().trim() === "true";
  } catch (error) {
    if (error instanceof GitFailed) return false;
    throw error;
  }
}

/**
 * HEAD's files and untracked files the `.gitignore` files keep, relative to the workspace, listed
 * from pi-quests' private index: the learner's may hold entries HEAD has not, and
 * `.git/info/exclude` or core.excludesFile are not the committed ignore rules.
 */
async function gitFiles(git: Git): Promise<string[]> {
  const listed = splitNul(
    await git(["ls-files", "-z", "--cached", "--others", "--exclude-per-directory=.gitignore"]),
  );
  // A conflicted file is listed once per stage; an untracked nested repository as `folder/`.
  return [...new Set(listed)].filter((path) => !path.endsWith("/"));
}

/** Every file below the root that the `.gitignore` files keep, without following links. */
async function walk(scan: Scan): Promise<string[]> {
  const found: string[] = [];
  const visit = async (folder: string, rules: IgnoreLevel[]): Promise<void> => {
    checkTime(scan);
    if (folder !== "" && !isRealFolder(scan, folder)) return;
    const absolute = join(scan.root, folder);
    let children: Dirent[];
    try {
      children = await readdir(absolute, { withFileTypes: true });
    } catch (error) {
      throw new Refused(`cannot list ${folder || "."}: ${codeOf(error)}`);
    }
    const levels = children.some((child) => child.name === ".gitignore" && child.isFile())
      ? [...rules, { base: folder, rules: ignore().add(await readGitignore(join(absolute, ".gitignore"))) }]
      : rules;
    for (const child of children) {
      const path = folder === "" ? child.name : `${folder}/${child.name}`;
      if (child.name.includes("\uFFFD"))
        throw new Refused(`a file name in ${folder || "."} is not valid UTF-8`);
      if (GENERATED.has(child.name) || isIgnored(levels, path, child.isDirectory())) continue;
      if (child.isDirectory()) await visit(path, levels);
      else if (found.push(path) > scan.limits.entries) {
        throw new Refused(`over the entries limit (${scan.limits.entries}): more files than that`);
      }
    }
  };
  await visit("", []);
  return found;
}

/** The rules of one `.gitignore`, and the folder (workspace-relative) they are relative to. */
type IgnoreLevel = { base: string; rules: Ignore };

/** Git's order: the deepest `.gitignore` that says anything about the path decides. */
function isIgnored(levels: IgnoreLevel[], path: string, isFolder: boolean): boolean {
  for (let i = levels.length - 1; i >= 0; i--) {
    const level = levels[i] as IgnoreLevel;
    const relativePath = level.base === "" ? path : path.slice(level.base.length + 1);
    const verdict = level.rules.test(isFolder ? `${relativePath}/` : relativePath);
    if (verdict.ignored) return true;
    if (verdict.unignored) return false;
  }
  return false;
}

async function readGitignore(path: string): Promise<string> {
  try {
    return await readFile(path, { encoding: "utf8", flag: constants.O_RDONLY | constants.O_NOFOLLOW });
  } catch (error) {
    throw new Refused(`cannot read ${path}: ${codeOf(error)}`);
  }
}

// ---------------------------------------------------------------------------------------------
// The fast path: HEAD's listing, with the paths git status names read from disk.

async function fastOrFull(scan: Scan): Promise<{ fingerprint: Fingerprint; path: "fast" | "full" }> {
  const git = gitIn(scan);
  // The repository's filter and diff drivers are read once for this fingerprint, meanwhile.
  const [head, pinned] = await Promise.all([
    git(["rev-parse", "--show-prefix", "--quiet", "--verify", "HEAD^{commit}"], [0, 1]),
    pinDrivers(runner, scan.root, { timeoutMs: Math.max(1, remainingMs(scan)) }),
  ]);
  // The workspace's folder in the repository ("" at the top, else ending in "/"), then HEAD's
  // commit, missing (exit code 1) before the first commit: then there is nothing to compare with.
  const [prefix = "", commit = ""] = head.toString("utf8").split("\n");
  if (commit === "") return { fingerprint: await fullScan(scan), path: "full" };

  // The stat cache git status relies on is pi-quests' private index, refreshed by pi-quests;
  // the runner forces the strict stat checks and no file-system monitor. Filters are no-ops and
  // line endings are not converted, so git compares the bytes.
  const [unchanged, status, others, converted] = await inPrivateIndex(
    scan,
    (indexed, listing) => {
      const files = headFiles(listing.tree, prefix);
      return Promise.all([
        files,
        indexed([...STATUS, "--", "."]),
        indexed([...UNTRACKED, "--", "."]),
        convertedFiles(indexed, [...files.keys()]),
      ]);
    },
    { refresh: "by-use", commit, driversPinned: true },
    pinned,
  );
  checkTime(scan);
  const reread = new Set<string>();
  for (const change of [...statusChanges(status), ...untrackedChanges(others)]) {
    const path = change.path.slice(prefix.length);
    unchanged.delete(path);
    if (change.kept) reread.add(path);
  }
  // Unchanged files whose blob may hold other bytes than the disk (attributes text, eol, filter...)
  // are read. The private index has no skip-worktree, assume-unchanged or intent-to-add entry.
  for (const path of converted) if (unchanged.delete(path)) reread.add(path);

  // An unchanged file's bytes are HEAD's blob: its size (for the limits) comes from the disk.
  // One that vanished or changed kind since status looked is read like a changed one.
  const entries: Entry[] = [];
  await inSlices(
    scan,
    [...unchanged.values()].filter((entry) => !isGenerated(entry.path)),
    (head) => {
      const seen = inspect(scan, head.path);
      if (seen && seen.mode === head.mode) entries.push({ ...head, size: seen.size });
      else reread.add(head.path);
    },
  );
  await inSlices(scan, [...reread], (path) => {
    // `folder/`: an untracked nested repository, which git does not look into.
    const entry = path.endsWith("/") || isGenerated(path) ? null : inspect(scan, path);
    if (entry) entries.push(entry);
  });

  return { fingerprint: await finish(scan, entries), path: "fast" };
}

/** Tracked changes; untracked files come from UNTRACKED, which reads only the `.gitignore` files. */
const STATUS = [
  "status",
  "--porcelain=v2",
  "-z",
  "--untracked-files=no",
  "--no-renames",
  "--ignore-submodules=all",
];
const UNTRACKED = ["ls-files", "-z", "--others", "--exclude-per-directory=.gitignore", "--full-name"];

/** Untracked files (repository-relative) are members. */
function* untrackedChanges(others: Buffer): Generator<{ path: string; kept: boolean }> {
  for (const path of splitNul(others)) yield { path, kept: true };
}

/** HEAD's files below `prefix` (the workspace), by workspace-relative path; gitlinks left out. */
function headFiles(tree: Buffer, prefix: string): Map<string, Entry> {
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
function* statusChanges(status: Buffer): Generator<{ path: string; kept: boolean }> {
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
async function convertedFiles(git: Git, paths: string[]): Promise<string[]> {
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

// ---------------------------------------------------------------------------------------------
// Reading files, and the fingerprint itself.

/**
 * What `path` is on disk: a file or link entry, or null when it counts for nothing (gone, a
 * folder, or reached through a link). A fifo, socket or device refuses the fingerprint.
 */
function inspect(scan: Scan, path: string): Entry | null {
  const folder = dirname(path);
  if (folder !== "." && !isRealFolder(scan, folder)) return null;
  let stats: Stats;
  try {
    stats = lstatSync(join(scan.root, path));
  } catch (error) {
    if (isMissing(error)) return null;
    throw new Refused(`cannot read ${path}: ${codeOf(error)}`);
  }
  if (stats.isDirectory()) return null;
  if (stats.isSymbolicLink()) return { path, mode: "120000", size: stats.size };
  if (stats.isFile()) return { path, mode: modeOf(stats), size: stats.size };
  throw new Refused(`${path} is not a regular file or a symbolic link`);
}

/** Git's rule: executable when the owner may execute it (git status sees no other bit). */
const modeOf = (stats: Stats): Mode => (stats.mode & 0o100 ? "100755" : "100644");

/**
 * Whether `folder` (workspace-relative) is a real folder below the root with no symbolic link
 * on the way. Git treats a path through a link as gone, and a link may lead outside.
 */
function isRealFolder(scan: Scan, folder: string): boolean {
  let known = scan.folders.get(folder);
  if (known === undefined) {
    const expected = join(scan.root, folder);
    try {
      known = realpathSync.native(expected) === expected;
    } catch (error) {
      if (!isMissing(error)) throw new Refused(`cannot open ${folder}: ${codeOf(error)}`);
      known = false;
    }
    scan.folders.set(folder, known);
  }
  return known;
}

const isMissing = (error: unknown) => ["ENOENT", "ENOTDIR"].includes(codeOf(error));

/** Checks the limits in a fixed order, reads what is not yet read, and hashes the sorted list. */
async function finish(scan: Scan, entries: Entry[]): Promise<Fingerprint> {
  const { limits } = scan;
  const keyed = entries.map((entry) => ({ entry, key: Buffer.from(entry.path, "utf8") }));
  keyed.sort((a, b) => Buffer.compare(a.key, b.key));
  const sorted = keyed.map(({ entry }) => entry);

  if (sorted.length > limits.entries) {
    throw new Refused(`over the entries limit (${limits.entries}): ${sorted.length} files`);
  }
  for (const entry of sorted) checkFileSize(scan, entry.path, entry.size);
  checkTotal(scan, sorted);

  await inSlices(scan, sorted, (entry) => {
    if (entry.blob === undefined) read(scan, entry);
  });
  // A file may have grown between lstat and read.
  const bytes = checkTotal(scan, sorted);
  checkTime(scan);

  const hash = createHash("sha256");
  for (const entry of sorted) hash.update(`${entry.mode} ${entry.blob} ${entry.path}\n`);
  return { algorithm: "git-blob-sha1+sha256", value: hash.digest("hex"), entries: sorted.length, bytes };
}

function checkFileSize(scan: Scan, path: string, size: number): void {
  if (size > scan.limits.fileBytes) {
    throw new Refused(`over the fileBytes limit (${scan.limits.fileBytes}): ${path} is ${size} bytes`);
  }
}

function checkTotal(scan: Scan, entries: Entry[]): number {
  const total = entries.reduce((sum, entry) => sum + entry.size, 0);
  if (total > scan.limits.bytes) {
    throw new Refused(
      `over the bytes limit (${scan.limits.bytes}): ${total} bytes in ${entries.length} files`,
    );
  }
  return total;
}

/** Reads one entry's content (a link's target, never what it points to) and sets its blob id. */
function read(scan: Scan, entry: Entry): void {
  const absolute = join(scan.root, entry.path);
  try {
    if (entry.mode === "120000") {
      const target = readlinkSync(absolute, { encoding: "buffer" });
      entry.size = target.length;
      entry.blob = gitBlobId(target);
      return;
    }
    // O_NOFOLLOW: a file swapped for a link since lstat fails instead of being followed;
    // O_NONBLOCK: one swapped for a fifo cannot hang the open.
    const fd = openSync(absolute, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
    try {
      const stats = fstatSync(fd);
      if (!stats.isFile()) throw new Refused(`${entry.path} is not a regular file`);
      checkFileSize(scan, entry.path, stats.size);
      const content = Buffer.allocUnsafe(stats.size);
      for (let filled = 0; filled < content.length; ) {
        const bytesRead = readSync(fd, content, filled, content.length - filled, filled);
        if (bytesRead === 0) throw new Refused(`${entry.path} changed while it was read`);
        filled += bytesRead;
      }
      entry.mode = modeOf(stats);
      entry.size = content.length;
      entry.blob = gitBlobId(content);
    } finally {
      closeSync(fd);
    }
  } catch (error) {
    if (error instanceof Refused) throw error;
    throw new Refused(`cannot read ${entry.path}: ${codeOf(error)}`);
  }
}

/** Runs `work` on every item, yielding to the event loop (and checking the clock) every SLICE_MS. */
async function inSlices<T>(scan: Scan, items: readonly T[], work: (item: T) => void): Promise<void> {
  let sliceStart = performance.now();
  for (const item of items) {
    work(item);
    if (performance.now() - sliceStart > SLICE_MS) {
      checkTime(scan);
      await new Promise((resolve) => setImmediate(resolve));
      sliceStart = performance.now();
    }
  }
  checkTime(scan);
}

// ---------------------------------------------------------------------------------------------
// Git, through pi-quests' hardened runner: read-only for the learner's repository.

/** Runs git in the workspace; throws GitFailed on an exit code not in `okCodes`. */
type Git = (args: string[], okCodes?: number[], input?: string) => Promise<Buffer>;

const runner = createGitRunner();

const remainingMs = (scan: Scan) => scan.limits.milliseconds - (performance.now() - scan.started);

function gitIn(scan: Scan, git: GitRunner = runner): Git {
  return async (args, okCodes = [0], input) => {
    checkTime(scan);
    const remaining = scan.limits.milliseconds - (performance.now() - scan.started);
    const result = await git(args, {
      cwd: scan.root,
      ...(input === undefined ? {} : { input }),
      okExitCodes: okCodes,
      timeoutMs: remaining,
    });
    if (result.ok) return result.stdout;
    if (result.kind === "timeout") checkTime(scan);
    throw new GitFailed(result.message);
  };
}

/** Runs `work` with git reading pi-quests' private index of the workspace's repository. */
async function inPrivateIndex<T>(
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

function splitNul(output: Buffer): string[] {
  // A name in another encoding would be decoded into one no file has: refuse rather than miss it.
  if (!isUtf8(output)) throw new Refused("git lists a file name that is not valid UTF-8");
  return output.toString("utf8").split("\0").filter(Boolean);
}

// ---------------------------------------------------------------------------------------------
// The same value for a listing someone else read (the task verifier's run, from its worktree).

/** Whether the fingerprint leaves `path` (slash-separated, workspace-relative) out: a generated folder is on its way. */
export function inGeneratedFolder(path: string): boolean {
  return isGenerated(path);
}

export type ListedFile = { path: string; mode: Mode; blob: string; size: number };

/**
 * The fingerprint of files already listed and hashed, by the contract above: entries in a
 * generated folder left out, the same limits (but the clock), the same sorted lines.
 */
export function fingerprintOfListing(
  files: Iterable<ListedFile>,
  limits: Omit<FingerprintLimits, "milliseconds"> = FINGERPRINT_LIMITS,
): { ok: true; fingerprint: Fingerprint } | { ok: false; reason: string } {
  const keyed = [...files]
    .filter((file) => !isGenerated(file.path))
    .map((file) => ({ file, key: Buffer.from(file.path, "utf8") }));
  keyed.sort((a, b) => Buffer.compare(a.key, b.key));
  if (keyed.length > limits.entries)
    return { ok: false, reason: `over the entries limit (${limits.entries}): ${keyed.length} files` };
  let bytes = 0;
  const hash = createHash("sha256");
  for (const { file } of keyed) {
    if (file.size > limits.fileBytes)
      return {
        ok: false,
        reason: `over the fileBytes limit (${limits.fileBytes}): ${file.path} is ${file.size} bytes`,
      };
    bytes += file.size;
    hash.update(`${file.mode} ${file.blob} ${file.path}\n`);
  }
  if (bytes > limits.bytes)
    return {
      ok: false,
      reason: `over the bytes limit (${limits.bytes}): ${bytes} bytes in ${keyed.length} files`,
    };
  return {
    ok: true,
    fingerprint: {
      algorithm: "git-blob-sha1+sha256",
      value: hash.digest("hex"),
      entries: keyed.length,
      bytes,
    },
  };
}
