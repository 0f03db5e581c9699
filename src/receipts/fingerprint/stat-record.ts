/**
 * A fingerprint answered again by lstat alone. The scan that takes a fingerprint lstats every
 * file it covers (disk.ts: inspect); the record keeps what lstat said of each (device, inode,
 * mode, size, mtime, ctime), the same of every folder below the workspace but generated ones (a
 * link is not followed), of the `.gitignore` and `.gitattributes` files met there, and of the
 * repository's files that decide the listing (repository-files.ts), or that nothing was there.
 * `confirmFingerprint` lstats them all again: all equal, the files are the same and so is the
 * fingerprint; anything else gives no answer, and the caller takes the full path.
 *
 * Why equal stat data means the same files (docs/security.md, "The stat recheck"):
 * - Every change to a file (content, mode, links, a rename) sets its ctime to the kernel's
 *   clock. A program can set mtime back (`touch -d`), never ctime: git's own reasoning behind
 *   core.trustctime. A file replaced by another is another inode, with its own ctime.
 * - A name added, removed or renamed changes its folder's mtime and ctime. Every folder git could
 *   list a file from is recorded (every folder, ignored ones too), so a new untracked file or
 *   folder anywhere is seen; a changed `.gitignore`, HEAD, ref or config is seen by its own stat.
 * - The racy window: a file changed within the file system's timestamp granularity of the scan
 *   could change again with the same timestamps; and a write through a shared memory mapping
 *   (mmap) sets ctime only when its page goes from clean to dirty, so while the page waits for
 *   writeback more writes change the bytes and no timestamp. So every recorded timestamp must be
 *   older than the scan's start minus the racy window (racyWindowMs: the granularity, plus the
 *   kernel's writeback delay for dirty pages, plus a margin), or there is no record: then nothing
 *   recorded changed during the scan, no page of a recorded file is still dirty from a write
 *   before it, and anything that changes after it gets a later ctime.
 * - Only local Linux file systems whose timestamps the kernel sets from this machine's clock and
 *   whose pages are written back (not tmpfs, where a mapped page never is; not overlayfs, whose
 *   upper layer may be tmpfs), and every recorded path on the workspace's device: a network or
 *   FUSE mount keeps its own.
 */
import { lstatSync, readdirSync, readFileSync, realpathSync, type Stats, statfsSync } from "node:fs";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import type { Fingerprint } from "../schema.ts";
import { repositoryFiles } from "./repository-files.ts";
import {
  FINGERPRINT_LIMITS,
  type FingerprintLimits,
  isGeneratedName,
  remainingMs,
  type Scan,
  type Scanned,
} from "./scan.ts";

/**
 * The coarsest timestamp granularity of the trusted file systems (whole seconds: ext4 with small
 * inodes), with the kernel's clock tick, rounded up.
 */
export const TIMESTAMP_GRANULARITY_MS = 2_000;

/** Beyond the writeback delay, for a flusher that runs late. */
const WRITEBACK_MARGIN_MS = 5_000;

/**
 * How much older than the scan's start every recorded timestamp must be: the granularity, plus
 * how long a dirty page may wait for writeback (vm.dirty_expire_centisecs, then up to one period
 * of the flusher, vm.dirty_writeback_centisecs), plus a margin; 42 s with the kernel's defaults.
 * Undefined when the kernel does not say, or never writes dirty pages back on its own: no record.
 */
export function racyWindowMs(): number | undefined {
  const expire = centiseconds("/proc/sys/vm/dirty_expire_centisecs");
  const period = centiseconds("/proc/sys/vm/dirty_writeback_centisecs");
  if (expire === undefined || period === undefined || period === 0) return undefined;
  return TIMESTAMP_GRANULARITY_MS + (expire + period) * 10 + WRITEBACK_MARGIN_MS;
}

function centiseconds(file: string): number | undefined {
  try {
    const value = Number(readFileSync(file, "utf8").trim());
    return Number.isSafeInteger(value) && value >= 0 ? value : undefined;
  } catch {
    return undefined;
  }
}

/** More folders than this below a workspace (ignored ones count): no record. */
export const MAX_RECORDED_FOLDERS = 20_000;

