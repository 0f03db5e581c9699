/**
 * The quest packs a learner's Pi offers, in order of their sources: `built-in` (the curriculum
 * pi-quests ships), `package` (each installed Pi package's `pi.quests` folders), `project`
 * (`.pi/quests/`, only in a trusted project), or `env` (`PI_QUESTS_PACK`: that pack alone).
 * A pack id offered twice is reported once and offered from the first source only; a pack that
 * cannot be read is not offered, and the problem names the file and line. Nothing here throws:
 * one broken pack never keeps the others, or Pi, from working.
 */
import { readFile, stat } from "node:fs/promises";
import { basename, join, resolve } from "node:path";
import { type Diagnostic, formatDiagnostic } from "../core/diagnostics.ts";
import { loadQuestPack } from "../verifier/loader.ts";
import { defaultPackId, readPackManifest } from "../verifier/pack-manifest.ts";
import type { Quest } from "../verifier/quest.ts";
import type { InstalledPackage } from "./pack-sources.ts";

export type PackSource = "built-in" | "package" | "project" | "env";

/** A pack found: its manifest and where it is. Its quests are read by `loadPack`. */
export type FoundPack = {
  id: string;
  title: string;
  description?: string;
  source: PackSource;
  /** The pack's folder (absolute). */
  path: string;
  /** For a package's pack: the package as Pi lists it (`npm:name`, a path) and its scope. */
  package?: { source: string; scope: "user" | "project" };
};

/** Why a pack is not offered, in words, with the file and line where that is known. */
export type PackProblem = { source: PackSource; path: string; message: string };

export type PackFinding = { packs: FoundPack[]; problems: PackProblem[] };

/** Where packs are looked for. */
export type PackPlaces = {
  builtIn: string;
  /** `PI_QUESTS_PACK`, resolved: when set, that pack is the only one offered. */
  env?: string;
  packages: readonly InstalledPackage[];
  /** The project's `.pi/quests/` and whether the project is trusted (projectTrusted). */
  project?: { dir: string; trusted: boolean };
};

/** The folder of a project's own pack. */
export const projectPackDir = (cwd: string): string => join(cwd, ".pi", "quests");

/** The packs offered at `places`, in source order, each id once; and the problems of the rest. */
export async function findPacks(places: PackPlaces): Promise<PackFinding> {
  const problems: PackProblem[] = [];
  const found: FoundPack[] = [];
  const add = (listed: { packs: FoundPack[]; problems: PackProblem[] }) => {
    found.push(...listed.packs);
    problems.push(...listed.problems);
  };
  if (places.env !== undefined) {
    add(await folderPack(places.env, "env"));
    return { packs: found, problems };
  }
  add(await folderPack(places.builtIn, "built-in"));
  for (const installed of places.packages) add(await packagePacks(installed));
  if (places.project) add(await projectPack(places.project));
  return firstOfEachId(found, problems);
}

/** A pack's quests; a pack that does not load is not offered, and says why (file:line). */
export async function loadPack(
  pack: FoundPack,
): Promise<{ ok: true; quests: Quest[] } | { ok: false; problem: PackProblem }> {
  const loaded = await loadQuestPack(pack.path);
  if (loaded.ok) return { ok: true, quests: loaded.value };
  return { ok: false, problem: problemOf(pack.source, pack.path, loaded.diagnostics, `pack "${pack.id}"`) };
}

/** Each id once, from its first source; every id offered twice is one problem. */
function firstOfEachId(found: readonly FoundPack[], problems: PackProblem[]): PackFinding {
  const byId = new Map<string, FoundPack[]>();
  for (const pack of found) byId.set(pack.id, [...(byId.get(pack.id) ?? []), pack]);
  const packs: FoundPack[] = [];
  for (const [id, same] of byId) {
    const [first, ...others] = same;
    if (!first) continue;
    packs.push(first);
    if (others.length === 0) continue;
    problems.push({
      source: others[0]?.source ?? first.source,
      path: others.map((pack) => pack.path).join(", "),
      message: `pack id "${id}" is offered more than once: ${same.map(where).join(", ")}; only the first (${where(first)}) is offered. Give the other a different id in its pack.yaml.`,
    });
  }
  return { packs, problems };
}

const where = (pack: FoundPack) => `${pack.source} ${packageLabel(pack) ?? pack.path}`;

/** How a package's pack names its package: `npm:name` or a git URL as installed; a local package by its folder. */
export function packageLabel(pack: FoundPack): string | undefined {
  const source = pack.package?.source;
  if (source === undefined) return undefined;
  return /^(npm:|git:|git\+|https?:|ssh:)/.test(source) ? source : pack.path;
}

async function folderPack(
  dir: string,
  source: PackSource,
  defaultId = basename(dir),
  extra: Pick<FoundPack, "package"> = {},
): Promise<{ packs: FoundPack[]; problems: PackProblem[] }> {
  if (!(await isFolder(dir))) {
    return {
      packs: [],
      problems: [{ source, path: dir, message: `${dir}: the pack folder does not exist` }],
    };
  }
  const manifest = await readPackManifest(dir, defaultId);
  if (!manifest.ok) return { packs: [], problems: [problemOf(source, dir, manifest.diagnostics, "pack")] };
  return { packs: [{ ...manifest.value, source, path: dir, ...extra }], problems: [] };
}

