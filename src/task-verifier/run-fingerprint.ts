/**
 * The fingerprint of the files a run used, by the receipts' contract (src/receipts/fingerprint.ts):
 * taken in the worktree right after the candidate's patch is applied and before anything is
 * restored, so it describes exactly the snapshot the check judged, with no window in which
 * the learner's files could change. The baseline's entries come from its tree; every path the
 * patch changed is read back from the worktree (the bytes the run saw, not the patch's headers).
 */
import { constants, type Stats } from "node:fs";
import { lstat, open, readlink, realpath } from "node:fs/promises";
import { dirname, join } from "node:path";
import { type GitRunner, splitNul } from "../probes/git-runner.ts";
import { fingerprintOfListing, gitBlobId, type ListedFile } from "../receipts/fingerprint.ts";
import type { RunFingerprint } from "../verifier/checks/command.ts";

export type BaselineListing = ReadonlyMap<string, ListedFile>;

/** The baseline's files (blobs and links; a submodule counts for nothing, as on disk) with their ids and sizes. */
export async function readBaselineListing(
  git: GitRunner,
  cwd: string,
  baseline: string,
): Promise<{ ok: true; listing: BaselineListing } | { ok: false; message: string }> {
  const tree = await git(["ls-tree", "-r", "-z", "-l", "--full-tree", baseline], { cwd });
  if (!tree.ok) return tree;
  const listing = new Map<string, ListedFile>();
  for (const record of splitNul(tree.stdout)) {
    const tab = record.indexOf("\t");
    const [mode, type, blob, size] = record.slice(0, tab).split(/ +/);
    const path = record.slice(tab + 1);
    if (type !== "blob" || !blob || (mode !== "100644" && mode !== "100755" && mode !== "120000")) continue;
    listing.set(path, { path, mode, blob, size: Number(size) });
  }
  return { ok: true, listing };
}

/**
 * The run's fingerprint: the baseline's entries, each path the patch changed as the worktree has
 * it now. Paths `editable` left out are taken as the learner's files have them: the run never saw
 * them, so they cannot have swayed its verdict, and without them an unrelated edit (a README)
 * would keep the receipt from ever matching the workspace again.
 */
export async function fingerprintRun(
  worktree: string,
  baseline: BaselineListing,
  changed: readonly string[],
  leftOut: { repository: string; paths: readonly string[] } = { repository: worktree, paths: [] },
): Promise<RunFingerprint> {
  try {
    const root = await realpath(worktree);
    const files = new Map(baseline);
    const take = async (from: string, path: string) => {
      const file = await readChanged(from, path);
      if (file) files.set(path, file);
      else files.delete(path);
    };
    for (const path of changed) await take(root, path);
    if (leftOut.paths.length > 0) {
      const repository = await realpath(leftOut.repository);
      for (const path of leftOut.paths) await take(repository, path);
    }
    const taken = fingerprintOfListing(files.values());
    return taken.ok ? { ok: true, ...taken.fingerprint } : { ok: false, reason: taken.reason };
  } catch (error) {
    return { ok: false, reason: (error as Error).message };
  }
}

/** A changed path as the run sees it: null when gone or reached through a link (git treats it as gone). */
async function readChanged(root: string, path: string): Promise<ListedFile | null> {
  const absolute = join(root, path);
  const folder = dirname(absolute);
  if ((await realpath(folder).catch(() => undefined)) !== folder) return null;
  const stats = await lstat(absolute).catch((error: NodeJS.ErrnoException) => {
    if (error.code === "ENOENT" || error.code === "ENOTDIR") return undefined;
    throw new Error(`cannot read ${path} in the worktree: ${error.code ?? error.message}`);
  });
  if (!stats || stats.isDirectory()) return null;
  if (stats.isSymbolicLink()) {
    const target = await readlink(absolute, { encoding: "buffer" });
    return { path, mode: "120000", blob: gitBlobId(target), size: target.length };
  }
  if (!stats.isFile()) throw new Error(`${path} in the worktree is not a regular file or a link`);
  // O_NOFOLLOW: only the verifier writes the worktree, but a link swapped in is never followed.
  const handle = await open(absolute, constants.O_RDONLY | constants.O_NOFOLLOW);
  try {
    const opened: Stats = await handle.stat();
    const content = await handle.readFile();
    return {
      path,
      mode: opened.mode & 0o100 ? "100755" : "100644",
      blob: gitBlobId(content),
      size: content.length,
    };
  } finally {
    await handle.close();
  }
}

/** The baseline never changes: its listing is read once, on the first run that needs it. */
export function baselineListingOnce(
  git: GitRunner,
  cwd: string,
  baseline: string,
): () => Promise<{ ok: true; listing: BaselineListing } | { ok: false; message: string }> {
  let read: Promise<{ ok: true; listing: BaselineListing } | { ok: false; message: string }> | undefined;
  return () => {
    read ??= readBaselineListing(git, cwd, baseline).then((answer) => {
      if (!answer.ok) read = undefined; // A failure is not remembered: the next run tries again.
      return answer;
    });
    return read;
  };
}
