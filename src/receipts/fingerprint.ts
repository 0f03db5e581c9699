/**
 * Content fingerprints, which receipts are keyed by. The contract for both paths, which must give
 * the same value:
 * - the files: non-ignored names (tracked files, and untracked files git does not ignore; without
 *   git, every file the .gitignore files do not exclude), outside the generated folders below;
 * - per file: its mode (100644, 100755 or 120000) and git's blob id of its content (for a
 *   symbolic link, of the link's target; a link is never followed);
 * - the fingerprint: sha256 of the sorted `mode blob path` lines;
 * - limits: 100,000 entries, 128 MiB, 4 MiB a file, 5 s; over any of them, or on a read error,
 *   there is no fingerprint.
 *
 * The parts live in ./fingerprint/: the scan and its limits (scan.ts), the fast path over git's
 * listing and pi-quests' private index (fast.ts, listings.ts), the full walk (full.ts) and its
 * ignore rules (ignore.ts), the disk reads (disk.ts), git (git.ts) and the hash (hash.ts); the
 * stat record that answers a fingerprint again by lstat alone (stat-record.ts, repository-files.ts).
 */
import { fastOrFull } from "./fingerprint/fast.ts";
import { fullScan } from "./fingerprint/full.ts";
import {
  FINGERPRINT_LIMITS,
  type Fingerprinted,
  type FingerprintLimits,
  type FingerprintOutcome,
  GitFailed,
  Refused,
  type Scan,
  type Scanned,
  startScan,
} from "./fingerprint/scan.ts";
import { copyFingerprinted, fingerprintOfCopy } from "./fingerprint/snapshot.ts";
import { recordOf, type StatRecord } from "./fingerprint/stat-record.ts";

export { fingerprintOfListing, gitBlobId, inGeneratedFolder, type ListedFile } from "./fingerprint/hash.ts";
export {
  FINGERPRINT_LIMITS,
  type FingerprintLimits,
  type FingerprintOutcome,
  GENERATED_FOLDERS,
} from "./fingerprint/scan.ts";
export {
  confirmFingerprint,
  racyWindowMs,
  recordableFileSystem,
  recordFits,
  STAT_FIELDS,
  type StatRecord,
  TIMESTAMP_GRANULARITY_MS,
} from "./fingerprint/stat-record.ts";

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
    return { ...(await fullScan(scan)), path: "full" as const };
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
  return settle(async () => fastOrFullScan(await startScan(workspace, limits)));
}

/**
 * `fingerprint`, and when it can be had, the stat record that answers it again by lstat alone
 * for as long as nothing it rests on changes (`confirmFingerprint`; fingerprint/stat-record.ts).
 */
export async function recordedFingerprint(
  workspace: string,
  limits: FingerprintLimits = FINGERPRINT_LIMITS,
  options: RecordOptions = {},
): Promise<{ outcome: FingerprintOutcome; record?: StatRecord }> {
  let record: StatRecord | undefined;
  const outcome = await settle(async () => {
    const scan = await startScan(workspace, limits);
    const scanned = await fastOrFullScan(scan);
    record = recordOf(scan, scanned, options.racyWindowMs);
    return scanned;
  });
  return outcome.ok && record ? { outcome, record } : { outcome };
}

/** The racy window of the stat record (fingerprint/stat-record.ts: racyWindowMs, the default). */
export type RecordOptions = { racyWindowMs?: number };

async function fastOrFullScan(scan: Scan): Promise<Scanned> {
  try {
    return await fastOrFull(scan);
  } catch (error) {
    if (!(error instanceof GitFailed)) throw error;
    return { ...(await fullScan(scan)), path: "full" as const };
  }
}

/**
 * A copy of the fingerprinted files in `target`, and the copy's fingerprint (what a reviewer
 * reads: fingerprint/snapshot.ts). No fingerprint, and nothing or part copied, over the limits.
 */
export async function snapshotWorkspace(
  workspace: string,
  target: string,
  limits: FingerprintLimits = FINGERPRINT_LIMITS,
): Promise<WorkspaceSnapshot> {
  let paths: string[] = [];
  const taken = await settle(async () => {
    const copied = await copyFingerprinted(workspace, target, limits);
    paths = copied.paths;
    return { fingerprint: copied.fingerprint, path: "full" as const };
  });
  return {
    taken,
    // Read again after the review: a snapshot changed meanwhile judged other files.
    again: () =>
      settle(async () => ({
        fingerprint: await fingerprintOfCopy(target, paths, limits),
        path: "full" as const,
      })),
  };
}

export type WorkspaceSnapshot = { taken: FingerprintOutcome; again(): Promise<FingerprintOutcome> };

/** The outcome of `work`: its fingerprint, or the reason a refusal or a failed git gave. */
async function settle(work: () => Promise<Fingerprinted>): Promise<FingerprintOutcome> {
  try {
    const { fingerprint, path } = await work();
    return { ok: true, fingerprint, path };
  } catch (error) {
    if (error instanceof Refused || error instanceof GitFailed) return { ok: false, reason: error.message };
    throw error;
  }
}
