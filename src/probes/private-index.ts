/**
 * A git index pi-quests builds and refreshes itself, for every read that compares the working
 * tree with a commit (clean_tree, dirty, diff_contains, the candidate, the fingerprint's fast
 * path). The learner's index is metadata the agent controls: assume-unchanged, skip-worktree
 * and intent-to-add flags, or crafted stat data that matches an edited file, make git report a
 * changed file as unchanged. This index holds HEAD's tree and only stat data git recorded while
 * pi-quests refreshed it; its sha256 is remembered, and a file that no longer matches (the agent
 * wrote it) is thrown away and rebuilt. Staged but uncommitted work reads as a working-tree
 * change against HEAD, which every caller counts the same way.
 *
 * The files live in a folder of this process under the temporary folder, removed at exit; a new
 * process rebuilds (git hashes every tracked file once), so nothing from another process is trusted.
 */
import { createHash } from "node:crypto";
import { lstatSync, mkdtempSync, readFileSync, rmSync, unlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { findRepository, type GitResult, type GitRunner, pinDrivers, withEnv } from "./git-runner.ts";

export type PrivateIndexFailure = Extract<GitResult, { ok: false }>;

let folder: string | undefined;

function indexFolder(): string {
  if (folder === undefined) {
    const made = mkdtempSync(join(tmpdir(), "pi-quests-index-"));
    folder = made;
    process.once("exit", () => rmSync(made, { recursive: true, force: true }));
  }
  return folder;
}

/** What pi-quests last wrote for a repository: the index's sha256, and the commit it was read from. */
const trusted = new Map<string, { digest: string; commit: string }>();
/** Repository key → the end of the last use: one build or read of an index at a time. */
const queues = new Map<string, Promise<unknown>>();
/** `ls-tree -r -z --full-tree` of recent commits: an object id always names the same tree. */
const trees = new Map<string, Buffer>();
const KEPT_TREES = 8;

/** What a use of the index is told: HEAD's commit ("" before the first) and its full listing. */
export type IndexedTree = { commit: string; tree: Buffer };

export type PrivateIndexOptions = {
  /**
   * "before" (the default): `update-index --refresh` before `use`. "by-use": `use` runs a
   * `git status`, which refreshes and writes this index itself (saving a second pass over the
   * files). "none": HEAD's entries are enough (listing files, not comparing them).
   */
  refresh?: "before" | "by-use" | "none";
  /** HEAD's commit when the caller already asked ("" before the first commit). */
  commit?: string;
  /** The caller passes a runner from pinDrivers: the drivers are not read again. */
  driversPinned?: boolean;
  timeoutMs?: number;
};

/**
 * Runs `use` with a runner whose git reads the private index of the repository around `cwd`,
 * built from HEAD and (unless `refresh` is false) refreshed against the disk first.
 */
export async function withPrivateIndex<T>(
  git: GitRunner,
  cwd: string,
  use: (indexed: GitRunner, head: IndexedTree) => Promise<T>,
  options: PrivateIndexOptions = {},
): Promise<{ ok: true; value: T } | PrivateIndexFailure> {
  const location = findRepository(cwd);
  if (location === undefined) {
    // Not a repository: git's own words say so.
    const asked = await git(["rev-parse", "--git-dir"], { cwd });
    if (!asked.ok) return asked;
    return { ok: false, kind: "git", message: `${cwd} is not inside a git repository.`, stderr: "" };
  }
  const key = createHash("sha256").update(`${location.gitDir}\0${location.workTree}`).digest("hex");
  const previous = queues.get(key) ?? Promise.resolve();
  const once = () => build(git, cwd, location.workTree, key, use, options);
  const run = previous.then(once, once);
  queues.set(key, run);
  try {
    return await run;
  } finally {
    if (queues.get(key) === run) queues.delete(key);
  }
}

async function build<T>(
  git: GitRunner,
  cwd: string,
  workTree: string,
  key: string,
  use: (indexed: GitRunner, head: IndexedTree) => Promise<T>,
  options: PrivateIndexOptions,
): Promise<{ ok: true; value: T } | PrivateIndexFailure> {
  const file = join(indexFolder(), `${key.slice(0, 32)}.index`);
  const timing = options.timeoutMs === undefined ? {} : { timeoutMs: options.timeoutMs };
  // Listing files runs no driver (ls-files); a read-tree then reads them for itself.
  const pinned = options.driversPinned === true || options.refresh === "none";
  const drivers = pinned ? git : await pinDrivers(git, cwd, timing);
  const indexed = withEnv(drivers, { GIT_INDEX_FILE: file });
  const last = trusted.get(key);
  const found = digestOf(file);
  const kept = last !== undefined && found === last.digest;
  if (!kept) removeFile(file);
  trusted.delete(key);

  let commit = options.commit;
  if (commit === undefined) {
    const head = await git(["rev-parse", "--quiet", "--verify", "HEAD^{commit}"], {
      cwd,
      okExitCodes: [0, 1],
      ...timing,
    });
    if (!head.ok) return head;
    commit = head.stdout.toString("utf8").trim();
  }
  const tree = await treeOf(git, cwd, commit, timing);
  if (!tree.ok) return tree;
  if (!kept || last.commit !== commit) {
    // `--reset` (a one-tree merge that never refuses) keeps the stat data of entries whose blob did not change.
    const treeArgs =
      commit === "" ? ["read-tree", "--empty"] : ["read-tree", ...(kept ? ["--reset"] : []), commit];
    const read = await indexed(treeArgs, { cwd, ...timing });
    if (!read.ok) return read;
  }
  const refresh = options.refresh ?? "before";
  const started = Date.now();
  // The digest of what this index held before git refreshed it, if pi-quests knows it.
  const unchanged = kept && last.commit === commit ? found : undefined;
  if (refresh === "before") {
    // Exit code 1: some files differ from HEAD, which is what the callers ask about next.
    const refreshed = await indexed(["update-index", "-q", "--refresh"], {
      cwd,
      okExitCodes: [0, 1],
      ...timing,
    });
    if (!refreshed.ok) return refreshed;
    const settled = await settle(indexed, workTree, tree.value, started, unchanged, file, timing);
    if (!settled.ok) return settled;
    remember(key, file, commit, settled.digest);
    const ready = trusted.get(key)?.digest;
    const value = await use(indexed, { commit, tree: tree.value });
    // `git diff` writes the stat data it refreshed into this index (GIT_OPTIONAL_LOCKS does not
    // stop it): pi-quests' own write, settled like the refresh, so the next call keeps the index
    // instead of building it again and hashing every file.
    const after = await settle(indexed, workTree, tree.value, started, ready, file, timing);
    if (after.ok) remember(key, file, commit, after.digest);
    else trusted.delete(key);
    return { ok: true, value };
  }
  if (refresh === "none") {
    remember(key, file, commit);
    return { ok: true, value: await use(indexed, { commit, tree: tree.value }) };
  }
  // Optional locks on: git status writes the stat data it refreshed into this index, ours.
  const value = await use(withEnv(indexed, { GIT_OPTIONAL_LOCKS: "1" }), { commit, tree: tree.value });
  const settled = await settle(indexed, workTree, tree.value, started, unchanged, file, timing);
  if (!settled.ok) return settled;
  remember(key, file, commit, settled.digest);
  return { ok: true, value };
}

/**
 * Forgets recent stat data (below) only when git wrote the index: when it did not, it recorded
 * nothing new, and what it held was settled when it was written.
 */
async function settle(
  indexed: GitRunner,
  workTree: string,
  tree: Buffer,
  started: number,
  unchanged: string | undefined,
  file: string,
  timing: { timeoutMs?: number },
): Promise<{ ok: true; digest?: string } | PrivateIndexFailure> {
  if (unchanged !== undefined && digestOf(file) === unchanged) return { ok: true, digest: unchanged };
  return forgetRecentStat(indexed, workTree, tree, started, timing);
}

function remember(key: string, file: string, commit: string, known?: string): void {
  const written = known ?? digestOf(file);
  if (written !== undefined) trusted.set(key, { digest: written, commit });
}

async function treeOf(
  git: GitRunner,
  cwd: string,
  commit: string,
  timing: { timeoutMs?: number },
): Promise<{ ok: true; value: Buffer } | PrivateIndexFailure> {
  if (commit === "") return { ok: true, value: Buffer.alloc(0) };
  const known = trees.get(commit);
  if (known) return { ok: true, value: known };
  // No `-l`: sizes from the object store would open every loose object.
  const listed = await git(["ls-tree", "-r", "-z", "--full-tree", commit], { cwd, ...timing });
  if (!listed.ok) return listed;
  trees.set(commit, listed.stdout);
  for (const old of trees.keys()) if (trees.size > KEPT_TREES) trees.delete(old);
  return { ok: true, value: listed.stdout };
}

/**
 * Git compares whole seconds of ctime and mtime here (it is built without nanosecond stat), and
 * the agent sets mtime at will: a file rewritten, same size, within the second its stat data was
 * recorded would look unchanged forever. Entries whose file changed (ctime) in the second before
 * the refresh or later are entered again without stat data, so git reads their content next time.
 */
async function forgetRecentStat(
  indexed: GitRunner,
  workTree: string,
  tree: Buffer,
  refreshStarted: number,
  timing: { timeoutMs?: number },
): Promise<{ ok: true } | PrivateIndexFailure> {
  const since = Math.floor(refreshStarted / 1000) * 1000 - 1000;
  const recent: string[] = [];
  // `<mode> <type> <oid>\t<path>`, which --index-info takes as it is; gitlinks have no file.
  for (const record of tree.toString("utf8").split("\0")) {
    if (record === "" || record.startsWith("160000")) continue;
    if ((changedAt(join(workTree, record.slice(record.indexOf("\t") + 1))) ?? 0) >= since)
      recent.push(record);
  }
  if (recent.length === 0) return { ok: true };
  const entered = await indexed(["update-index", "-z", "--index-info"], {
    cwd: workTree,
    input: `${recent.join("\0")}\0`,
    ...timing,
  });
  return entered.ok ? { ok: true } : entered;
}

/** The file's ctime in ms; undefined when it is gone (git then has no stat data to trust). */
function changedAt(path: string): number | undefined {
  try {
    return lstatSync(path).ctimeMs;
  } catch {
    return undefined;
  }
}

function digestOf(file: string): string | undefined {
  try {
    return createHash("sha256").update(readFileSync(file)).digest("hex");
  } catch {
    return undefined;
  }
}

function removeFile(file: string): void {
  try {
    unlinkSync(file);
  } catch {
    // Not there: nothing to throw away.
  }
}
