/**
 * A look at a workspace: every file and symbolic link below it with what lstat says of it (type
 * and permissions, inode, size, mtime, ctime), and each link's target; no file is read. Two
 * looks, one before and one after a tool call, tell what the call changed (../changed-paths.ts).
 *
 * What a workspace path is, as fingerprints have it (scan.ts): a generated folder (`.git`,
 * `node_modules`, `dist`, ...) is left out at any depth, and a link is never followed: a link
 * (to a folder too) is one path, whose content is its target string. Unlike a fingerprint, a
 * look reads no `.gitignore`: a file git ignores is still a path a call can create.
 *
 * A folder is listed again only when its own lstat changed since the last look listed it (a
 * name added, removed or renamed in it changes its mtime and ctime), or when that listing was
 * taken within the timestamp granularity of the folder's last change, as git treats a racily
 * clean entry. So a look at a tree whose names did not change lists no folder and builds no
 * path: it is one lstat per folder and per file (those shared with a worker thread,
 * lstat-pool.ts), and it keeps the last look's list of paths, which makes comparing the two a
 * pass over two arrays of numbers.
 */
import { type Dirent, lstatSync, readdirSync, readlinkSync, realpathSync, type Stats } from "node:fs";
import { performance } from "node:perf_hooks";
import { type LstatPool, STAT_FIELDS } from "./lstat-pool.ts";
import { codeOf, FINGERPRINT_LIMITS, isGeneratedName } from "./scan.ts";
import { TIMESTAMP_GRANULARITY_MS } from "./stat-record.ts";

/** A look gives up past these: too many files and folders, or too long. */
export type LookLimits = { entries: number; milliseconds: number };

/** The fingerprint's entry limit; a time short enough for a look before every tool call. */
export const LOOK_LIMITS: LookLimits = { entries: FINGERPRINT_LIMITS.entries, milliseconds: 2_000 };

/** What a look keeps of a path: lstat's type and permissions, inode, size and times. */
export type PathStat = Pick<Stats, "mode" | "ino" | "size" | "mtimeMs" | "ctimeMs">;

/** A folder as a look listed it: its lstat then, when, and its names but generated ones. */
type Listing = PathStat & { listedAt: number; files: readonly string[]; folders: readonly string[] };

export type Look = {
  /** The workspace's real path. */
  root: string;
  /** Date.now() when the look began. */
  takenAt: number;
  /** Every file, link and other non-folder below the root (workspace-relative, `/`-separated). */
  paths: readonly string[];
  /** `paths`, absolute. */
  absolute: readonly string[];
  /** STAT_FIELDS numbers per path, in the order of `paths` (lstat-pool.ts); NaN: gone meanwhile. */
  stats: Float64Array;
  /** Each link's target, by path. */
  targets: ReadonlyMap<string, string>;
  /** The listings, which the next look reuses for folders that did not change. */
  listings: ReadonlyMap<string, Listing>;
};

export type LookOutcome = { ok: true; look: Look } | { ok: false; reason: string };

const S_IFMT = 0o170000;
const S_IFREG = 0o100000;
const S_IFLNK = 0o120000;

/** What lstat said of the path at `at`, or undefined when it was gone by then. */
export function statAt(look: Look, at: number): PathStat | undefined {
  const o = at * STAT_FIELDS;
  const { stats } = look;
  if (Number.isNaN(stats[o])) return undefined;
  return {
    mode: stats[o] as number,
    ino: stats[o + 1] as number,
    size: stats[o + 2] as number,
    mtimeMs: stats[o + 3] as number,
    ctimeMs: stats[o + 4] as number,
  };
}

/** What a path is: a regular file, a symbolic link, or something else (a fifo, a socket, a device). */
export type PathKind = "file" | "link" | "other";

export function kindOf(stat: PathStat): PathKind {
  const type = stat.mode & S_IFMT;
  return type === S_IFREG ? "file" : type === S_IFLNK ? "link" : "other";
}

/** Whether two lstat results are the same for a look: type, permissions, inode, size, times. */
export const sameStat = (a: PathStat, b: PathStat): boolean =>
  a.ctimeMs === b.ctimeMs &&
  a.mtimeMs === b.mtimeMs &&
  a.size === b.size &&
  a.ino === b.ino &&
  a.mode === b.mode;

/**
 * Whether a path last changed within the timestamp granularity before `at` (Date.now()): another
 * change in the same tick could leave its lstat as it was.
 */
export const isRacy = (stat: PathStat, at: number): boolean =>
  stat.mtimeMs >= at - TIMESTAMP_GRANULARITY_MS || stat.ctimeMs >= at - TIMESTAMP_GRANULARITY_MS;

/** `isRacy` of the path at `at` in `look`, as of the look's start, without making its PathStat. */
export function isRacyAt(look: Look, at: number): boolean {
  const o = at * STAT_FIELDS;
  const from = look.takenAt - TIMESTAMP_GRANULARITY_MS;
  return (look.stats[o + 3] as number) >= from || (look.stats[o + 4] as number) >= from;
}

/** Between two slices of folder lstats and listings the event loop runs, as the fingerprint's scan does. */
const SLICE_MS = 10;
const IF_ANY = { throwIfNoEntry: false } as const;

class OverLimit extends Error {}

