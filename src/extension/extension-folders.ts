/**
 * Where Pi 1.6 loads extension code from, besides the command line's `-e` (the learner's own
 * command): the agent dir's `extensions/`, the project's `.pi/extensions/` (only when the project
 * is trusted), and the local paths the settings name, in `extensions` (files or folders) and in
 * `packages` (package folders), from the agent dir's `settings.json` (relative to the agent dir)
 * and the trusted project's `.pi/settings.json` (relative to `.pi/`), as Pi's package manager
 * resolves them (dist/core/package-manager.js: `resolve`, `parseSource`, `isLocalPath`).
 * Packages Pi installs from npm or git are not among them: their code comes from outside, and
 * `pi install` puts it under the agent dir's `npm/` and `git/`, which are not watched.
 *
 * Every code file below these folders counts, not only the entries Pi names: an entry's imports
 * are loaded into Pi too. No schema library: read at every tool call (the settings can change).
 */
import { readFileSync } from "node:fs";
import { homedir } from "node:os";
import { isAbsolute, join, resolve } from "node:path";
import { agentDirFrom } from "../core/paths.ts";

/** Sources that are not local paths (Pi's `isLocalPath`). */
const NOT_LOCAL = /^(npm|git|github|http|https|ssh|builtin):/;
/** Settings entries that enable, disable or filter (Pi's `isPattern`): not paths of their own. */
const PATTERN = /^[!+-]|[*?]/;

export type ExtensionFolderOptions = {
  /** The folder Pi runs in. */
  cwd: string;
  agentDir: string;
  home: string;
  /** Whether Pi trusts the project (`ctx.isProjectTrusted()`): only then does it load `.pi/`. */
  projectTrusted: boolean;
};

/** The files and folders Pi loads extension code from, absolute, without duplicates. */
export function extensionFolders({ cwd, agentDir, home, projectTrusted }: ExtensionFolderOptions): string[] {
  const project = join(cwd, ".pi");
  const scopes = [
    { base: agentDir, settings: join(agentDir, "settings.json") },
    ...(projectTrusted ? [{ base: project, settings: join(project, "settings.json") }] : []),
  ];
  const folders = [
    join(agentDir, "extensions"),
    ...(projectTrusted ? [join(project, "extensions")] : []),
    ...scopes.flatMap(({ base, settings }) =>
      localSources(settings).map((path) => pathFrom(path, base, home)),
    ),
  ];
  return [...new Set(folders)];
}

/** Where the Pi of `ctx` (its folder, and whether it trusts the project) loads extension code from now. */
export function extensionFoldersOf(
  ctx: { cwd: string; isProjectTrusted(): boolean },
  env: Record<string, string | undefined>,
): string[] {
  const home = homedir();
  const agentDir = agentDirFrom(env, ctx.cwd, home);
  return extensionFolders({ cwd: ctx.cwd, agentDir, home, projectTrusted: ctx.isProjectTrusted() });
}

/** The local paths a settings file names in `extensions` and `packages`. */
function localSources(settingsFile: string): string[] {
  const settings = readSettings(settingsFile);
  const extensions = listOf(settings.extensions).filter(
    (entry): entry is string => typeof entry === "string",
  );
  const packages = listOf(settings.packages).map((entry) =>
    typeof entry === "object" && entry !== null ? (entry as { source?: unknown }).source : entry,
  );
  return [...extensions.filter((entry) => !PATTERN.test(entry)), ...packages].filter(
    (source): source is string =>
      typeof source === "string" && source.trim() !== "" && !NOT_LOCAL.test(source.trim()),
  );
}

function readSettings(file: string): Record<string, unknown> {
  try {
    const value: unknown = JSON.parse(readFileSync(file, "utf8"));
    return typeof value === "object" && value !== null && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : {};
  } catch {
    return {}; // no settings, or settings Pi cannot read either
  }
}

const listOf = (value: unknown): unknown[] => (Array.isArray(value) ? value : []);

/** As Pi resolves a settings path: `~` is the home folder, `file:` a path, else relative to `base`. */
function pathFrom(source: string, base: string, home: string): string {
  const path = source.trim().replace(/^file:\/\//, "");
  if (path === "~") return home;
  if (path.startsWith("~/")) return join(home, path.slice(2));
  return isAbsolute(path) ? resolve(path) : resolve(base, path);
}
