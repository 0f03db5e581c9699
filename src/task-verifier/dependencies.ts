/**
 * The dependency pin: what the workspace's node_modules were when the quest was activated, so a
 * check never runs on dependencies changed since (a patched package, a `.bin` shim, a package
 * added). The worktree links the learner's node_modules as they are, so they cannot be restored
 * like a test file; instead every entry's lstat (type, size, mode, mtime, ctime, inode, a link's
 * target) is digested. ctime cannot be set back by a user, so any write, even one that puts the
 * bytes and mtime back, shows. Links are never followed; the walk is bounded.
 */
import { createHash } from "node:crypto";
import { type BigIntStats, lstatSync, readdirSync, readlinkSync } from "node:fs";
import { join, posix } from "node:path";
import { performance } from "node:perf_hooks";
import { createGitRunner, splitNul } from "../probes/git-runner.ts";
import { NODE_MODULES_CACHES } from "./prepare.ts";

export type DependencyPin =
  | {
      kind: "pinned";
      version: 1;
      takenAt: string;
      /** The node_modules folders pinned, workspace-relative ("node_modules", "packages/a/node_modules"). */
      folders: string[];
      entries: number;
      /** One digest per package (`node_modules/@scope/name` too), `.bin` entry and loose file. */
      units: Record<string, string>;
    }
  | { kind: "unpinnable"; version: 1; takenAt: string; reason: string };

export const DEPENDENCY_LIMITS = { entries: 500_000, milliseconds: 15_000 } as const;
export type DependencyLimits = { entries: number; milliseconds: number };

/**
 * Pins the workspace's node_modules: the one at its root and one beside every package.json git
 * tracks (the folders the task verifier links into its worktrees). Never throws.
 */
export async function pinDependencies(
  workspace: string,
  options: { folders?: string[]; limits?: DependencyLimits; now?: () => Date } = {},
): Promise<DependencyPin> {
  const takenAt = (options.now?.() ?? new Date()).toISOString();
  const folders = options.folders ?? (await nodeModulesFolders(workspace));
  const digest = digestFolders(workspace, folders, options.limits ?? DEPENDENCY_LIMITS);
  if (!digest.ok) return { kind: "unpinnable", version: 1, takenAt, reason: digest.reason };
  return { kind: "pinned", version: 1, takenAt, folders, entries: digest.entries, units: digest.units };
}

/**
 * Why a check cannot run on the dependencies as they are now, or undefined when they are as
 * pinned. `alsoLinked`: node_modules folders the verifier would link though the pin has none.
 */
export function dependencyDrift(
  pin: DependencyPin,
  workspace: string,
  alsoLinked: readonly string[] = [],
  limits: DependencyLimits = DEPENDENCY_LIMITS,
): string | undefined {
  if (pin.kind === "unpinnable")
    return `the dependencies could not be pinned when the quest started (${pin.reason}), so no check can rely on them; make node_modules smaller or start the quest again`;
  const folders = [...new Set([...pin.folders, ...alsoLinked])];
  const now = digestFolders(workspace, folders, limits);
  if (!now.ok)
    return `node_modules could not be compared with the pin taken when the quest started (${now.reason}), so the check did not run`;
  const changes: string[] = [];
  for (const [unit, digest] of Object.entries(now.units)) {
    const pinned = pin.units[unit];
    if (pinned === undefined) changes.push(`${unit} added`);
    else if (pinned !== digest) changes.push(`${unit} changed`);
  }
  for (const unit of Object.keys(pin.units)) if (!(unit in now.units)) changes.push(`${unit} removed`);
  if (changes.length === 0) return undefined;
  changes.sort();
  const shown = changes.slice(0, 5).join(", ");
  const more = changes.length > 5 ? ` and ${changes.length - 5} more` : "";
  return `the dependencies changed since the quest started (pinned ${pin.takenAt}): ${shown}${more}; a check never runs on changed dependencies: undo the change (reinstalling counts as a change), or start the quest again to pin them as they are now`;
}

