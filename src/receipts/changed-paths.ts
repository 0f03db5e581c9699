/**
 * What one tool call or `!` command changed in the workspace: the `changedPaths` of its
 * `tool_result` or `user_bash` event (docs/quest-format.md, "What Pi changed"). A look before the
 * call and a look after it (fingerprint/look.ts: every file and link below the workspace with
 * its lstat, generated folders left out as fingerprints leave them out); a path is listed when
 * it was created, deleted, or changed in content or executable bit between the two.
 *
 * "As pi-quests saw them", exactly:
 * - A path whose lstat changed but whose size and executable bit did not (a rewrite, a `touch`)
 *   is compared by content when what it held before is known for sure (fingerprint/
 *   content-memory.ts: files changed shortly before the call, and files pi-quests read after an
 *   earlier call changed them); otherwise it counts as changed. A link's content is its target.
 * - A path whose lstat did not change did not change, unless it had changed within the
 *   timestamp granularity before the call (then it is compared by content, within a budget).
 * - Whatever changed the files between the two looks counts: another call running at the same
 *   time (each call compares with its own look before it, so both may list a change), a process
 *   started earlier, the learner's editor during the call. Nothing outside a call is listed.
 * - A workspace too large or too slow to look at within the look's limits gets no list at all
 *   (the events have no `changedPaths`), and no more looks are taken in it.
 */
import { MAX_CHANGED_PATHS } from "../events/bounds.ts";
import type { ChangedPaths } from "../events/names.ts";
import {
  type ContentMemory,
  createContentMemory,
  type ReadBudget,
  type Reader,
} from "./fingerprint/content-memory.ts";
import { isExecutable } from "./fingerprint/disk.ts";
import { sortedByPath } from "./fingerprint/hash.ts";
import {
  isRacy,
  isRacyAt,
  kindOf,
  type Look,
  type LookLimits,
  type PathStat,
  sameStat,
  statAt,
  takeLook,
} from "./fingerprint/look.ts";
import { createLstatPool, STAT_FIELDS } from "./fingerprint/lstat-pool.ts";

export type { ChangedPaths } from "../events/names.ts";

/** The looks of one workspace, with what they remember from one to the next. */
export type ChangeLooks = {
  /** Looks before a call; undefined when there can be no look (then its event has no list). */
  before(): Promise<CallLook | undefined>;
  /** Why no more looks are taken, once one was refused. */
  refusal(): string | undefined;
  /** Stops the worker threads that share the lstat calls (lstat-pool.ts). */
  close(): Promise<void>;
};

/** A call's look before it, waiting for the one after it. */
export type CallLook = {
  /** Looks again: what changed since the look before, or undefined when this look was refused. */
  after(): Promise<ChangedPaths | undefined>;
};

export type ChangeLookOptions = {
  limits?: LookLimits;
  budget?: ReadBudget;
  maxPaths?: number;
  /** Worker threads sharing the lstat calls (lstat-pool.ts; default one per core but one, at most 3). */
  workers?: number;
};

export function createChangeLooks(workspace: string, options: ChangeLookOptions = {}): ChangeLooks {
  const memory = createContentMemory(options.budget);
  const pool = createLstatPool(options.workers);
  // The last look lends its folder listings (and its list of paths) to the next one.
  let latest: Look | undefined;
  let refusal: string | undefined;

  const look = async (): Promise<Look | undefined> => {
    if (refusal !== undefined) return undefined;
    const outcome = await takeLook(workspace, pool, latest, options.limits);
    if (!outcome.ok) {
      // A workspace over the limits stays over them: no call pays for a refused look again.
      refusal = outcome.reason;
      return undefined;
    }
    latest = outcome.look;
    return outcome.look;
  };

  return {
    async before() {
      const start = await look();
      if (start === undefined) return undefined;
      memory.prepare(start);
      return {
        async after() {
          const end = await look();
          return end && changedBetween(start, end, memory, options.maxPaths);
        },
      };
    },
    refusal: () => refusal,
    close: () => pool.close(),
  };
}

/** How a path's two lstats compare before its content is looked at. */
type Verdict = "same" | "changed" | "maybe";

