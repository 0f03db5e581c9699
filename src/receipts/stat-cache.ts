/**
 * The stat record of a workspace's last fingerprint (receipts/fingerprint/stat-record.ts), kept
 * in the data dir so that a new process can answer an unchanged workspace by lstat alone, with
 * no git. Sealed like every record pi-quests trusts (src/core/seal.ts), scoped to its workspace:
 * a cache the agent wrote or edited does not verify and is not used, so the fingerprint takes
 * the full path. A genuine cache copied back from earlier vouches only for files whose lstat is
 * still what it was then, and a file's ctime cannot be set back.
 *
 * The file: a format line, the seal, a JSON header (the tool, the workspace, the limits, the
 * fingerprint, the sizes and sha256 of the two parts that follow), the recorded paths joined
 * by NUL (relative to the workspace below it, else absolute), then their lstat numbers as 64-bit
 * floats. The seal covers the header, so the digests.
 */
import { createHash, randomBytes } from "node:crypto";
import { rename, rm, writeFile } from "node:fs/promises";
import { z } from "zod";
import { ONE_PARSE } from "../core/one-parse.ts";
import { readRecordFile } from "../core/record-file.ts";
import type { Sealer } from "../core/seal.ts";
import { VERSION } from "../core/version.ts";
import { STAT_FIELDS, type StatRecord } from "./fingerprint.ts";
import { FingerprintSchema } from "./schema.ts";

export const STAT_CACHE_FORMAT = "pi-quests.stat-cache/2";

/**
 * A cache's size at most: the paths (at most the fingerprint's 100,000 entries and 20,000 folders,
 * each at most a few KB long) and 48 bytes of numbers each. Larger is no cache (a FIFO or a link
 * to /dev/zero in its place is none either: src/core/record-file.ts).
 */
const MAX_STAT_CACHE_BYTES = 256 * 1024 * 1024;

export type StatCache = { file: string; sealer: Sealer };

const HeaderSchema = z.strictObject({
  tool: z.string(),
  root: z.string(),
  limits: z.strictObject({
    entries: z.number(),
    bytes: z.number(),
    fileBytes: z.number(),
    milliseconds: z.number(),
  }),
  fingerprint: FingerprintSchema,
  paths: z.number().int().nonnegative(),
  pathBytes: z.number().int().nonnegative(),
  pathsSha256: z.string(),
  statsSha256: z.string(),
});

const sha256 = (bytes: Uint8Array) => createHash("sha256").update(bytes).digest("hex");

/** The cached record, when there is one pi-quests sealed for this workspace; else undefined. */
export function readStatCache(cache: StatCache): StatRecord | undefined {
  const read = readRecordFile(cache.file, MAX_STAT_CACHE_BYTES);
  if (!read.ok) return undefined;
  const file = read.bytes;
  const formatEnd = file.indexOf(10);
  const sealEnd = file.indexOf(10, formatEnd + 1);
  const headerEnd = file.indexOf(10, sealEnd + 1);
  if (formatEnd < 0 || sealEnd < 0 || headerEnd < 0) return undefined;
  if (file.toString("utf8", 0, formatEnd) !== STAT_CACHE_FORMAT) return undefined;
  const headerText = file.toString("utf8", sealEnd + 1, headerEnd);
  if (!cache.sealer.verifyText(headerText, file.toString("utf8", formatEnd + 1, sealEnd))) return undefined;
  let header: z.infer<typeof HeaderSchema>;
  try {
    header = HeaderSchema.parse(JSON.parse(headerText), ONE_PARSE);
  } catch {
    return undefined;
  }
  // Another version of pi-quests may fingerprint by other rules.
  if (header.tool !== VERSION) return undefined;
  const pathsPart = file.subarray(headerEnd + 1, headerEnd + 1 + header.pathBytes);
  const statsPart = file.subarray(headerEnd + 1 + header.pathBytes);
  if (statsPart.length !== header.paths * STAT_FIELDS * 8) return undefined;
  if (sha256(pathsPart) !== header.pathsSha256 || sha256(statsPart) !== header.statsSha256) return undefined;
  const named = header.paths === 0 ? [] : pathsPart.toString("utf8").split("\0");
  if (named.length !== header.paths) return undefined;
  const below = `${header.root}/`;
  const paths = named.map((path) => (path.startsWith("/") ? path : below + path));
  // Copied out: the file's bytes need not be aligned for a Float64Array.
  const stats = new Float64Array(header.paths * STAT_FIELDS);
  Buffer.from(stats.buffer).set(statsPart);
  return { root: header.root, limits: header.limits, fingerprint: header.fingerprint, paths, stats };
}

/**
 * Keeps `record` as the workspace's cache, or, with none, removes the old one (its files have
 * changed, or it would have answered). Best effort: a cache that cannot be written is not used.
 */
export async function writeStatCache(cache: StatCache, record: StatRecord | undefined): Promise<void> {
  try {
    if (record === undefined) {
      await rm(cache.file, { force: true });
      return;
    }
    // Paths below the workspace are kept relative to it, the others (the repository's) absolute.
    const below = `${record.root}/`;
    const named = record.paths.map((path) => (path.startsWith(below) ? path.slice(below.length) : path));
    const pathsPart = Buffer.from(named.join("\0"), "utf8");
    const statsPart = Buffer.from(record.stats.buffer, record.stats.byteOffset, record.stats.byteLength);
    const header = JSON.stringify({
      tool: VERSION,
      root: record.root,
      limits: record.limits,
      fingerprint: record.fingerprint,
      paths: record.paths.length,
      pathBytes: pathsPart.length,
      pathsSha256: sha256(pathsPart),
      statsSha256: sha256(statsPart),
    });
    const head = Buffer.from(`${STAT_CACHE_FORMAT}\n${cache.sealer.sealText(header)}\n${header}\n`, "utf8");
    const temporary = `${cache.file}.${randomBytes(6).toString("hex")}.tmp`;
    // No fsync: a torn file fails its digests and is not used.
    await writeFile(temporary, Buffer.concat([head, pathsPart, statsPart]), { flag: "wx", mode: 0o600 });
    await rename(temporary, cache.file).catch(async (error: unknown) => {
      await rm(temporary, { force: true });
      throw error;
    });
  } catch {
    // The cache is only a shortcut; without it the next process takes the full path.
  }
}