/**
 * statfs f_type (linux/magic.h) of the file systems whose ctime the kernel keeps for every write,
 * a write fault of a mapped page included (their page_mkwrite updates it), and whose dirty pages
 * are written back.
 */
const TRUSTED_FILE_SYSTEMS = new Set([
  0xef53, // ext2, ext3, ext4
  0x58465342, // xfs
  0x9123683e, // btrfs
  0xf2f52010, // f2fs
]);

/** Whether fingerprints of a workspace at `folder` can leave a stat record (its file system and system). */
export function recordableFileSystem(folder: string): boolean {
  if (process.platform !== "linux") return false;
  try {
    return TRUSTED_FILE_SYSTEMS.has(statfsSync(folder).type);
  } catch {
    return false;
  }
}

/** Between two slices of lstat calls, the event loop runs (as the scan's slices do). */
const SLICE_MS = 10;

export type StatRecord = {
  /** The workspace's real path. */
  readonly root: string;
  readonly limits: FingerprintLimits;
  readonly fingerprint: Fingerprint;
  /** The recorded paths, absolute. */
  readonly paths: readonly string[];
  /** STAT_FIELDS numbers a path, in the order of `paths`: what lstat said, or NaN (nothing there). */
  readonly stats: Float64Array;
};

/**
 * What the record compares of a path's lstat: device, inode, mode (type and permissions), size,
 * mtime, ctime. Timestamps as lstat gives them (ms, a fraction for the ns): any change after the
 * scan is at least the racy window later than a recorded one, far beyond a double's precision.
 */
export const STAT_FIELDS = 6;

function setStat(stats: Float64Array, at: number, seen: Stats | undefined): void {
  const o = at * STAT_FIELDS;
  if (seen === undefined) {
    stats.fill(Number.NaN, o, o + STAT_FIELDS);
    return;
  }
  stats[o] = seen.dev;
  stats[o + 1] = seen.ino;
  stats[o + 2] = seen.mode;
  stats[o + 3] = seen.size;
  stats[o + 4] = seen.mtimeMs;
  stats[o + 5] = seen.ctimeMs;
}

/** Whether lstat says now what the record holds at `at` (NaN: that nothing is there). */
function sameStat(stats: Float64Array, at: number, seen: Stats | undefined): boolean {
  const o = at * STAT_FIELDS;
  if (seen === undefined) return Number.isNaN(stats[o]);
  return (
    stats[o + 5] === seen.ctimeMs &&
    stats[o + 4] === seen.mtimeMs &&
    stats[o + 3] === seen.size &&
    stats[o + 1] === seen.ino &&
    stats[o + 2] === seen.mode &&
    stats[o] === seen.dev
  );
}

/** A timestamp within the racy window, or a path on another device, makes the scan unrecordable. */
class NotRecordable extends Error {}

/**
 * The record of a scan that just took `scanned`; undefined when the scan cannot be vouched for by
 * stat. `windowMs` is the racy window (absent: racyWindowMs; a test may narrow it to the granularity).
 */
export function recordOf(scan: Scan, scanned: Scanned, windowMs = racyWindowMs()): StatRecord | undefined {
  if (windowMs === undefined || !recordableFileSystem(scan.root)) return undefined;
  try {
    return record(scan, scanned, windowMs);
  } catch (error) {
    // A folder that cannot be listed, a file gone meanwhile: no record, never a wrong one.
    if (error instanceof NotRecordable || isFileSystemError(error)) return undefined;
    throw error;
  }
}

function record(scan: Scan, { fingerprint, entries }: Scanned, windowMs: number): StatRecord | undefined {
  const repository = repositoryFiles(scan.root);
  if (repository === undefined) return undefined;
  const device = lstatSync(scan.root).dev;
  const cutoff = scan.startedAt - windowMs;
  const seenOf = new Map<string, Stats | undefined>();
  const keep = (path: string, seen: Stats | undefined) => {
    if (seen !== undefined && (seen.dev !== device || seen.mtimeMs >= cutoff || seen.ctimeMs >= cutoff))
      throw new NotRecordable();
    seenOf.set(path, seen);
  };
  for (const entry of entries) {
    if (entry.seen === undefined) return undefined;
    keep(join(scan.root, entry.path), entry.seen);
  }
  keepFolders(scan, keep);
  for (const path of repository) keep(path, lstatSync(path, { throwIfNoEntry: false }));
  const paths = [...seenOf.keys()];
  const stats = new Float64Array(paths.length * STAT_FIELDS);
  for (const [at, path] of paths.entries()) setStat(stats, at, seenOf.get(path));
  return { root: scan.root, limits: { ...scan.limits }, fingerprint: { ...fingerprint }, paths, stats };
}