/** Looks at `workspace`; `previous` (a look of the same workspace) lends its listings. */
export async function takeLook(
  workspace: string,
  pool: LstatPool,
  previous?: Look,
  limits: LookLimits = LOOK_LIMITS,
): Promise<LookOutcome> {
  const started = performance.now();
  const takenAt = Date.now();
  let root: string;
  try {
    root = realpathSync.native(workspace);
  } catch (error) {
    return { ok: false, reason: `cannot open the workspace ${workspace}: ${codeOf(error)}` };
  }
  const earlier = previous?.root === root ? previous : undefined;
  try {
    const walked = await walk(root, earlier, limits, started);
    // The same names as the last look: its lists are this one's, and compare by position.
    const same = walked.reused && earlier !== undefined && walked.paths.length === earlier.paths.length;
    const paths = same ? earlier.paths : walked.paths;
    const absolute = same ? earlier.absolute : paths.map((path) => `${root}/${path}`);
    const stats = await pool.lstatAll(absolute);
    if (performance.now() - started > limits.milliseconds)
      return { ok: false, reason: `over the milliseconds limit (${limits.milliseconds})` };
    return {
      ok: true,
      look: {
        root,
        takenAt,
        paths,
        absolute,
        stats,
        targets: linkTargets(paths, absolute, stats),
        listings: walked.listings,
      },
    };
  } catch (error) {
    if (error instanceof OverLimit) return { ok: false, reason: error.message };
    return { ok: false, reason: `cannot look at ${workspace}: ${codeOf(error)}` };
  }
}

/**
 * Every folder below the root, listed or its listing reused, and the paths of what is not a
 * folder in them; `reused` when every listing was the last look's (so the paths are its paths).
 */
async function walk(root: string, earlier: Look | undefined, limits: LookLimits, started: number) {
  const listings = new Map<string, Listing>();
  const paths: string[] = [];
  let reused = true;
  let entries = 0;
  let sliceStart = performance.now();
  const pending = [""];
  for (let folder = pending.pop(); folder !== undefined; folder = pending.pop()) {
    const stat = lstatSync(folder === "" ? root : `${root}/${folder}`, IF_ANY);
    if (stat === undefined || !stat.isDirectory()) {
      // Gone, or no longer a folder, since its parent was listed.
      if (folder === "") throw new Error("not a folder");
      reused = false;
      if (stat !== undefined) paths.push(folder);
      continue;
    }
    const last = earlier?.listings.get(folder);
    let listing = reusable(last, stat);
    if (listing === undefined) {
      listing = list(root, folder, stat);
      // Listed again (changed, or racy) with the same names: the paths are still the last look's.
      if (last === undefined || !sameNames(last, listing)) reused = false;
    }
    listings.set(folder, listing);
    entries += 1 + listing.files.length;
    if (entries > limits.entries) throw new OverLimit(`over the entries limit (${limits.entries})`);
    const prefix = folder === "" ? "" : `${folder}/`;
    for (const name of listing.files) paths.push(prefix + name);
    for (const name of listing.folders) pending.push(prefix + name);
    if (performance.now() - sliceStart > SLICE_MS) {
      if (performance.now() - started > limits.milliseconds)
        throw new OverLimit(`over the milliseconds limit (${limits.milliseconds})`);
      await new Promise((resolve) => setImmediate(resolve));
      sliceStart = performance.now();
    }
  }
  return { paths, listings, reused };
}

/** Whether two listings of a folder hold the same names, in the same order. */
function sameNames(a: Listing, b: Listing): boolean {
  const same = (x: readonly string[], y: readonly string[]) =>
    x.length === y.length && x.every((name, at) => name === y[at]);
  return same(a.files, b.files) && same(a.folders, b.folders);
}

/** The earlier listing of a folder when it still holds: same lstat, and not taken racily. */
function reusable(listing: Listing | undefined, stat: Stats): Listing | undefined {
  if (listing === undefined || !sameStat(listing, stat) || isRacy(listing, listing.listedAt))
    return undefined;
  return listing;
}

/**
 * The folder's names now, folders apart (by the type the listing gives, which Node takes from
 * lstat when the file system does not say). One that cannot be listed (no permission) holds
 * nothing for the look, and is listed again next time.
 */
function list(root: string, folder: string, stat: Stats): Listing {
  const { mode, ino, size, mtimeMs, ctimeMs } = stat;
  let listedAt = Date.now();
  let children: Dirent[];
  try {
    children = readdirSync(folder === "" ? root : `${root}/${folder}`, { withFileTypes: true });
  } catch {
    children = [];
    listedAt = Number.NEGATIVE_INFINITY;
  }
  const files: string[] = [];
  const folders: string[] = [];
  for (const child of children) {
    if (isGeneratedName(child.name)) continue;
    (child.isDirectory() ? folders : files).push(child.name);
  }
  return { mode, ino, size, mtimeMs, ctimeMs, listedAt, files, folders };
}

/** Each link's target (its content); a link gone since lstat has none. */
function linkTargets(paths: readonly string[], absolute: readonly string[], stats: Float64Array) {
  const targets = new Map<string, string>();
  for (let at = 0; at < paths.length; at++) {
    if (((stats[at * STAT_FIELDS] as number) & S_IFMT) !== S_IFLNK) continue;
    try {
      targets.set(paths[at] as string, readlinkSync(absolute[at] as string));
    } catch {
      // gone meanwhile
    }
  }
  return targets;
}
