/**
 * Whether a skill really is where it was found. Pi's own discovery follows symbolic links (a skill
 * folder or a SKILL.md may point anywhere), but a quest path never leaves its root through a link
 * (docs/quest-format.md, Paths): a skill that does is refused here, like any other quest path.
 */
import path from "node:path";
import { isInside } from "../core/paths.ts";
import { firstLinkOutside } from "./path-containment.ts";

/** A folder Pi scans for skills, with the root a skill found in it must stay inside. */
export type DiscoveryFolder = { folder: string; root: string };

/**
 * Why one of `targets` leads outside `root` through a link, or undefined when each stays inside
 * (or does not exist, which the caller reports as not found). Only path names are resolved;
 * nothing is opened or read.
 */
export async function linkEscape(targets: string[], root: string): Promise<string | undefined> {
  const leaving = await firstLinkOutside(targets, root);
  if (leaving === undefined) return undefined;
  return `${leaving.target} leads to ${leaving.real} through a symbolic link, outside ${root}; a skill a quest checks must really be inside its folder, so it was not read`;
}

/** The root for a skill file Pi found: that of the discovery folder it lies in, by name. */
export function rootOf(file: string, folders: DiscoveryFolder[], fallback: string): string {
  const holding = folders.find(({ folder }) => isInside(path.resolve(file), path.resolve(folder)));
  return holding?.root ?? fallback;
}
