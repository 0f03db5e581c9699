/**
 * `pi-quests lint` on a Pi package's folder: its `pi` manifest, as a quest pack package needs it.
 * Each `pi.quests` folder must exist (it is then linted as a pack), and Pi must not take the
 * package for an extension: a package whose manifest names no resources (`pi.extensions`,
 * `skills`, `prompts`, `themes`) and that has none of the conventional folders is loaded by Pi as
 * an extension, which a pack is not.
 */
import { existsSync, readFileSync, statSync } from "node:fs";
import { join, resolve } from "node:path";
import type { Diagnostic } from "../core/diagnostics.ts";
import { lineOfKey, readPackageQuests } from "../runtime/packs.ts";

/** The resources Pi reads from a package's manifest, and the folders it reads by convention. */
const PI_RESOURCES = ["extensions", "skills", "prompts", "themes"] as const;

export type PackageLint = {
  diagnostics: Diagnostic[];
  warnings: Diagnostic[];
  /** The pack folders to lint (absolute), those of `pi.quests` that exist. */
  packs: { dir: string; defaultId: string }[];
};

/** The package at `dir` as a quest pack package; undefined when it has no package.json with `pi.quests`. */
export async function lintPackageManifest(dir: string): Promise<PackageLint | undefined> {
  const file = join(dir, "package.json");
  if (!existsSync(file)) return undefined;
  const read = await readPackageQuests(dir);
  if (!read.ok) return { diagnostics: [at(read.where, read.message)], warnings: [], packs: [] };
  if (read.folders.length === 0) return undefined;
  const text = readFileSync(file, "utf8");
  const diagnostics: Diagnostic[] = [];
  const warnings: Diagnostic[] = [];
  const pi = read.manifest.pi as Record<string, unknown>;
  const named = PI_RESOURCES.filter((resource) => pi[resource] !== undefined);
  const conventional = PI_RESOURCES.filter((resource) => isFolder(join(dir, resource)));
  const piLine = lineOfKey(text, "pi");
  if (named.length === 0 && conventional.length === 0) {
    diagnostics.push(
      at(
        `${file}:${piLine}`,
        `Pi would load this quest pack package as an extension (its pi manifest names no extensions and it has no extensions/ folder): add "extensions": [] to "pi"`,
      ),
    );
  } else if (pi.extensions === undefined) {
    warnings.push(
      at(
        `${file}:${piLine}`,
        `a quest pack package should say "extensions": [] in "pi", so Pi loads no code from it`,
      ),
    );
  }
  const keywords = read.manifest.keywords;
  if (!Array.isArray(keywords) || !keywords.includes("pi-package")) {
    warnings.push(
      at(
        `${file}:${lineOfKey(text, "name")}`,
        `add the keyword "pi-package", so learners find the pack as a Pi package`,
      ),
    );
  }
  const packs: PackageLint["packs"] = [];
  const name = read.name ?? "";
  for (const folder of read.folders) {
    const packDir = resolve(dir, folder);
    if (!isFolder(packDir)) {
      diagnostics.push(
        at(`${file}:${read.line}`, `pi.quests names "${folder}", which is not a folder of the package`),
      );
      continue;
    }
    const defaultId = read.folders.length === 1 ? name : `${name}-${folder}`;
    packs.push({ dir: packDir, defaultId });
  }
  return { diagnostics, warnings, packs };
}

function at(where: string, message: string): Diagnostic {
  const match = /^(.*):(\d+)$/.exec(where);
  return match
    ? { file: match[1] ?? where, line: Number(match[2]), column: 1, message }
    : { file: where, line: 0, column: 0, message };
}

function isFolder(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}
