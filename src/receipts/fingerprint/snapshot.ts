/**
 * A copy of the files the fingerprint covers, for a reviewer to read: the workspace's tracked
 * and untracked, not ignored files (never `.env`, `node_modules` or a generated folder), links
 * kept as links. The fingerprint returned is the copy's, read back from the copy, so it names
 * exactly the bytes the reviewer sees; a file the learner changes meanwhile makes it differ from
 * the workspace's, and the judgment stale.
 */
import { copyFile, mkdir, readlink, symlink } from "node:fs/promises";
import { dirname, join } from "node:path";
import type { Fingerprint } from "../schema.ts";
import { finish, inspect } from "./disk.ts";
import { listedEntries } from "./full.ts";
import { checkFileSize, checkTotal, type Entry, type FingerprintLimits, startScan } from "./scan.ts";

/** Copies the workspace's fingerprinted files into `target` (made, or empty) and fingerprints the copy. */
export async function copyFingerprinted(
  workspace: string,
  target: string,
  limits: FingerprintLimits,
): Promise<{ fingerprint: Fingerprint; paths: string[] }> {
  const scan = await startScan(workspace, limits);
  const entries = await listedEntries(scan);
  // Refused before anything is copied: a workspace over the limits has no fingerprint anyway.
  for (const entry of entries) checkFileSize(scan, entry.path, entry.size);
  checkTotal(scan, entries);
  await mkdir(target, { recursive: true });
  for (const entry of entries) await copyEntry(scan.root, target, entry);
  const paths = entries.map((entry) => entry.path);
  return { fingerprint: await fingerprintOfCopy(target, paths, limits), paths };
}

/** The fingerprint of these files of a copy, read now (a copy is no git work tree: its own listing could differ). */
export async function fingerprintOfCopy(
  target: string,
  paths: readonly string[],
  limits: FingerprintLimits,
): Promise<Fingerprint> {
  const copy = await startScan(target, limits);
  return finish(
    copy,
    paths.flatMap((path) => inspect(copy, path) ?? []),
  );
}

async function copyEntry(root: string, target: string, entry: Entry): Promise<void> {
  const from = join(root, entry.path);
  const to = join(target, entry.path);
  await mkdir(dirname(to), { recursive: true });
  try {
    if (entry.mode === "120000") await symlink(await readlink(from), to);
    else await copyFile(from, to);
  } catch (error) {
    // Gone since it was listed: the copy leaves it out, and its fingerprint says so.
    if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
  }
}