/**
 * The paths created, deleted, or changed in content or executable bit from `before` to `after`,
 * sorted as git sorts paths; past `maxPaths`, the first ones and `truncated`. Contents are read
 * only for paths whose lstat cannot decide, in order, until the list is full; then the listed
 * files are read (within the budget) so that a later call knows what they hold.
 */
export function changedBetween(
  before: Look,
  after: Look,
  memory: ContentMemory,
  maxPaths = MAX_CHANGED_PATHS,
): ChangedPaths {
  // Each path that may be listed, with its lstat after the call (none: deleted).
  const candidates: { path: string; now: PathStat | undefined }[] = [];
  const undecided = new Map<string, PathStat>();
  const consider = (path: string, was: PathStat | undefined, now: PathStat | undefined) => {
    if (was === undefined && now === undefined) return;
    const verdict =
      was === undefined || now === undefined ? "changed" : compare(path, was, now, before, after);
    if (verdict === "same") return;
    candidates.push({ path, now });
    if (verdict === "maybe") undecided.set(path, was as PathStat);
  };
  if (before.paths === after.paths) {
    // The same names in the same order (look.ts): what did not move at all is skipped unread.
    for (let at = 0; at < after.paths.length; at++) {
      if (untouched(before, after, at)) continue;
      consider(after.paths[at] as string, statAt(before, at), statAt(after, at));
    }
  } else {
    const earlier = new Map(before.paths.map((path, at) => [path, at]));
    for (let at = 0; at < after.paths.length; at++) {
      const path = after.paths[at] as string;
      const was = earlier.get(path);
      earlier.delete(path);
      consider(path, was === undefined ? undefined : statAt(before, was), statAt(after, at));
    }
    for (const [path, at] of earlier) consider(path, statAt(before, at), undefined);
  }

  const reader = memory.budget();
  const listed: { path: string; now: PathStat | undefined }[] = [];
  let truncated = false;
  for (const candidate of sortedByPath(candidates)) {
    const { path, now } = candidate;
    const was = undecided.get(path);
    if (was !== undefined && !contentChanged(path, was, now as PathStat, after.root, memory, reader))
      continue;
    if (listed.length === maxPaths) {
      truncated = true;
      break;
    }
    listed.push(candidate);
  }
  // What the listed files hold now, for a call that rewrites them later with the same bytes.
  for (const { path, now } of listed) {
    if (now !== undefined && kindOf(now) === "file" && memory.blobOf(path, now) === undefined)
      reader.read(after.root, path, now);
  }
  return { paths: listed.map(({ path }) => path), truncated };
}

/** The same lstat at position `at` in both looks, and not one changed just before the first. */
function untouched(before: Look, after: Look, at: number): boolean {
  const o = at * STAT_FIELDS;
  const a = before.stats;
  const b = after.stats;
  return (
    a[o] === b[o] &&
    a[o + 1] === b[o + 1] &&
    a[o + 2] === b[o + 2] &&
    a[o + 3] === b[o + 3] &&
    a[o + 4] === b[o + 4] &&
    !isRacyAt(before, at)
  );
}

function compare(path: string, was: PathStat, now: PathStat, before: Look, after: Look): Verdict {
  const kind = kindOf(now);
  if (kind !== kindOf(was)) return "changed";
  if (kind === "link") return before.targets.get(path) === after.targets.get(path) ? "same" : "changed";
  if (kind === "other") return sameStat(was, now) ? "same" : "changed";
  if (isExecutable(was.mode) !== isExecutable(now.mode) || was.size !== now.size) return "changed";
  // The same lstat is the same file, unless it had just changed: a change in the same tick
  // could leave it as it was.
  if (sameStat(was, now)) return isRacy(was, before.takenAt) ? "maybe" : "same";
  return "maybe";
}

/** Whether the file's bytes differ; unknown before (or unreadable now), a new lstat is a change. */
function contentChanged(
  path: string,
  was: PathStat,
  now: PathStat,
  root: string,
  memory: ContentMemory,
  reader: Reader,
): boolean {
  const earlier = memory.blobOf(path, was);
  const current = earlier === undefined ? undefined : reader.read(root, path, now);
  return current === undefined ? !sameStat(was, now) : current !== earlier;
}
