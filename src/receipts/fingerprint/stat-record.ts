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
 *   could change again with the same timestamps. So every recorded timestamp must be older than
 *   the scan's start minus RACY_WINDOW_MS, or there is no record: then nothing recorded changed
 *   during the scan either, and anything that changes after it gets a later ctime.
 * - Only local Linux file systems whose timestamps the kernel sets from this machine's clock, and
 *   every recorded path on the workspace's device: a network or FUSE mount keeps its own.
 */
import { lstatSync, readdirSync, realpathSync, type Stats, statfsSync } from "node:fs";
import { isAbsolute, join } from "node:path";
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
 * How much older than the scan's start every recorded timestamp must be. At least the coarsest
 * granularity of the trusted file systems (whole seconds: ext4 with small inodes) and the
 * kernel's clock tick; a file changed less than this before the scan takes the full path.
 */
export const RACY_WINDOW_MS = 2_000;

/** More folders than this below a workspace (ignored ones count): no record. */
export const MAX_RECORDED_FOLDERS = 20_000;

/** statfs f_type of the file systems whose ctime the kernel keeps (linux/magic.h). */
const TRUSTED_FILE_SYSTEMS = new Set([
  0xef53, // ext2, ext3, ext4
  0x58465342, // xfs
  0x9123683e, // btrfs
  0x01021994, // tmpfs
  0x794c7630, // overlayfs
  0x2fc12fc1, // zfs
  0xf2f52010, // f2fs
  0xca451a4e, // bcachefs
]);

/** Between two slices of lstat calls, the event loop runs (as the scan's slices do). */
const SLICE_MS = 10;

export type StatRecord = {
  /** The workspace's real path. */
  readonly root: string;
  readonly limits: FingerprintLimits;
  readonly fingerprint: Fingerprint;
  /** The recorded paths: relative to the root, or absolute (the repository's files). */
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

/** The record of a scan that just took `scanned`; undefined when the scan cannot be vouched for by stat. */
export function recordOf(scan: Scan, scanned: Scanned): StatRecord | undefined {
  try {
    return record(scan, scanned);
  } catch (error) {
    // A folder that cannot be listed, a file gone meanwhile: no record, never a wrong one.
    if (error instanceof NotRecordable || isFileSystemError(error)) return undefined;
    throw error;
  }
}

function record(scan: Scan, { fingerprint, entries }: Scanned): StatRecord | undefined {
  if (process.platform !== "linux" || !TRUSTED_FILE_SYSTEMS.has(statfsSync(scan.root).type)) return undefined;
  const repository = repositoryFiles(scan.root);
  if (repository === undefined) return undefined;
  const device = lstatSync(scan.root).dev;
  const cutoff = scan.startedAt - RACY_WINDOW_MS;
  const seenOf = new Map<string, Stats | undefined>();
  const keep = (path: string, seen: Stats | undefined) => {
    if (seen !== undefined && (seen.dev !== device || seen.mtimeMs >= cutoff || seen.ctimeMs >= cutoff))
      throw new NotRecordable();
    seenOf.set(path, seen);
  };
  for (const entry of entries) {
    if (entry.seen === undefined) return undefined;
    keep(entry.path, entry.seen);
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
 * `.gitignore` and `.gitattributes` files in them. Ignored folders too: which folders git skips
 * is decided by rules that may change, and recording more only sends more changes to the full path.
 */
function keepFolders(scan: Scan, keep: (path: string, seen: Stats) => void): void {
  const pending = [""];
  let count = 0;
  for (let folder = pending.pop(); folder !== undefined; folder = pending.pop()) {
    if (++count > MAX_RECORDED_FOLDERS || remainingMs(scan) <= 0) throw new NotRecordable();
    const absolute = folder === "" ? scan.root : join(scan.root, folder);
    keep(folder === "" ? "." : folder, lstatSync(absolute));
    for (const child of readdirSync(absolute, { withFileTypes: true })) {
      // A name that is not valid UTF-8 reads as another name, which lstat would not find.
      if (child.name.includes("\uFFFD")) throw new NotRecordable();
      const path = folder === "" ? child.name : `${folder}/${child.name}`;
      if (child.isDirectory()) {
        if (!isGeneratedName(child.name)) pending.push(path);
      } else if (child.name === ".gitignore" || child.name === ".gitattributes") {
        keep(path, lstatSync(join(scan.root, path)));
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
  if (!sameLimits(record.limits, limits)) return undefined;
  let root: string;
  try {
    root = realpathSync.native(workspace);
  } catch {
    return undefined;
  }
  if (root !== record.root) return undefined;
  const { paths, stats } = record;
  let sliceStart = performance.now();
  for (let at = 0; at < paths.length; at++) {
    const path = paths[at] as string;
    let seen: Stats | undefined;
    try {
      seen = lstatSync(isAbsolute(path) ? path : join(root, path), { throwIfNoEntry: false });
    } catch {
      return undefined;
    }
    if (!sameStat(stats, at, seen)) return undefined;
    if (performance.now() - sliceStart > SLICE_MS) {
      await new Promise((resolve) => setImmediate(resolve));
      sliceStart = performance.now();
    }
  }
  return { ...record.fingerprint };
}

const sameLimits = (a: FingerprintLimits, b: FingerprintLimits) =>
  a.entries === b.entries &&
  a.bytes === b.bytes &&
  a.fileBytes === b.fileBytes &&
  a.milliseconds === b.milliseconds;

const isFileSystemError = (error: unknown) =>
  error instanceof Error && typeof (error as NodeJS.ErrnoException).code === "string";
