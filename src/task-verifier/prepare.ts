/**
 * Turns a fresh worktree at the baseline into the candidate under test: the hash-checked patch
 * applied, then everything the verdict rests on put back from the baseline. Only the worktree
 * is written; the learner's files are never touched.
 */
import { createHash } from "node:crypto";
import { mkdirSync, symlinkSync } from "node:fs";
import {
  chmod,
  lstat,
  mkdir,
  readdir,
  readFile,
  readlink,
  rm,
  symlink,
  unlink,
  writeFile,
} from "node:fs/promises";
import { dirname, join, posix } from "node:path";
import { type GitRunner, splitNul } from "../probes/git-runner.ts";
import { readBlobs } from "./blobs.ts";
import { declaredBins } from "./declared-bins.ts";
import {
  PROTECTED_MANIFEST_KEYS,
  type Protection,
  type ProtectionPlan,
  type Removal,
} from "./protected-paths.ts";

export type Preparation = {
  restored: string[];
  manifestsMerged: string[];
  removedConfigs: string[];
  linkedNodeModules: string[];
  /** The learner's `node_modules/.bin` entries no installed package declares: not in the worktree (declared-bins.ts). */
  undeclaredBins: string[];
  /**
   * The learner's `.bin` folders the worktree links whole (each entry as its package declares
   * it), with their state when checked: one that changes before the check ends is not trusted.
   */
  linkedBins: LinkedBins[];
  /**
   * The candidate's changes the run does not see, and why: a protected file it changed that was
   * put back (its content, its mode, or its being there), a file it added that was removed.
   * With manifestsMerged (its package scripts put back), what the learner is told was not used.
   */
  overridden: Array<{ path: string } & (Protection | { rule: Removal })>;
};

type Step<T> = { ok: true; value: T } | { ok: false; message: string };

/** Applies the patch only if its bytes still hash to what was recorded when it was taken. */
export async function applyCandidate(
  git: GitRunner,
  worktree: string,
  patchFile: string,
  sha256: string,
): Promise<Step<void>> {
  const patch = await readFile(patchFile);
  const actual = createHash("sha256").update(patch).digest("hex");
  if (actual !== sha256)
    return {
      ok: false,
      message: `the candidate patch changed after it was taken (sha256 ${actual}, expected ${sha256})`,
    };
  if (patch.length === 0) return { ok: true, value: undefined };
  const applied = await git(["apply", "--binary", "--whitespace=nowarn", "-"], {
    cwd: worktree,
    input: patch,
  });
  return applied.ok ? { ok: true, value: undefined } : applied;
}

/**
 * Whether every folder on the way to `path` inside the worktree is a real folder. The candidate
 * can put a link where a folder was; nothing the verifier reads or writes may go through it.
 */
async function underRealFolders(worktree: string, path: string): Promise<boolean> {
  let current = worktree;
  for (const part of path.split("/").slice(0, -1)) {
    current = join(current, part);
    const info = await lstat(current).catch(() => undefined);
    if (!info?.isDirectory()) return false;
  }
  return true;
}

/** Whether the candidate left `path` as an executable regular file (undefined: not a regular file). */
async function candidateExecutable(worktree: string, path: string): Promise<boolean | undefined> {
  if (!(await underRealFolders(worktree, path))) return undefined;
  const info = await lstat(join(worktree, path)).catch(() => undefined);
  return info?.isFile() ? (info.mode & 0o111) !== 0 : undefined;
}

/** Removes whatever the candidate put where a restored file's folders must be (a link, a file). */
async function clearTheWay(worktree: string, path: string): Promise<void> {
  const parts = path.split("/");
  let current = worktree;
  for (const part of parts.slice(0, -1)) {
    current = join(current, part);
    const info = await lstat(current).catch(() => undefined);
    if (info && !info.isDirectory()) await unlink(current);
    if (!info?.isDirectory()) return;
  }
  const target = await lstat(join(worktree, path)).catch(() => undefined);
  // A folder where the baseline has a file: git cannot check the file out over it.
  if (target?.isDirectory()) await rm(join(worktree, path), { recursive: true, force: true });
}

/**
 * Writes baseline files back byte for byte, from the object store. Not `git checkout`: the
 * worktree shares .git/config and .git/info/attributes with the learner's repository, and a
 * smudge filter (or eol conversion) set there would rewrite the restored bytes.
 */
