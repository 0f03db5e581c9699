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
import { lstat, readdir, readFile, readlink } from "node:fs/promises";
import { join, posix } from "node:path";

export type BinLink = { name: string; target: string };

export type DeclaredBins = {
  /** What the worktree's `.bin` holds: each name, and its link relative to `.bin`. */
  links: BinLink[];
  /** The learner's `.bin` entries no installed package declares: not in the worktree's. */
  undeclared: string[];
};

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

/** The worktree's `.bin` for the learner's node_modules folder `nodeModules` (absolute). */
export async function declaredBins(nodeModules: string): Promise<DeclaredBins> {
  const binFolder = join(nodeModules, ".bin");
  const names = (await readdir(binFolder).catch(() => [] as string[])).sort();
  const links: BinLink[] = [];
  const undeclared: string[] = [];
  let everyPackage: Promise<Map<string, string[]>> | undefined;
  for (const name of names) {
    // The package the learner's link points into is asked first: one package.json per entry.
    const hinted = await packageOfLink(join(binFolder, name));
    const hintedTarget = hinted ? (await declaredIn(nodeModules, hinted)).get(name) : undefined;
    if (hintedTarget) {
      links.push({ name, target: `../${hinted}/${hintedTarget}` });
      continue;
    }
    everyPackage ??= declarationsOfEveryPackage(nodeModules);
    const [target] = (await everyPackage).get(name) ?? [];
    if (target) links.push({ name, target });
    else undeclared.push(name);
  }
  return { links, undeclared };
}

/** The package folder (`left-pad`, `@scope/name`) a `.bin` link's target lies in, if it is a link into node_modules. */
async function packageOfLink(entry: string): Promise<string | undefined> {
  const info = await lstat(entry).catch(() => undefined);
  if (!info?.isSymbolicLink()) return undefined;
  const target = posix.normalize((await readlink(entry)).replaceAll("\\", "/"));
  const parts = target.split("/");
  if (parts[0] !== "..") return undefined;
  const [first, second] = parts.slice(1);
  if (!first || first.startsWith(".")) return undefined;
  return first.startsWith("@") ? (second ? `${first}/${second}` : undefined) : first;
}

async function declaredIn(nodeModules: string, packageFolder: string): Promise<Map<string, string>> {
  const text = await readFile(join(nodeModules, packageFolder, "package.json"), "utf8").catch(
    () => undefined,
  );
  if (text === undefined) return new Map();
  try {
    return binsOf(JSON.parse(text));
  } catch {
    return new Map();
  }
}

/** Every bin every package directly in `nodeModules` declares: name to its links, by package name. */
async function declarationsOfEveryPackage(nodeModules: string): Promise<Map<string, string[]>> {
  const folders: string[] = [];
  for (const entry of (await readdir(nodeModules).catch(() => [] as string[])).sort()) {
    if (entry.startsWith(".")) continue;
    if (!entry.startsWith("@")) folders.push(entry);
    else
      for (const inner of (await readdir(join(nodeModules, entry)).catch(() => [] as string[])).sort())
        folders.push(`${entry}/${inner}`);
  }
  const byName = new Map<string, string[]>();
  for (const folder of folders)
    for (const [name, file] of await declaredIn(nodeModules, folder))
      byName.set(name, [...(byName.get(name) ?? []), `../${folder}/${file}`]);
  return byName;
}