/** The root's node_modules, and the one beside each package.json git tracks. */
async function nodeModulesFolders(workspace: string): Promise<string[]> {
  const git = createGitRunner();
  const listed = await git(["ls-files", "-z", "--", "package.json", ":(glob)**/package.json"], {
    cwd: workspace,
  });
  const folders = new Set(["node_modules"]);
  if (listed.ok)
    for (const manifest of splitNul(listed.stdout)) {
      const dir = posix.dirname(manifest);
      if (!dir.split("/").includes("node_modules"))
        folders.add(dir === "." ? "node_modules" : `${dir}/node_modules`);
    }
  return [...folders].sort();
}

type Digest = { ok: true; entries: number; units: Record<string, string> } | { ok: false; reason: string };

class OverLimit extends Error {}

function digestFolders(workspace: string, folders: readonly string[], limits: DependencyLimits): Digest {
  const started = performance.now();
  let entries = 0;
  const units: Record<string, string> = {};
  const stat = (path: string): BigIntStats | undefined => {
    if (++entries > limits.entries) throw new OverLimit(`over the entries limit (${limits.entries})`);
    if (entries % 1024 === 0 && performance.now() - started > limits.milliseconds)
      throw new OverLimit(`over the time limit (${limits.milliseconds} ms)`);
    try {
      return lstatSync(path, { bigint: true });
    } catch {
      return undefined; // Gone meanwhile: the unit's digest shows it.
    }
  };
  const line = (relative: string, info: BigIntStats, absolute: string) => {
    const type = info.isSymbolicLink() ? "l" : info.isDirectory() ? "d" : info.isFile() ? "f" : "o";
    const target = type === "l" ? ` -> ${readTarget(absolute)}` : "";
    return `${type} ${info.size} ${info.mode} ${info.mtimeNs} ${info.ctimeNs} ${info.ino} ${relative}${target}\n`;
  };
  /**
   * A folder that holds units (node_modules, .bin, a scope): what it is, not its times, which
   * move when a unit is added or removed (the units show that) or a tool's cache is written.
   */
  const containerLine = (info: BigIntStats, absolute: string) => {
    const type = info.isSymbolicLink() ? `l -> ${readTarget(absolute)}` : info.isDirectory() ? "d" : "o";
    return `${type} ${info.mode} ${info.ino}\n`;
  };
  /** A unit's digest: its own entry and, for a real folder, everything below it, links not followed. */
  const digestUnit = (absolute: string): string => {
    const hash = createHash("sha256");
    const walk = (path: string, relative: string) => {
      const info = stat(path);
      if (!info) {
        hash.update(`missing ${relative}\n`);
        return;
      }
      hash.update(line(relative, info, path));
      if (!info.isDirectory()) return;
      for (const name of readNames(path)) walk(join(path, name), `${relative}/${name}`);
    };
    walk(absolute, ".");
    return hash.digest("hex");
  };
  try {
    for (const folder of folders) {
      const root = join(workspace, folder);
      const info = stat(root);
      if (!info) continue;
      // The folder itself: replaced by a link (or a file), or its inode swapped, shows here.
      units[folder] = createHash("sha256").update(containerLine(info, root)).digest("hex");
      if (!info.isDirectory()) continue;
      for (const name of readNames(root)) {
        if (NODE_MODULES_CACHES.has(name)) continue;
        const path = join(root, name);
        const grouped = name === ".bin" || name.startsWith("@");
        const entry = grouped ? stat(path) : undefined;
        if (grouped && entry?.isDirectory()) {
          units[`${folder}/${name}`] = createHash("sha256").update(containerLine(entry, path)).digest("hex");
          for (const inner of readNames(path))
            units[`${folder}/${name}/${inner}`] = digestUnit(join(path, inner));
        } else units[`${folder}/${name}`] = digestUnit(path);
      }
    }
  } catch (error) {
    if (error instanceof OverLimit) return { ok: false, reason: error.message };
    return { ok: false, reason: (error as Error).message };
  }
  return { ok: true, entries, units };
}

function readNames(folder: string): string[] {
  try {
    return readdirSync(folder).sort();
  } catch (error) {
    throw new Error(
      `cannot list ${folder}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`,
    );
  }
}

function readTarget(link: string): string {
  try {
    return readlinkSync(link);
  } catch {
    return "?";
  }
}