async function restoreFromBaseline(
  git: GitRunner,
  worktree: string,
  baseline: string,
  paths: readonly string[],
): Promise<Step<void>> {
  if (paths.length === 0) return { ok: true, value: undefined };
  const wanted = new Set(paths);
  const tree = await git(["ls-tree", "-r", "-z", "--full-tree", baseline], { cwd: worktree });
  if (!tree.ok) return tree;
  const entries: Array<{ mode: string; id: string; path: string }> = [];
  for (const line of splitNul(tree.stdout)) {
    const tab = line.indexOf("\t");
    const [mode, type, id] = line.slice(0, tab).split(" ");
    const path = line.slice(tab + 1);
    if (wanted.has(path) && type === "blob" && mode && id) entries.push({ mode, id, path });
  }
  const read = await readBlobs(git, worktree, entries);
  if (!read.ok) return read;
  for (const { entry, content } of read.blobs) {
    const full = join(worktree, entry.path);
    await clearTheWay(worktree, entry.path);
    await mkdir(dirname(full), { recursive: true });
    await rm(full, { force: true });
    if (entry.mode === "120000") await symlink(content, full);
    // "wx": a new file, never through whatever might be at that path.
    else await writeFile(full, content, { flag: "wx", mode: entry.mode === "100755" ? 0o777 : 0o666 });
  }
  return { ok: true, value: undefined };
}

/**
 * What is at `path` in the worktree, as one comparable string: nothing, a folder, a link and its
 * target, or a file's executable bit and content hash. Never read through a linked folder.
 */
async function stateOf(worktree: string, path: string): Promise<string> {
  if (!(await underRealFolders(worktree, path))) return "through a link";
  const full = join(worktree, path);
  const info = await lstat(full).catch(() => undefined);
  if (!info) return "none";
  if (info.isSymbolicLink()) return `link ${await readlink(full).catch(() => "?")}`;
  if (!info.isFile()) return "not a file";
  const hash = createHash("sha256")
    .update(await readFile(full))
    .digest("hex");
  return `file ${(info.mode & 0o111) !== 0 ? "x" : "-"} ${hash}`;
}

export async function protect(
  git: GitRunner,
  worktree: string,
  workspace: string,
  baseline: string,
  plan: ProtectionPlan,
  /** The baseline's bytes of a package.json, when the caller already has them. */
  baselineManifest: (path: string) => Buffer | undefined = () => undefined,
  /** The paths the candidate's patch changed: which of them were put back is the learner's to know. */
  candidatePaths: readonly string[] = [],
): Promise<Step<Preparation>> {
  const changed = new Set(candidatePaths);
  const before = new Map<string, string>();
  for (const path of plan.restore) if (changed.has(path)) before.set(path, await stateOf(worktree, path));
  // A script the check runs by name keeps the candidate's executable bit (content comes back).
  const candidateModes = new Map<string, boolean>();
  for (const path of plan.keepCandidateMode) {
    const executable = await candidateExecutable(worktree, path);
    if (executable !== undefined) candidateModes.set(path, executable);
  }
  const restored = await restoreFromBaseline(git, worktree, baseline, plan.restore);
  if (!restored.ok) return restored;
  for (const [path, executable] of candidateModes) {
    const info = await lstat(join(worktree, path)).catch(() => undefined);
    if (!info?.isFile() || !(await underRealFolders(worktree, path))) continue;
    const readable = info.mode & 0o444;
    const mode = executable ? info.mode | (readable >> 2) : info.mode & ~0o111;
    if (mode !== info.mode) await chmod(join(worktree, path), mode & 0o7777);
  }
  const overridden: Preparation["overridden"] = [];
  for (const [path, state] of before) {
    const reason = plan.reasons[path];
    if (reason && (await stateOf(worktree, path)) !== state) overridden.push({ path, ...reason });
  }

  const manifestsMerged: string[] = [];
  for (const manifest of plan.manifests) {
    const merged = await mergeManifest(git, worktree, baseline, manifest, baselineManifest(manifest));
    if (!merged.ok) return merged;
    if (merged.value) manifestsMerged.push(manifest);
  }

  const removedConfigs: string[] = [];
  // Every file the patch added, ignored ones included: the candidate's own .gitignore could
  // otherwise hide a config it force-added in the workspace.
  const added = await git(["ls-files", "--others", "-z"], { cwd: worktree });
  if (!added.ok) return added;
  for (const path of splitNul(added.stdout)) {
    const removal = plan.removalOf(path);
    if (removal === undefined) continue;
    await rm(join(worktree, path), { force: true });
    removedConfigs.push(path);
    overridden.push({ path, rule: removal });
  }

  const {
    linked: linkedNodeModules,
    undeclaredBins,
    linkedBins,
  } = await linkNodeModules(worktree, workspace, plan.manifests);
  return {
    ok: true,
    value: {
      restored: plan.restore,
      manifestsMerged,
      removedConfigs,
      linkedNodeModules,
      undeclaredBins,
      linkedBins,
      overridden,
    },
  };
}

/**
 * A package.json keeps the candidate's other fields (a new dependency is fine) but gets the
 * baseline's scripts and configuration keys back. A missing, linked or unreadable one comes back whole.
 */
