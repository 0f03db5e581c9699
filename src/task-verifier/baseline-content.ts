/**
 * The baseline's text of the files the protection rule reads (src/task-verifier/protected-paths.ts,
 * `readByTheRule`): test-runner configurations, for the setup files they name, and Makefiles,
 * for what they include. Read once per verifier from git's object store (the baseline never
 * changes), bounded in file size, file count and total bytes: a file over a bound is simply not
 * read, and what it names is not protected by this rule.
 */
import { posix } from "node:path";
import { type GitRunner, splitNul } from "../probes/git-runner.ts";
import { readBlobs } from "./blobs.ts";
import { readByTheRule } from "./protected-paths.ts";

export const MAX_FOLLOWED_FILE_BYTES = 256 * 1024;
export const MAX_FOLLOWED_FILES = 5000;
export const MAX_FOLLOWED_TOTAL_BYTES = 32 * 1024 * 1024;

export async function readBaselineTexts(
  git: GitRunner,
  repository: string,
  baseline: string,
): Promise<{ ok: true; texts: Map<string, string> } | { ok: false; message: string }> {
  const tree = await git(["ls-tree", "-r", "-l", "-z", "--full-tree", baseline], { cwd: repository });
  if (!tree.ok) return tree;
  const wanted: Array<{ id: string; path: string }> = [];
  let total = 0;
  for (const line of splitNul(tree.stdout)) {
    const tab = line.indexOf("\t");
    const [mode, type, id, size] = line.slice(0, tab).split(/ +/);
    const path = line.slice(tab + 1);
    const bytes = Number(size);
    if (type !== "blob" || mode === "120000" || !id || !Number.isSafeInteger(bytes)) continue;
    if (bytes > MAX_FOLLOWED_FILE_BYTES || !readByTheRule(posix.basename(path))) continue;
    if (wanted.length >= MAX_FOLLOWED_FILES || total + bytes > MAX_FOLLOWED_TOTAL_BYTES) break;
    wanted.push({ id, path });
    total += bytes;
  }
  const read = await readBlobs(git, repository, wanted);
  if (!read.ok) return read;
  const texts = new Map<string, string>();
  for (const { entry, content } of read.blobs)
    if (!content.includes(0)) texts.set(entry.path, content.toString("utf8"));
  return { ok: true, texts };
}
