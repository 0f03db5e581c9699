/**
 * lstat of many paths, shared with one worker thread: a look at 10,000 files is that many lstat
 * calls, and on this project's machines one lstat costs 1.5 to 3 µs of system time, so a look
 * alone on Pi's thread would cost about as much as `git status`, which lstats its index on
 * several threads (core.preloadIndex). The worker lstats the second half of the paths while
 * Pi's thread does the first; below PARALLEL_FROM paths, or while the worker is busy with
 * another look, or before it has started, Pi's thread does them all.
 *
 * Each path's lstat becomes STAT_FIELDS numbers (look.ts) in a Float64Array: NaN for a path
 * that is gone. The worker writes its half into the same memory (a SharedArrayBuffer).
 */
import { lstatSync, type Stats } from "node:fs";
import { availableParallelism } from "node:os";
import { Worker } from "node:worker_threads";

/** Numbers per path: mode (type and permissions), inode, size, mtime, ctime (ms). */
export const STAT_FIELDS = 5;

/** Fewer paths than this are not worth a message to the worker. */
export const PARALLEL_FROM = 2_000;

/**
 * The worker's code, the same loop as `lstatInto` below. Given as text (a worker evaluated from
 * a string) so that the built package, one bundle, needs no file of its own for it.
 */
const WORKER_SOURCE = `
const { parentPort } = require("node:worker_threads");
const { lstatSync } = require("node:fs");
let paths = [];
parentPort.on("message", ({ list, buffer, from }) => {
  if (list !== undefined) paths = list;
  const stats = new Float64Array(buffer);
  for (let i = 0; i < paths.length; i++) {
    let seen;
    try { seen = lstatSync(paths[i], { throwIfNoEntry: false }); } catch {}
    const o = (from + i) * ${STAT_FIELDS};
    if (seen === undefined) { stats.fill(NaN, o, o + ${STAT_FIELDS}); continue; }
    stats[o] = seen.mode; stats[o + 1] = seen.ino; stats[o + 2] = seen.size;
    stats[o + 3] = seen.mtimeMs; stats[o + 4] = seen.ctimeMs;
  }
  parentPort.postMessage(null);
});
`;

/** Writes the lstat of `paths[from..to)` into `stats`; a path gone (or unreadable) is NaN. */
export function lstatInto(paths: readonly string[], stats: Float64Array, from: number, to: number): void {
  for (let at = from; at < to; at++) setStat(stats, at, lstatOrNothing(paths[at] as string));
}

function lstatOrNothing(path: string): Stats | undefined {
  try {
    return lstatSync(path, { throwIfNoEntry: false });
  } catch {
    return undefined; // ENOTDIR: a folder on the way became a file
  }
}

function setStat(stats: Float64Array, at: number, seen: Stats | undefined): void {
  const o = at * STAT_FIELDS;
  if (seen === undefined) {
    stats.fill(Number.NaN, o, o + STAT_FIELDS);
    return;
  }
  stats[o] = seen.mode;
  stats[o + 1] = seen.ino;
  stats[o + 2] = seen.size;
  stats[o + 3] = seen.mtimeMs;
  stats[o + 4] = seen.ctimeMs;
}

export type LstatPool = {
  /** The lstat of every path, STAT_FIELDS numbers each. */
  lstatAll(paths: readonly string[]): Promise<Float64Array>;
  /** Whether the worker has started and takes its half (false: there is none, or it failed). */
  started(): Promise<boolean>;
  /** Ends the worker (the session is over); later calls work on Pi's thread alone. */
  close(): Promise<void>;
};

/** A pool with its worker started in the background, on a machine with more than one core. */
export function createLstatPool(): LstatPool {
  let worker: Worker | undefined;
  let ready = false;
  let busy = false;
  // The list the worker holds: sent again only when a look's paths are another list.
  let sent: readonly string[] | undefined;
  let started = Promise.resolve(false);
  if (availableParallelism() > 1) {
    const starting = new Worker(WORKER_SOURCE, { eval: true });
    worker = starting;
    // Never what keeps Pi's process alive.
    starting.unref();
    started = new Promise((resolve) => {
      starting.once("online", () => {
        ready = true;
        resolve(true);
      });
      const gone = () => {
        worker = undefined;
        resolve(false);
      };
      starting.on("error", gone);
      starting.once("exit", gone);
    });
  }

  /** The first half here, the second in the worker, into the same memory. */
  const inParallel = async (paths: readonly string[], stats: Float64Array, running: Worker) => {
    busy = true;
    const half = Math.ceil(paths.length / 2);
    let answered: () => void = () => {};
    let exited: () => void = () => {};
    try {
      const done = new Promise<void>((resolve, reject) => {
        answered = () => resolve();
        exited = () => reject(new Error("the lstat worker exited"));
        running.once("message", answered);
        running.once("exit", exited);
      });
      running.postMessage({
        list: sent === paths ? undefined : paths.slice(half),
        buffer: stats.buffer,
        from: half,
      });
      sent = paths;
      lstatInto(paths, stats, 0, half);
      await done;
    } catch {
      // The worker is gone: its half is done here.
      worker = undefined;
      sent = undefined;
      lstatInto(paths, stats, half, paths.length);
    } finally {
      running.off("message", answered);
      running.off("exit", exited);
      busy = false;
    }
  };

  return {
    async lstatAll(paths) {
      const stats = new Float64Array(new SharedArrayBuffer(paths.length * STAT_FIELDS * 8));
      const running = worker;
      if (running !== undefined && ready && !busy && paths.length >= PARALLEL_FROM)
        await inParallel(paths, stats, running);
      else lstatInto(paths, stats, 0, paths.length);
      return stats;
    },
    started: () => started,
    async close() {
      const running = worker;
      worker = undefined;
      await running?.terminate();
    },
  };
}
