/**
 * What makes two shards' reports reports of one pack: a sha256 of every file that decides how
 * its plays end (the quest files, the play files, the sandbox templates), each by its path
 * relative to the pack and its content. Other files in the pack's folder (a README, the reports
 * a CI job writes there) do not count, so every machine of a matrix computes the same digest
 * from the same commit.
 */
import { createHash } from "node:crypto";
import { readdir, readFile } from "node:fs/promises";
import { join, relative, resolve, sep } from "node:path";

export type PackFiles = {
  pack: string;
  quests: readonly { source: string; sandboxDir?: string }[];
  plays: readonly { source: string }[];
};

/** `sha256:` and the hex digest of the pack's files, in a fixed order. */
export async function packDigest({ pack, quests, plays }: PackFiles): Promise<string> {
  const sandboxes = [...new Set(quests.flatMap((quest) => (quest.sandboxDir ? [quest.sandboxDir] : [])))];
  const files = [
    ...quests.map((quest) => quest.source),
    ...plays.map((play) => resolve(pack, play.source)),
    ...(await Promise.all(sandboxes.map(filesUnder))).flat(),
  ];
  const hash = createHash("sha256");
  for (const file of [...new Set(files)].sort()) {
    const content = await readFile(file);
    hash.update(`${relative(pack, file).split(sep).join("/")}\0${content.length}\0`);
    hash.update(content);
  }
  return `sha256:${hash.digest("hex")}`;
}

/** Every file under `dir`, at any depth (links are not followed). */
async function filesUnder(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true });
  return entries.filter((entry) => entry.isFile()).map((entry) => join(entry.parentPath, entry.name));
}
