/**
 * Turns a fresh worktree at the baseline into the candidate under test: the hash-checked patch
 * applied, then everything the verdict rests on put back from the baseline. Only the worktree
 * is written; the learner's files are never touched.
 */
import { createHash } from "node:crypto";
import { lstat, readFile, rm, symlink, unlink, writeFile } from "node:fs/promises";
import { join, posix } from "node:path";
import { type GitRunner, splitNul } from "./git.ts";
import { PROTECTED_MANIFEST_KEYS, type ProtectionPlan } from "./protected-paths.ts";

export type Preparation = {
  restored: string[];
  manifestsMerged: string[];
  removedConfigs: string[];
  linkedNodeModules: string[];
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

/** Removes whatever the candidate put where a restored file's folders must be (a link, a file). */
async function clearTheWay(worktree: string, path: string): Promise<void> {
  const parts = path.split("/");
  let current = worktree;
  for (const part of parts.slice(0, -1)) {
    current = join(current, part);
    const info = await lstat(current).catch(() => undefined);
    if (info && !info.isDirectory()) await unlink(current);
    if (!info || !info.isDirectory()) return;
  }
  const target = await lstat(join(worktree, path)).catch(() => undefined);
  // A folder where the baseline has a file: git cannot check the file out over it.
  if (target?.isDirectory()) await rm(join(worktree, path), { recursive: true, force: true });
}

export async function protect(
  git: GitRunner,
  worktree: string,
  workspace: string,
  baseline: string,
  plan: ProtectionPlan,
): Promise<Step<Preparation>> {
  for (const path of plan.restore) await clearTheWay(worktree, path);
  if (plan.restore.length > 0) {
    const input = Buffer.from(`${plan.restore.join("\0")}\0`);
    const restored = await git(["checkout", baseline, "--pathspec-from-file=-", "--pathspec-file-nul"], {
      cwd: worktree,
      input,
    });
    if (!restored.ok) return restored;
  }

  const manifestsMerged: string[] = [];
  for (const manifest of plan.manifests) {
    const merged = await mergeManifest(git, worktree, baseline, manifest);
    if (!merged.ok) return merged;
    if (merged.value) manifestsMerged.push(manifest);
  }

  const removedConfigs: string[] = [];
  const added = await git(["ls-files", "--others", "--exclude-standard", "-z"], { cwd: worktree });
  if (!added.ok) return added;
  for (const path of splitNul(added.stdout)) {
    if (!plan.removeIfAdded(path)) continue;
    await rm(join(worktree, path), { force: true });
    removedConfigs.push(path);
  }

  const linkedNodeModules = await linkNodeModules(worktree, workspace, plan.manifests);
  return { ok: true, value: { restored: plan.restore, manifestsMerged, removedConfigs, linkedNodeModules } };
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
): Promise<Step<boolean>> {
  const original = await git(["show", `${baseline}:${manifest}`], { cwd: worktree });
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
    const info = await lstat(path);
    if (info.isFile()) candidateJson = JSON.parse(await readFile(path, "utf8"));
  } catch {
    candidateJson = undefined;
  }
  if (candidateJson === undefined || typeof candidateJson !== "object" || Array.isArray(candidateJson)) {
    await clearTheWay(worktree, manifest);
    await rm(path, { force: true });
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

/** node_modules come from the workspace as they are, by link: nothing is installed. */
async function linkNodeModules(
  worktree: string,
  workspace: string,
  manifests: readonly string[],
): Promise<string[]> {
  const dirs = new Set([
    "",
    ...manifests.map((manifest) => (posix.dirname(manifest) === "." ? "" : posix.dirname(manifest))),
  ]);
  const linked: string[] = [];
  for (const dir of dirs) {
    const source = join(workspace, dir, "node_modules");
    const target = join(worktree, dir, "node_modules");
    const sourceInfo = await lstat(source).catch(() => undefined);
    if (!sourceInfo) continue;
    if (await lstat(target).catch(() => undefined)) continue;
    if (!(await lstat(join(worktree, dir)).catch(() => undefined))?.isDirectory()) continue;
    await symlink(source, target, "dir");
    linked.push(posix.join(dir, "node_modules"));
  }
  return linked;
}
