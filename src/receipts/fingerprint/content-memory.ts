/**
 * What a file held, as git's blob id, for the lstat it had when it was read: how a look after a
 * tool call tells a file rewritten with the same bytes (its lstat changed, its content did not)
 * from one whose content changed (../changed-paths.ts).
 *
 * A blob remembered for a lstat holds for that lstat only when the file was read past the
 * timestamp granularity of its last change (look.ts: isRacy); a change in the same tick could
 * have left the lstat as it was, as git's racily clean entries. So before a call the memory is
 * brought up to date (`prepare`): a file changed within that granularity, or remembered from a
 * read that was racy, is read now; then what it holds is sure for the call that follows. Reads
 * are bounded per look (READ_BUDGET); a file past the budget is simply not known, and a call
 * that rewrites it is said to change it.
 */

import { readRegularFile } from "./disk.ts";
import { gitBlobId } from "./hash.ts";
import { isRacy, kindOf, type Look, type PathStat, sameStat, statAt } from "./look.ts";
import { FINGERPRINT_LIMITS, Refused } from "./scan.ts";

/** How much one look reads: files, their bytes together, the largest file read. */
export type ReadBudget = { files: number; bytes: number; fileBytes: number };
export const READ_BUDGET: ReadBudget = {
  files: 500,
  bytes: 16 * 1024 * 1024,
  fileBytes: FINGERPRINT_LIMITS.fileBytes,
};

/** Files remembered at most; the oldest read is forgotten first. */
export const MEMORY_ENTRIES = 4096;

type Remembered = { stat: PathStat; blob: string; readAt: number };

export type ContentMemory = {
  /** Reads, within a fresh budget, every file of `look` whose content is not yet sure for its lstat. */
  prepare(look: Look): void;
  /** The blob `path` held with lstat `stat`, when the memory has it. */
  blobOf(path: string, stat: PathStat): string | undefined;
  /** Starts a budget for reads during one comparison. */
  budget(): Reader;
};

/** Reads files for one look, remembering each, until its budget is spent. */
export type Reader = {
  /** `path`'s blob now, when it still has lstat `stat`, is a readable regular file and fits the budget. */
  read(root: string, path: string, stat: PathStat): string | undefined;
};

export function createContentMemory(limits: ReadBudget = READ_BUDGET): ContentMemory {
  const remembered = new Map<string, Remembered>();

  const remember = (path: string, entry: Remembered) => {
    remembered.delete(path);
    remembered.set(path, entry);
    if (remembered.size > MEMORY_ENTRIES) {
      const oldest = remembered.keys().next().value;
      if (oldest !== undefined) remembered.delete(oldest);
    }
  };

  const budget = (): Reader => {
    let files = 0;
    let bytes = 0;
    return {
      read(root, path, stat) {
        if (files >= limits.files || stat.size > limits.fileBytes || bytes + stat.size > limits.bytes)
          return undefined;
        files++;
        bytes += stat.size;
        const readAt = Date.now();
        const blob = blobOfFile(`${root}/${path}`, path, stat, limits.fileBytes);
        if (blob !== undefined) remember(path, { stat, blob, readAt });
        return blob;
      },
    };
  };

  return {
    prepare(look) {
      const reader = budget();
      for (let at = 0; at < look.paths.length; at++) {
        const stat = statAt(look, at);
        if (stat === undefined || kindOf(stat) !== "file") continue;
        const path = look.paths[at] as string;
        const known = remembered.get(path);
        const same = known !== undefined && sameStat(known.stat, stat);
        if (same && !isRacy(stat, known.readAt)) continue;
        if (same || isRacy(stat, look.takenAt)) reader.read(look.root, path, stat);
      }
    },
    blobOf(path, stat) {
      const known = remembered.get(path);
      return known !== undefined && sameStat(known.stat, stat) ? known.blob : undefined;
    },
    budget,
  };
}

/** The blob of the file at `absolute` if it still is the regular file lstat saw; else undefined. */
function blobOfFile(absolute: string, path: string, stat: PathStat, maxBytes: number): string | undefined {
  try {
    const { content, stats } = readRegularFile(absolute, path, (size) => {
      if (size > maxBytes) throw new Refused(`${path} is over ${maxBytes} bytes`);
    });
    // Changed between lstat and the read: these bytes are not the ones that lstat describes.
    return sameStat(stats, stat) ? gitBlobId(content) : undefined;
  } catch {
    return undefined;
  }
}
