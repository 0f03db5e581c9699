/**
 * The committed ignore rules, for a workspace outside git: each `.gitignore` on the way to a
 * path, the deepest deciding, as git decides. `.git/info/exclude` and core.excludesFile are not
 * the committed rules, so they play no part.
 */
import { constants } from "node:fs";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import ignore, { type Ignore } from "ignore";
import { codeOf, Refused } from "./scan.ts";

/** The rules of one `.gitignore`, and the folder (workspace-relative) they are relative to. */
export type IgnoreLevel = { base: string; rules: Ignore };

/** The levels that apply inside `folder`: those above it, and its own `.gitignore` when it has one. */
export async function levelsIn(
  folder: string,
  absolute: string,
  hasGitignore: boolean,
  above: IgnoreLevel[],
): Promise<IgnoreLevel[]> {
  if (!hasGitignore) return above;
  return [...above, { base: folder, rules: ignore().add(await readGitignore(join(absolute, ".gitignore"))) }];
}

/** Git's order: the deepest `.gitignore` that says anything about the path decides. */
export function isIgnored(levels: IgnoreLevel[], path: string, isFolder: boolean): boolean {
  for (let i = levels.length - 1; i >= 0; i--) {
    const level = levels[i] as IgnoreLevel;
    const relativePath = level.base === "" ? path : path.slice(level.base.length + 1);
    const verdict = level.rules.test(isFolder ? `${relativePath}/` : relativePath);
    if (verdict.ignored) return true;
    if (verdict.unignored) return false;
  }
  return false;
}

async function readGitignore(path: string): Promise<string> {
  try {
    return await readFile(path, { encoding: "utf8", flag: constants.O_RDONLY | constants.O_NOFOLLOW });
  } catch (error) {
    throw new Refused(`cannot read ${path}: ${codeOf(error)}`);
  }
}
