/**
 * Blobs read from the object store in one `git cat-file --batch`: the exact bytes, for the
 * restored files and the texts the protection planner reads. Object ids, never paths, so neither
 * the worktree's files nor any filter decide what comes back.
 */
import type { GitRunner } from "../probes/git-runner.ts";

export type WantedBlob = { id: string; path: string };

/** Each wanted blob's bytes, in order; a missing or non-blob object is a failure naming its path. */
export async function readBlobs<T extends WantedBlob>(
  git: GitRunner,
  cwd: string,
  wanted: readonly T[],
): Promise<{ ok: true; blobs: Array<{ entry: T; content: Buffer }> } | { ok: false; message: string }> {
  if (wanted.length === 0) return { ok: true, blobs: [] };
  const batch = await git(["cat-file", "--batch"], {
    cwd,
    input: Buffer.from(`${wanted.map((entry) => entry.id).join("\n")}\n`),
  });
  if (!batch.ok) return batch;
  const blobs: Array<{ entry: T; content: Buffer }> = [];
  let offset = 0;
  for (const entry of wanted) {
    const headerEnd = batch.stdout.indexOf(10, offset);
    const header = (headerEnd === -1 ? "" : batch.stdout.subarray(offset, headerEnd).toString("utf8")).split(
      " ",
    );
    const size = Number(header[2]);
    if (header[0] !== entry.id || header[1] !== "blob" || !Number.isSafeInteger(size))
      return { ok: false, message: `git cat-file gave no blob for ${entry.path} at the baseline` };
    blobs.push({ entry, content: batch.stdout.subarray(headerEnd + 1, headerEnd + 1 + size) });
    offset = headerEnd + 1 + size + 1;
  }
  return { ok: true, blobs };
}
