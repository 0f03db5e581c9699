/**
 * The SKILL.md files near a skill Pi's discovery did not find, each with why it is not that
 * skill: Pi loads it under another name, Pi skips it (its warning), or it is where Pi does not
 * look. An author whose skill "is not found" learns where it went wrong without reading Pi.
 *
 * Only folder listings are read (never a file's content, never through a symbolic link), within
 * bounds: the workspace and the folders Pi scans outside it, a few levels deep.
 */
import type { Dirent } from "node:fs";
import { readdir } from "node:fs/promises";
import path from "node:path";
import { isInside } from "../core/paths.ts";
import type { SkillCandidate } from "../verifier/probes.ts";
import type { DiscoveryFolder } from "./skill-containment.ts";

/** How deep below a root the search goes, how many folders it lists, how many files it names. */
const MAX_DEPTH = 6;
const MAX_FOLDERS = 2_000;
export const MAX_CANDIDATES = 20;

/** What Pi's loader said, as far as the candidates need it. */
export type Discovered = {
  skills: readonly { name: string; filePath: string }[];
  diagnostics: readonly { type: string; message: string; path?: string | undefined }[];
};

export type CandidateSearch = {
  workspace: string;
  /** The folders Pi scans (those that exist), in its order. */
  discovery: readonly DiscoveryFolder[];
  discovered: Discovered;
  /** What the check asked for: a skill name, or the path it gave. */
  wanted: { name: string } | { path: string };
  /** The file already reported on (its violations), left out. */
  reported?: string;
  samePath(a: string, b: string): boolean;
  shown(file: string): string;
};

const PI_SEARCHES =
  ".pi/skills, .agents/skills (here and in each parent folder up to the git root), {agent_dir}/skills and ~/.agents/skills";

/** Every SKILL.md found (at most MAX_CANDIDATES), each with why it is not the skill the check wants. */
export async function skillCandidates(search: CandidateSearch): Promise<SkillCandidate[]> {
  const roots = [
    search.workspace,
    ...search.discovery.map(({ folder }) => folder).filter((folder) => !isInside(folder, search.workspace)),
  ];
  const files: string[] = [];
  const budget = { folders: MAX_FOLDERS };
  for (const root of roots) await collect(root, 0, files, budget);
  return [...new Set(files)]
    .sort()
    .filter((file) => search.reported === undefined || !search.samePath(file, search.reported))
    .slice(0, MAX_CANDIDATES)
    .map((file) => ({ filePath: search.shown(file), reason: whyNot(file, search) }));
}

async function collect(dir: string, depth: number, files: string[], budget: { folders: number }) {
  if (depth > MAX_DEPTH || budget.folders <= 0 || files.length >= MAX_CANDIDATES) return;
  budget.folders--;
  let entries: Dirent[];
  try {
    entries = await readdir(dir, { withFileTypes: true });
  } catch {
    return;
  }
  for (const entry of entries) {
    if (entry.name === "SKILL.md" && (entry.isFile() || entry.isSymbolicLink()))
      files.push(path.join(dir, entry.name));
  }
  for (const entry of entries) {
    // Links are not followed: what they lead to may be outside every root.
    if (!entry.isDirectory() || entry.name === ".git" || entry.name === "node_modules") continue;
    await collect(path.join(dir, entry.name), depth + 1, files, budget);
  }
}

function whyNot(file: string, search: CandidateSearch): string {
  const loaded = search.discovered.skills.find((skill) => search.samePath(skill.filePath, file));
  if (loaded) {
    return "name" in search.wanted
      ? `Pi loads it as the skill "${loaded.name}", not "${search.wanted.name}"`
      : `Pi loads it as the skill "${loaded.name}", but it is not at ${search.wanted.path}`;
  }
  const warning = search.discovered.diagnostics.find(
    (diagnostic) => diagnostic.path !== undefined && search.samePath(diagnostic.path, file),
  );
  if (warning) return `Pi skips it: ${firstLine(warning.message)}`;
  const folder = search.discovery.find(({ folder }) => isInside(file, folder));
  if (!folder) return `it is not in a folder Pi searches for skills (${PI_SEARCHES})`;
  const below = path.relative(folder.folder, path.dirname(file)).split(path.sep);
  const hidden = below.find((name) => name.startsWith("."));
  if (hidden) return `Pi does not look into hidden folders (${hidden}) of ${search.shown(folder.folder)}`;
  return `Pi's discovery skipped it in ${search.shown(folder.folder)} (an ignore file, or a SKILL.md in a folder above it makes that folder the skill)`;
}

function firstLine(text: string): string {
  return (text.split("\n")[0] ?? "").trim().replace(/[.:]$/, "");
}
