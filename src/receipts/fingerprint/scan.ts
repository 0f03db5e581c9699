/**
 * One scan: the workspace, its limits and clock, and the two ways to stop without a fingerprint.
 * Every part of the fingerprint (the fast path, the full walk, the disk reads, the hash) shares it.
 */
import type { Stats } from "node:fs";
import { realpath } from "node:fs/promises";
import { performance } from "node:perf_hooks";
import type { Fingerprint } from "../schema.ts";

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

/**
 * `fast` and `full` read git's listing or walked the folders; `stat` is an earlier fingerprint
 * answered again because lstat finds every file it rests on unchanged (fingerprint/stat-record.ts).
 */
export type FingerprintOutcome =
  | { ok: true; fingerprint: Fingerprint; path: "fast" | "full" | "stat" }
  | { ok: false; reason: string };

/** What either path answers when it has a fingerprint. */
export type Fingerprinted = { fingerprint: Fingerprint; path: "fast" | "full" };

/** A fingerprint with the entries it was taken from, each with what lstat saw of it. */
export type Scanned = Fingerprinted & { entries: readonly Entry[] };

/** Over a limit, or something unreadable: no fingerprint, with this message as the reason. */
export class Refused extends Error {}

/** Git is missing or failed: the fast path cannot answer, the full one may. */
export class GitFailed extends Error {}

export type Scan = {
  /** The workspace's real path: every file read must be below it, through no link. */
  root: string;
  limits: FingerprintLimits;
  /** performance.now() when the scan began: the time budget. */
  started: number;
  /** Date.now() when the scan began: what a file's ctime is compared with (stat-record.ts). */
  startedAt: number;
  /** Folder (workspace-relative) → whether it is a real folder below the root, no link on the way. */
  folders: Map<string, boolean>;
};

export type Mode = "100644" | "100755" | "120000";

/**
 * One file of the fingerprint; `blob` is filled in when the file has been read, `seen` is what
 * lstat said of it during the scan (absent for an entry only listed, not yet looked at).
 */
export type Entry = { path: string; mode: Mode; size: number; blob?: string; seen?: Stats };

const GENERATED = new Set<string>(GENERATED_FOLDERS);

/** Whether `name` (one path segment) is a generated folder the fingerprint leaves out. */
export const isGeneratedName = (name: string) => GENERATED.has(name);

/** Whether a generated folder is on the way to `path` (slash-separated, workspace-relative). */
export const isGenerated = (path: string) => path.split("/").some((segment) => GENERATED.has(segment));

/**
 * Files are read with synchronous calls, in slices of this many ms between which the event loop
 * runs. Promise-based fs calls cost ~50 µs a file in thread-pool hops: 100,000 small files (the
 * entries limit) would spend the whole time budget on them.
 */
const SLICE_MS = 10;

export async function startScan(workspace: string, limits: FingerprintLimits): Promise<Scan> {
  const started = performance.now();
  const startedAt = Date.now();
  let root: string;
  try {
    root = await realpath(workspace);
  } catch (error) {
    throw new Refused(`cannot open the workspace ${workspace}: ${codeOf(error)}`);
  }
  return { root, limits, started, startedAt, folders: new Map() };
}

export function checkTime(scan: Scan): void {
  const elapsed = performance.now() - scan.started;
  if (elapsed > scan.limits.milliseconds) {
    throw new Refused(
      `over the milliseconds limit (${scan.limits.milliseconds}): the scan took ${Math.ceil(elapsed)} ms`,
    );
  }
}

export const remainingMs = (scan: Scan) => scan.limits.milliseconds - (performance.now() - scan.started);

export function codeOf(error: unknown): string {
  return error instanceof Error ? ((error as NodeJS.ErrnoException).code ?? error.message) : String(error);
}

export function checkFileSize(scan: Scan, path: string, size: number): void {
  if (size > scan.limits.fileBytes) {
    throw new Refused(`over the fileBytes limit (${scan.limits.fileBytes}): ${path} is ${size} bytes`);
  }
}

export function checkTotal(scan: Scan, entries: Entry[]): number {
  const total = entries.reduce((sum, entry) => sum + entry.size, 0);
  if (total > scan.limits.bytes) {
    throw new Refused(
      `over the bytes limit (${scan.limits.bytes}): ${total} bytes in ${entries.length} files`,
    );
  }
  return total;
}

/** Runs `work` on every item, yielding to the event loop (and checking the clock) every SLICE_MS. */
export async function inSlices<T>(scan: Scan, items: readonly T[], work: (item: T) => void): Promise<void> {
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
