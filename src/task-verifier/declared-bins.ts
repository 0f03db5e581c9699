/**
 * The `node_modules/.bin` a check's npm scripts find first on their PATH (npm puts it there):
 * only the entries an installed package declares (its package.json's `bin`), each a link to the
 * file that package declares, whatever the learner's `.bin` holds under that name. A look-alike
 * planted there (`.bin/grep`, a script that exits 0) would otherwise answer for the real tool in
 * `pi-quests check`, which pins no dependencies; in a Pi session the pin taken at activation
 * (dependencies.ts) also shows one added later. An entry no package declares is left out, and
 * the run says so (docs/security.md, 6).
 *
 * Declared means: `bin` as a string (named after the package, its scope left off) or as an
 * object of names to files, each file inside the package's folder. `directories.bin` (a whole
 * folder of bins, rare) is not read: such a bin is left out, and the run says so.
 */
import { lstatSync, readdirSync, readFileSync, readlinkSync } from "node:fs";
import { join, posix } from "node:path";
import { TIMESTAMP_GRANULARITY_MS } from "../receipts/fingerprint/stat-record.ts";

export type BinLink = { name: string; target: string };

export type DeclaredBins = {
  /** What the worktree's `.bin` holds: each name, and its link relative to `.bin`. */
  links: BinLink[];
  /** The learner's `.bin` entries no installed package declares: not in the worktree's. */
  undeclared: string[];
  /**
   * Whether the learner's `.bin` is a real folder holding exactly `links` (as npm leaves it): the
   * worktree can then link the folder itself rather than make each link again.
   */
  asDeclared: boolean;
  /**
   * The learner's `.bin` folder as lstat said before its entries were read (inode, mtime,
   * ctime): an entry added, removed or replaced since moves its times (binFolderState).
   */
  folderState: string | undefined;
};

/** What lstat says of a `.bin` folder that moves when an entry is added, removed or renamed over. */
export function binFolderState(folder: string): string | undefined {
  try {
    const info = lstatSync(folder, { bigint: true });
    return `${info.ino}:${info.mode}:${info.mtimeNs}:${info.ctimeNs}`;
  } catch {
    return undefined;
  }
}

/**
 * Whether the folder changed within the file system's timestamp granularity of now: a change
 * then and another one in the same tick leave the same times, so its times vouch for nothing
 * (git's racily clean entries, src/receipts/fingerprint/stat-record.ts).
 */
function changedJustNow(folder: string, now = Date.now()): boolean {
  try {
    const info = lstatSync(folder);
    return Math.max(info.mtimeMs, info.ctimeMs) >= now - TIMESTAMP_GRANULARITY_MS;
  } catch {
    return true;
  }
}

/** A package.json's bins: name to the file, relative to the package's folder (normalized, inside it). */
export function binsOf(manifest: unknown): Map<string, string> {
  const bins = new Map<string, string>();
  if (typeof manifest !== "object" || manifest === null) return bins;
  const { name, bin } = manifest as { name?: unknown; bin?: unknown };
  const entries: Array<[unknown, unknown]> =
    typeof bin === "string"
      ? [[typeof name === "string" ? name.split("/").at(-1) : undefined, bin]]
      : typeof bin === "object" && bin !== null
        ? Object.entries(bin)
        : [];
  for (const [binName, file] of entries) {
    if (typeof binName !== "string" || !/^[^/\\.][^/\\]*$/.test(binName)) continue;
    if (typeof file !== "string") continue;
    const inside = posix.normalize(file.replaceAll("\\", "/"));
    if (inside.startsWith("../") || inside === ".." || posix.isAbsolute(inside)) continue;
    bins.set(binName, inside);
  }
  return bins;
}

/**
 * The worktree's `.bin` for the learner's node_modules folder `nodeModules` (absolute).
 * Synchronous: a few small reads per entry, each cheaper than a promise's round trip.
 */
export function declaredBins(nodeModules: string): DeclaredBins {
  const binFolder = join(nodeModules, ".bin");
  // Before the entries are read: a change made while they are read shows against it.
  const folderState = binFolderState(binFolder);
  const names = readNames(binFolder);
  const links: BinLink[] = [];
  const undeclared: string[] = [];
  let asDeclared = realFolder(binFolder) && !changedJustNow(binFolder);
  let everyPackage: Map<string, string[]> | undefined;
  for (const name of names) {
    // The package the learner's link points into is asked first: one package.json per entry.
    const link = linkInto(join(binFolder, name));
    const declared = link ? declaredIn(nodeModules, link.packageFolder).get(name) : undefined;
    if (link && declared) {
      const target = posix.normalize(`../${link.packageFolder}/${declared}`);
      links.push({ name, target });
      if (link.target !== target) asDeclared = false;
      continue;
    }
    asDeclared = false;
    everyPackage ??= declarationsOfEveryPackage(nodeModules);
    const [target] = everyPackage.get(name) ?? [];
    if (target) links.push({ name, target });
    else undeclared.push(name);
  }
  return { links, undeclared, asDeclared, folderState };
}

function realFolder(path: string): boolean {
  try {
    return lstatSync(path).isDirectory();
  } catch {
    return false;
  }
}

function readNames(folder: string): string[] {
  try {
    return readdirSync(folder).sort();
  } catch {
    return [];
  }
}

/**
 * Where a `.bin` link points, normalized, and the package folder (`left-pad`, `@scope/name`) that
 * lies in, if it is a link into node_modules.
 */
function linkInto(entry: string): { target: string; packageFolder: string } | undefined {
  let target: string;
  try {
    if (!lstatSync(entry).isSymbolicLink()) return undefined;
    target = posix.normalize(readlinkSync(entry).replaceAll("\\", "/"));
  } catch {
    return undefined;
  }
  const parts = target.split("/");
  if (parts[0] !== "..") return undefined;
  const [first, second] = parts.slice(1);
  if (!first || first.startsWith(".")) return undefined;
  const packageFolder = first.startsWith("@") ? (second ? `${first}/${second}` : undefined) : first;
  return packageFolder ? { target, packageFolder } : undefined;
}

function declaredIn(nodeModules: string, packageFolder: string): Map<string, string> {
  try {
    return binsOf(JSON.parse(readFileSync(join(nodeModules, packageFolder, "package.json"), "utf8")));
  } catch {
    return new Map();
  }
}

/** Every bin every package directly in `nodeModules` declares: name to its links, by package name. */
function declarationsOfEveryPackage(nodeModules: string): Map<string, string[]> {
  const folders: string[] = [];
  for (const entry of readNames(nodeModules)) {
    if (entry.startsWith(".")) continue;
    if (!entry.startsWith("@")) folders.push(entry);
    else for (const inner of readNames(join(nodeModules, entry))) folders.push(`${entry}/${inner}`);
  }
  const byName = new Map<string, string[]>();
  for (const folder of folders)
    for (const [name, file] of declaredIn(nodeModules, folder))
      byName.set(name, [...(byName.get(name) ?? []), `../${folder}/${file}`]);
  return byName;
}