async function projectPack(project: { dir: string; trusted: boolean }) {
  if (!(await isFolder(project.dir))) return { packs: [], problems: [] };
  if (!project.trusted) {
    const message = `${project.dir}: this project's quest pack is not read because the project is not trusted; trust it (/trust in Pi) to see its pack`;
    return { packs: [], problems: [{ source: "project" as const, path: project.dir, message }] };
  }
  return folderPack(project.dir, "project");
}

/** The packs a Pi package lists in its package.json's `pi.quests`. */
async function packagePacks(installed: InstalledPackage) {
  const manifest = await readPackageQuests(installed.root);
  if (!manifest.ok) {
    const message = `${manifest.where}: ${manifest.message}`;
    return { packs: [], problems: [{ source: "package" as const, path: installed.root, message }] };
  }
  const packs: FoundPack[] = [];
  const problems: PackProblem[] = [];
  const only = manifest.folders.length === 1;
  for (const folder of manifest.folders) {
    const dir = resolve(installed.root, folder);
    const name = defaultPackId(manifest.name ?? basename(installed.root));
    const defaultId = only ? name : `${name}-${basename(dir)}`;
    const pkg = { package: { source: installed.source, scope: installed.scope } };
    const listed = await folderPack(dir, "package", defaultId, pkg);
    packs.push(...listed.packs);
    problems.push(
      ...listed.problems.map((problem) => ({
        ...problem,
        message: `${problem.message} (pi.quests of ${installed.source}, ${join(installed.root, "package.json")}:${manifest.line})`,
      })),
    );
  }
  return { packs, problems };
}

export type PackageQuests =
  | { ok: true; name: string | undefined; folders: string[]; line: number; manifest: Record<string, unknown> }
  | { ok: false; where: string; message: string }
  /** A package without `pi.quests`: no pack. */
  | { ok: true; name: string | undefined; folders: []; line: 0; manifest: Record<string, unknown> };

/** A package's `pi.quests` folders (relative to the package), with the line they are written on. */
export async function readPackageQuests(root: string): Promise<PackageQuests> {
  const file = join(root, "package.json");
  let text: string;
  try {
    text = await readFile(file, "utf8");
  } catch {
    return { ok: false, where: file, message: "the package has no readable package.json" };
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    return { ok: false, where: file, message: `not JSON (${(error as Error).message})` };
  }
  const manifest = isObject(json) ? json : {};
  const name = typeof manifest.name === "string" ? manifest.name : undefined;
  const pi = isObject(manifest.pi) ? manifest.pi : {};
  if (pi.quests === undefined) return { ok: true, name, folders: [], line: 0, manifest };
  const line = lineOfKey(text, "quests");
  const quests = pi.quests;
  if (!Array.isArray(quests) || quests.some((folder) => typeof folder !== "string" || folder === "")) {
    return {
      ok: false,
      where: `${file}:${line}`,
      message: `pi.quests must be a list of pack folders relative to the package (["."] or ["quests"])`,
    };
  }
  return { ok: true, name, folders: quests as string[], line, manifest };
}

/** The 1-based line where `"key":` is first written in a JSON text (1 when it is not found). */
export function lineOfKey(text: string, key: string): number {
  const at = text.search(new RegExp(`"${key}"\\s*:`));
  return at < 0 ? 1 : text.slice(0, at).split("\n").length;
}

function problemOf(
  source: PackSource,
  path: string,
  diagnostics: readonly Diagnostic[],
  what: string,
): PackProblem {
  const shown = diagnostics.slice(0, 3).map(formatDiagnostic);
  const more = diagnostics.length > 3 ? ` (and ${diagnostics.length - 3} more)` : "";
  return { source, path, message: `${what} ${path} is not offered: ${shown.join("; ")}${more}` };
}

async function isFolder(path: string): Promise<boolean> {
  try {
    return (await stat(path)).isDirectory();
  } catch {
    return false;
  }
}

const isObject = (value: unknown): value is Record<string, unknown> =>
  value !== null && typeof value === "object" && !Array.isArray(value);

/** A pack offered, with its quests read. */
export type ListedPack = FoundPack & { quests: Quest[] };

/** The packs offered, each loaded: one that does not load moves to the problems. */
export async function listPacks(
  places: PackPlaces,
): Promise<{ packs: ListedPack[]; problems: PackProblem[] }> {
  const found = await findPacks(places);
  const packs: ListedPack[] = [];
  const problems = [...found.problems];
  for (const pack of found.packs) {
    const loaded = await loadPack(pack);
    if (loaded.ok) packs.push({ ...pack, quests: loaded.quests });
    else problems.push(loaded.problem);
  }
  return { packs, problems };
}
