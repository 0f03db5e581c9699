/**
 * A workspace's fingerprints, one after another, each looking at the files again. When the last
 * fingerprint left a stat record (this process's, else the sealed cache of the data dir) and
 * lstat finds every path it rests on unchanged, that fingerprint answers, with path `stat`;
 * otherwise the fingerprint is taken as always (git's listing, or the full walk) and its record
 * replaces the last. Every call looks: a fingerprint is never answered from memory alone, so
 * the recheck before a pass is published still sees an edit made after the evaluation began.
 */
import {
  confirmFingerprint,
  FINGERPRINT_LIMITS,
  type FingerprintLimits,
  type FingerprintOutcome,
  type RecordOptions,
  recordedFingerprint,
  recordFits,
  type StatRecord,
} from "./fingerprint.ts";
import type { Fingerprint } from "./schema.ts";
import { readStatCache, type StatCache, writeStatCache } from "./stat-cache.ts";

/**
 * Takes a fingerprint (a look at the files); `presume` gives the last one's without looking, for
 * a caller that only chooses with it and looks before it counts (ReceiptPortOptions.presume).
 */
export type Fingerprinter = ((workspace: string) => Promise<FingerprintOutcome>) & {
  presume(workspace: string): Fingerprint | undefined;
};

export type FingerprinterOptions = {
  /** The sealed cache in the data dir, read once when there is no record in memory yet. */
  cache?: StatCache;
  limits?: FingerprintLimits;
} & RecordOptions;

export function createFingerprinter(options: FingerprinterOptions = {}): Fingerprinter {
  const limits = options.limits ?? FINGERPRINT_LIMITS;
  let last: StatRecord | undefined;
  let cacheRead = options.cache === undefined;
  const lastRecord = () => {
    if (!cacheRead && options.cache) {
      cacheRead = true;
      last ??= readStatCache(options.cache);
    }
    return last;
  };
  const take = async (workspace: string): Promise<FingerprintOutcome> => {
    const record = lastRecord();
    const confirmed = record && (await confirmFingerprint(record, workspace, limits));
    if (confirmed) return { ok: true, fingerprint: confirmed, path: "stat" };
    const taken = await recordedFingerprint(workspace, limits, options);
    last = taken.record;
    if (options.cache) await writeStatCache(options.cache, taken.record);
    return taken.outcome;
  };
  const presume = (workspace: string): Fingerprint | undefined => {
    const record = lastRecord();
    return record && recordFits(record, workspace, limits) ? { ...record.fingerprint } : undefined;
  };
  return Object.assign(take, { presume });
}
