/**
 * The fingerprint's value: git's blob id per file, and sha256 of the sorted `mode blob path`
 * lines. Nothing here reads the disk, so a listing someone else read (the task verifier's run,
 * from its worktree) gets the same value as a scan of the workspace.
 */
import { createHash } from "node:crypto";
import type { Fingerprint } from "../schema.ts";
import { FINGERPRINT_LIMITS, type FingerprintLimits, isGenerated, type Mode } from "./scan.ts";

/** Git's blob id of `content`: what `git hash-object` prints for a file with these bytes. */
export function gitBlobId(content: Buffer): string {
  return createHash("sha1").update(`blob ${content.length}\0`).update(content).digest("hex");
}

/** The items sorted by the bytes of their UTF-8 path, as git sorts names. */
export function sortedByPath<T extends { path: string }>(items: readonly T[]): T[] {
  const keyed = items.map((item) => ({ item, key: Buffer.from(item.path, "utf8") }));
  keyed.sort((a, b) => Buffer.compare(a.key, b.key));
  return keyed.map(({ item }) => item);
}

/** The fingerprint of entries already sorted, every one with its blob id. */
export function fingerprintOf(
  sorted: readonly { mode: Mode; blob?: string | undefined; path: string }[],
  bytes: number,
): Fingerprint {
  const hash = createHash("sha256");
  for (const entry of sorted) hash.update(`${entry.mode} ${entry.blob} ${entry.path}\n`);
  return { algorithm: "git-blob-sha1+sha256", value: hash.digest("hex"), entries: sorted.length, bytes };
}

/** Whether the fingerprint leaves `path` (slash-separated, workspace-relative) out: a generated folder is on its way. */
export function inGeneratedFolder(path: string): boolean {
  return isGenerated(path);
}

export type ListedFile = { path: string; mode: Mode; blob: string; size: number };

/**
 * The fingerprint of files already listed and hashed, by the contract of fingerprint.ts: entries
 * in a generated folder left out, the same limits (but the clock), the same sorted lines.
 */
export function fingerprintOfListing(
  files: Iterable<ListedFile>,
  limits: Omit<FingerprintLimits, "milliseconds"> = FINGERPRINT_LIMITS,
): { ok: true; fingerprint: Fingerprint } | { ok: false; reason: string } {
  const sorted = sortedByPath([...files].filter((file) => !isGenerated(file.path)));
  if (sorted.length > limits.entries)
    return { ok: false, reason: `over the entries limit (${limits.entries}): ${sorted.length} files` };
  let bytes = 0;
  for (const file of sorted) {
    if (file.size > limits.fileBytes)
      return {
        ok: false,
        reason: `over the fileBytes limit (${limits.fileBytes}): ${file.path} is ${file.size} bytes`,
      };
    bytes += file.size;
  }
  if (bytes > limits.bytes)
    return {
      ok: false,
      reason: `over the bytes limit (${limits.bytes}): ${bytes} bytes in ${sorted.length} files`,
    };
  return { ok: true, fingerprint: fingerprintOf(sorted, bytes) };
}