async function mergeManifest(
  git: GitRunner,
  worktree: string,
  baseline: string,
  manifest: string,
  known: Buffer | undefined,
): Promise<Step<boolean>> {
  const original = known
    ? { ok: true as const, stdout: known }
    : await git(["show", `${baseline}:${manifest}`], { cwd: worktree });
  if (!original.ok) return original;
  const path = join(worktree, manifest);
  let baselineJson: Record<string, unknown>;
  let candidateJson: Record<string, unknown> | undefined;
  try {
    baselineJson = JSON.parse(original.stdout.toString("utf8"));
  } catch {
    // The baseline's own manifest is not JSON: it was restored whole with the other files.
    return { ok: true, value: false };
  }
  try {
    // Through a linked folder the "manifest" is someone else's file: never read or write it.
    const info = (await underRealFolders(worktree, manifest)) ? await lstat(path) : undefined;
    if (info?.isFile()) candidateJson = JSON.parse(await readFile(path, "utf8"));
  } catch {
    candidateJson = undefined;
  }
  if (
    candidateJson === undefined ||
    candidateJson === null ||
    typeof candidateJson !== "object" ||
    Array.isArray(candidateJson)
  ) {
    await clearTheWay(worktree, manifest);
    await mkdir(dirname(path), { recursive: true });
    await rm(path, { recursive: true, force: true });
    await writeFile(path, original.stdout);
    return { ok: true, value: true };
  }
  const merged: Record<string, unknown> = { ...candidateJson };
  for (const key of PROTECTED_MANIFEST_KEYS) {
    if (key in baselineJson) merged[key] = baselineJson[key];
    else delete merged[key];
  }
  if (JSON.stringify(merged) === JSON.stringify(candidateJson)) return { ok: true, value: false };
  await writeFile(path, `${JSON.stringify(merged, null, 2)}\n`);
  return { ok: true, value: true };
}

/** Folders tools write into under node_modules; each check gets its own, empty. */
export const NODE_MODULES_CACHES = new Set([".cache", ".vite", ".vite-temp", ".vitest"]);

/** A `.bin` folder of the learner's the worktree links whole: its path (repository-relative), where, and its state then. */
export type LinkedBins = { path: string; source: string; state: string | undefined };

/**
 * node_modules come from the workspace as they are, by link: nothing is installed. `.bin`, which
 * npm puts first on a script's PATH, holds only what installed packages declare (declared-bins.ts):
 * linked whole when it is exactly that, as npm leaves it (its state recorded, to be compared when
 * the check ends), else a folder of the worktree's own with a link for each declared entry.
 */
async function linkNodeModules(
  worktree: string,
  workspace: string,
  manifests: readonly string[],
): Promise<{ linked: string[]; undeclaredBins: string[]; linkedBins: LinkedBins[] }> {
  const dirs = new Set([
    "",
    ...manifests.map((manifest) => (posix.dirname(manifest) === "." ? "" : posix.dirname(manifest))),
  ]);
  const linked: string[] = [];
  const undeclaredBins: string[] = [];
  const linkedBins: LinkedBins[] = [];
  for (const dir of dirs) {
    const source = join(workspace, dir, "node_modules");
    const target = join(worktree, dir, "node_modules");
    const entries = await readdir(source).catch(() => undefined);
    if (!entries) continue;
    if (!(await underRealFolders(worktree, posix.join(dir, "node_modules")))) continue;
    if (await lstat(target).catch(() => undefined)) continue;
    // A real folder of links, one a package: what tools write there (caches) stays in the
    // worktree instead of landing in the learner's node_modules through a linked folder.
    await mkdir(target);
    for (const entry of entries) {
      if (NODE_MODULES_CACHES.has(entry)) continue;
      if (entry === ".bin") continue;
      await symlink(join(source, entry), join(target, entry));
    }
    if (entries.includes(".bin")) {
      const bins = declaredBins(source);
      if (bins.asDeclared) {
        // As npm left it: linked whole, as the packages are. Each link costs the run time (a
        // metadata write, 0.5 to 1.2 ms here while git's writes are being flushed: 60 bins made
        // anew cost a run 70 ms); an entry planted after the check moves the folder's times,
        // which the run compares when the check ends (run-in-worktree.ts).
        await symlink(join(source, ".bin"), join(target, ".bin"));
        linkedBins.push({
          path: posix.join(dir, "node_modules/.bin"),
          source: join(source, ".bin"),
          state: bins.folderState,
        });
      } else {
        mkdirSync(join(target, ".bin"));
        // Relative, as npm makes them: `../left-pad/cli.js` is the package linked beside `.bin`.
        for (const { name, target: file } of bins.links) symlinkSync(file, join(target, ".bin", name));
      }
      undeclaredBins.push(...bins.undeclared.map((name) => posix.join(dir, "node_modules/.bin", name)));
    }
    linked.push(posix.join(dir, "node_modules"));
  }
  return { linked, undeclaredBins, linkedBins };
}