/**
 * Every folder below the root (not into a generated folder or through a link), and the
 * `.gitignore` and `.gitattributes` files in them; a nested repository (a `.git` below the root)
 * makes the scan unrecordable. Ignored folders too: which folders git skips
 * is decided by rules that may change, and recording more only sends more changes to the full path.
 */
function keepFolders(scan: Scan, keep: (path: string, seen: Stats) => void): void {
  const pending = [""];
  let count = 0;
  for (let folder = pending.pop(); folder !== undefined; folder = pending.pop()) {
    if (++count > MAX_RECORDED_FOLDERS || remainingMs(scan) <= 0) throw new NotRecordable();
    const absolute = folder === "" ? scan.root : join(scan.root, folder);
    keep(absolute, lstatSync(absolute));
    for (const child of readdirSync(absolute, { withFileTypes: true })) {
      // A name that is not valid UTF-8 reads as another name, which lstat would not find.
      if (child.name.includes("\uFFFD")) throw new NotRecordable();
      // A `.git` below the root makes its folder a nested repository, or not, by what lies inside
      // it or where a `.git` file points, none of it recorded: whether its files are listed could
      // change with no recorded stat changing.
      if (child.name === ".git" && folder !== "") throw new NotRecordable();
      const path = folder === "" ? child.name : `${folder}/${child.name}`;
      if (child.isDirectory()) {
        if (!isGeneratedName(child.name)) pending.push(path);
      } else if (child.name === ".gitignore" || child.name === ".gitattributes") {
        keep(join(absolute, child.name), lstatSync(join(absolute, child.name)));
      }
    }
  }
}

/**
 * The record's fingerprint when `workspace` is still the recorded folder and lstat says the same
 * of every recorded path; undefined otherwise (the caller then takes the fingerprint anew).
 */
export async function confirmFingerprint(
  record: StatRecord,
  workspace: string,
  limits: FingerprintLimits = FINGERPRINT_LIMITS,
): Promise<Fingerprint | undefined> {
  if (!recordFits(record, workspace, limits)) return undefined;
  const { paths, stats } = record;
  let sliceStart = performance.now();
  for (let at = 0; at < paths.length; at++) {
    let seen: Stats | undefined;
    try {
      seen = lstatSync(paths[at] as string, IF_ANY);
    } catch {
      return undefined;
    }
    if (!sameStat(stats, at, seen)) return undefined;
    if ((at & 1023) === 1023 && performance.now() - sliceStart > SLICE_MS) {
      await new Promise((resolve) => setImmediate(resolve));
      sliceStart = performance.now();
    }
  }
  return { ...record.fingerprint };
}

/**
 * Whether `record` is of the folder `workspace` is now (its real path) and was taken with these
 * limits: what a record must be before its paths are looked at, or its fingerprint presumed.
 */
export function recordFits(record: StatRecord, workspace: string, limits: FingerprintLimits): boolean {
  if (!sameLimits(record.limits, limits)) return false;
  try {
    return realpathSync.native(workspace) === record.root;
  } catch {
    return false;
  }
}

/** lstat's options for a path that may be gone: undefined, not an error. */
const IF_ANY = { throwIfNoEntry: false } as const;

const sameLimits = (a: FingerprintLimits, b: FingerprintLimits) =>
  a.entries === b.entries &&
  a.bytes === b.bytes &&
  a.fileBytes === b.fileBytes &&
  a.milliseconds === b.milliseconds;

const isFileSystemError = (error: unknown) =>
  error instanceof Error && typeof (error as NodeJS.ErrnoException).code === "string";
