/**
 * The fast path: HEAD's listing, with only the paths git status names read from disk. It gives
 * the same value as the full path; a repository without commits is read in full.
 */
import { pinDrivers } from "../../probes/git-runner.ts";
import { finish, inspect } from "./disk.ts";
import { fullScan } from "./full.ts";
import { gitIn, inPrivateIndex, runner } from "./git.ts";
import { convertedFiles, headFiles, STATUS, statusChanges, UNTRACKED, untrackedChanges } from "./listings.ts";
import {
  checkTime,
  type Entry,
  inSlices,
  isGenerated,
  remainingMs,
  type Scan,
  type Scanned,
} from "./scan.ts";

export async function fastOrFull(scan: Scan): Promise<Scanned> {
  const git = gitIn(scan);
  // The repository's filter and diff drivers are read once for this fingerprint, meanwhile.
  const [head, pinned] = await Promise.all([
    git(["rev-parse", "--show-prefix", "--quiet", "--verify", "HEAD^{commit}"], [0, 1]),
    pinDrivers(runner, scan.root, { timeoutMs: Math.max(1, remainingMs(scan)) }),
  ]);
  // The workspace's folder in the repository ("" at the top, else ending in "/"), then HEAD's
  // commit, missing (exit code 1) before the first commit: then there is nothing to compare with.
  const [prefix = "", commit = ""] = head.toString("utf8").split("\n");
  if (commit === "") return { ...(await fullScan(scan)), path: "full" };

  // The stat cache git status relies on is pi-quests' private index, refreshed by pi-quests;
  // the runner forces the strict stat checks and no file-system monitor. Filters are no-ops and
  // line endings are not converted, so git compares the bytes.
  const [unchanged, status, others, converted] = await inPrivateIndex(
    scan,
    (indexed, listing) => {
      const files = headFiles(listing.tree, prefix);
      return Promise.all([
        files,
        indexed([...STATUS, "--", "."]),
        indexed([...UNTRACKED, "--", "."]),
        convertedFiles(indexed, [...files.keys()]),
      ]);
    },
    { refresh: "by-use", commit, driversPinned: true },
    pinned,
  );
  checkTime(scan);
  const reread = new Set<string>();
  for (const change of [...statusChanges(status), ...untrackedChanges(others)]) {
    const path = change.path.slice(prefix.length);
    unchanged.delete(path);
    if (change.kept) reread.add(path);
  }
  // Unchanged files whose blob may hold other bytes than the disk (attributes text, eol, filter...)
  // are read. The private index has no skip-worktree, assume-unchanged or intent-to-add entry.
  for (const path of converted) if (unchanged.delete(path)) reread.add(path);

  const entries = await onDisk(scan, unchanged, reread);
  return { fingerprint: await finish(scan, entries), entries, path: "fast" };
}

/**
 * The entries as they are on disk. An unchanged file's bytes are HEAD's blob: its size (for the
 * limits) comes from the disk. One that vanished or changed kind since status looked is read
 * like a changed one; `reread` gains it.
 */
async function onDisk(scan: Scan, unchanged: Map<string, Entry>, reread: Set<string>): Promise<Entry[]> {
  const entries: Entry[] = [];
  await inSlices(
    scan,
    [...unchanged.values()].filter((entry) => !isGenerated(entry.path)),
    (head) => {
      const found = inspect(scan, head.path);
      if (found && found.mode === head.mode) entries.push({ ...head, size: found.size, seen: found.seen });
      else reread.add(head.path);
    },
  );
  await inSlices(scan, [...reread], (path) => {
    // `folder/`: an untracked nested repository, which git does not look into.
    const entry = path.endsWith("/") || isGenerated(path) ? null : inspect(scan, path);
    if (entry) entries.push(entry);
  });
  return entries;
}
