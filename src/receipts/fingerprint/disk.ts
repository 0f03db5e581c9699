/**
 * Reading the workspace's files for the fingerprint: what a path is on disk, its content (a
 * link's target, never what it points to), and the last step, which reads what neither path
 * has read yet and hashes the sorted list.
 */
import {
  closeSync,
  constants,
  fstatSync,
  lstatSync,
  openSync,
  readlinkSync,
  readSync,
  realpathSync,
  type Stats,
} from "node:fs";
import { dirname, join } from "node:path";
import type { Fingerprint } from "../schema.ts";
import { fingerprintOf, gitBlobId, sortedByPath } from "./hash.ts";
import {
  checkFileSize,
  checkTime,
  checkTotal,
  codeOf,
  type Entry,
  inSlices,
  type Mode,
  Refused,
  type Scan,
} from "./scan.ts";

/**
 * What `path` is on disk: a file or link entry, or null when it counts for nothing (gone, a
 * folder, or reached through a link). A fifo, socket or device refuses the fingerprint.
 */
export function inspect(scan: Scan, path: string): Entry | null {
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
  if (stats.isSymbolicLink()) return { path, mode: "120000", size: stats.size, seen: stats };
  if (stats.isFile()) return { path, mode: modeOf(stats), size: stats.size, seen: stats };
  throw new Refused(`${path} is not a regular file or a symbolic link`);
}

/** Git's rule: executable when the owner may execute it (git status sees no other bit). */
export const isExecutable = (mode: number): boolean => (mode & 0o100) !== 0;

const modeOf = (stats: Stats): Mode => (isExecutable(stats.mode) ? "100755" : "100644");

/**
 * Whether `folder` (workspace-relative) is a real folder below the root with no symbolic link
 * on the way. Git treats a path through a link as gone, and a link may lead outside.
 */
export function isRealFolder(scan: Scan, folder: string): boolean {
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
export async function finish(scan: Scan, entries: Entry[]): Promise<Fingerprint> {
  const { limits } = scan;
  const sorted = sortedByPath(entries);

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
  return fingerprintOf(sorted, bytes);
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
    const { content, stats } = readRegularFile(absolute, entry.path, (size) =>
      checkFileSize(scan, entry.path, size),
    );
    entry.mode = modeOf(stats);
    entry.size = content.length;
    entry.blob = gitBlobId(content);
  } catch (error) {
    if (error instanceof Refused) throw error;
    throw new Refused(`cannot read ${entry.path}: ${codeOf(error)}`);
  }
}

/**
 * The bytes of the regular file at `absolute` (`path` names it in a refusal), never through a
 * link and never blocking; `checkSize` sees its size before it is read and throws to refuse it.
 * A file that shrinks while it is read is refused; any other failure is the system's error.
 */
export function readRegularFile(
  absolute: string,
  path: string,
  checkSize: (size: number) => void,
): { content: Buffer; stats: Stats } {
  // O_NOFOLLOW: a file swapped for a link since lstat fails instead of being followed;
  // O_NONBLOCK: one swapped for a fifo cannot hang the open.
  const fd = openSync(absolute, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  try {
    const stats = fstatSync(fd);
    if (!stats.isFile()) throw new Refused(`${path} is not a regular file`);
    checkSize(stats.size);
    const content = Buffer.allocUnsafe(stats.size);
    for (let filled = 0; filled < content.length; ) {
      const bytesRead = readSync(fd, content, filled, content.length - filled, filled);
      if (bytesRead === 0) throw new Refused(`${path} changed while it was read`);
      filled += bytesRead;
    }
    return { content, stats };
  } finally {
    closeSync(fd);
  }
}
