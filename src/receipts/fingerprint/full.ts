/**
 * The full path: every file read from disk. In a git work tree the files are those git lists
 * from pi-quests' private index (tracked, or untracked and not ignored); elsewhere, a walk
 * honoring the `.gitignore` files.
 */
import type { Dirent } from "node:fs";
import { readdir } from "node:fs/promises";
import { join } from "node:path";
import type { Fingerprint } from "../schema.ts";
import { finish, inspect, isRealFolder } from "./disk.ts";
import { type Git, gitIn, inPrivateIndex, insideGitWorkTree, splitNul } from "./git.ts";
import { type IgnoreLevel, isIgnored, levelsIn } from "./ignore.ts";
import {
  checkTime,
  codeOf,
  type Entry,
  inSlices,
  isGenerated,
  isGeneratedName,
  Refused,
  type Scan,
} from "./scan.ts";

export async function fullScan(scan: Scan): Promise<{ fingerprint: Fingerprint; entries: Entry[] }> {
  const entries = await listedEntries(scan);
  return { fingerprint: await finish(scan, entries), entries };
}

/** The files the fingerprint covers, as they are on disk now (not read yet). */
export async function listedEntries(scan: Scan): Promise<Entry[]> {
  const git = gitIn(scan);
  const listed = (await insideGitWorkTree(git))
    ? await inPrivateIndex(scan, gitFiles, { refresh: "none" })
    : await walk(scan);
  const entries: Entry[] = [];
  await inSlices(scan, listed, (path) => {
    const entry = isGenerated(path) ? null : inspect(scan, path);
    if (entry) entries.push(entry);
  });
  return entries;
}

/**
 * HEAD's files and untracked files the `.gitignore` files keep, relative to the workspace, listed
 * from pi-quests' private index: the learner's may hold entries HEAD has not, and
 * `.git/info/exclude` or core.excludesFile are not the committed ignore rules.
 */
async function gitFiles(git: Git): Promise<string[]> {
  const listed = splitNul(
    await git(["ls-files", "-z", "--cached", "--others", "--exclude-per-directory=.gitignore"]),
  );
  // A conflicted file is listed once per stage; an untracked nested repository as `folder/`.
  return [...new Set(listed)].filter((path) => !path.endsWith("/"));
}

/** Every file below the root that the `.gitignore` files keep, without following links. */
async function walk(scan: Scan): Promise<string[]> {
  const found: string[] = [];
  const visit = async (folder: string, rules: IgnoreLevel[]): Promise<void> => {
    checkTime(scan);
    if (folder !== "" && !isRealFolder(scan, folder)) return;
    const absolute = join(scan.root, folder);
    let children: Dirent[];
    try {
      children = await readdir(absolute, { withFileTypes: true });
    } catch (error) {
      throw new Refused(`cannot list ${folder || "."}: ${codeOf(error)}`);
    }
    const hasGitignore = children.some((child) => child.name === ".gitignore" && child.isFile());
    const levels = await levelsIn(folder, absolute, hasGitignore, rules);
    for (const child of children) {
      const path = folder === "" ? child.name : `${folder}/${child.name}`;
      if (child.name.includes("\uFFFD"))
        throw new Refused(`a file name in ${folder || "."} is not valid UTF-8`);
      if (isGeneratedName(child.name) || isIgnored(levels, path, child.isDirectory())) continue;
      if (child.isDirectory()) await visit(path, levels);
      else if (found.push(path) > scan.limits.entries) {
        throw new Refused(`over the entries limit (${scan.limits.entries}): more files than that`);
      }
    }
  };
  await visit("", []);
  return found;
}
