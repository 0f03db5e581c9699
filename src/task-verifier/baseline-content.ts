/**
 * The baseline's text of the files whose imports, sources and includes the protection planner
 * follows (src/task-verifier/loaded-files.ts). Read once per verifier from git's object store
 * (the baseline never changes), bounded in file size, file count and total bytes: a file over
 * a bound is simply not followed, and its imports stay unprotected by this rule.
 */
import { posix } from "node:path";
import { type GitRunner, splitNul } from "../probes/git-runner.ts";

export const MAX_FOLLOWED_FILE_BYTES = 256 * 1024;
export const MAX_FOLLOWED_FILES = 5000;
export const MAX_FOLLOWED_TOTAL_BYTES = 32 * 1024 * 1024;

/** Files that can import, source or include others, or name setup files. */
const FOLLOWED_NAME =
  /(\.([cm]?[jt]sx?|vue|svelte|py|sh|bash|mk|json|ini|cfg|toml)$)|^(GNUmakefile|makefile|Makefile|\.mocharc(\.[a-z]+)?)$|^[^.]+$/;

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
    if (bytes > MAX_FOLLOWED_FILE_BYTES || !FOLLOWED_NAME.test(posix.basename(path))) continue;
    if (wanted.length >= MAX_FOLLOWED_FILES || total + bytes > MAX_FOLLOWED_TOTAL_BYTES) break;
    wanted.push({ id, path });
    total += bytes;
  }
  const texts = new Map<string, string>();
  if (wanted.length === 0) return { ok: true, texts };
  const batch = await git(["cat-file", "--batch"], {
    cwd: repository,
    input: Buffer.from(`${wanted.map((entry) => entry.id).join("\n")}\n`),
  });
  if (!batch.ok) return batch;
  let offset = 0;
  for (const entry of wanted) {
    const headerEnd = batch.stdout.indexOf(10, offset);
    if (headerEnd === -1) break;
    const header = batch.stdout.subarray(offset, headerEnd).toString("utf8").split(" ");
    const size = Number(header[2]);
    if (header[0] !== entry.id || header[1] !== "blob" || !Number.isSafeInteger(size))
      return { ok: false, message: `git cat-file gave no blob for ${entry.path} at the baseline` };
    const content = batch.stdout.subarray(headerEnd + 1, headerEnd + 1 + size);
    offset = headerEnd + 1 + size + 1;
    if (!content.includes(0)) texts.set(entry.path, content.toString("utf8"));
  }
  return { ok: true, texts };
}
