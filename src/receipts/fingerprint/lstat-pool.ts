/**
 * lstat of many paths, shared with worker threads: a look at 10,000 files is that many lstat
 * calls, and on this project's machines one lstat costs 1.5 to 3 µs of system time, so a look
 * on Pi's thread alone would cost about as much as a whole `git status`, which lstats its index
 * on several threads (core.preloadIndex). Here one worker per core but one (at most
 * MAX_WORKERS) takes a part of the paths while Pi's thread does the first part. Below
 * PARALLEL_FROM paths, while the workers are busy with another look, or before they have
 * started, Pi's thread does them all.
 *
 * Each path's lstat becomes STAT_FIELDS numbers in a Float64Array: NaN for a path that is gone.
 * The workers write their parts into the same memory (a SharedArrayBuffer).
 */
import { lstatSync, type Stats } from "node:fs";
import { availableParallelism } from "node:os";
import { Worker } from "node:worker_threads";

/** Numbers per path: mode (type and permissions), inode, size, mtime, ctime (ms). */
export const STAT_FIELDS = 5;

/** Fewer paths than this are not worth a message to a worker. */
export const PARALLEL_FROM = 2_000;

/** Workers at most: past a few threads the file system, not the calls, is what waits. */
export const MAX_WORKERS = 3;

/**
 * A worker's code, the same loop as `lstatInto` below. Given as text (a worker evaluated from a
 * string) so that the built package, one bundle, needs no file of its own for it. A worker keeps
 * the last part it was sent, so a look at an unchanged tree sends no paths.
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
  /** How many workers have started and take a part (none on one core, or when they failed). */
  started(): Promise<number>;
  /** Ends the workers (the session is over); later calls work on Pi's thread alone. */
  close(): Promise<void>;
};

/** One worker per core but the one Pi's thread runs on, at most MAX_WORKERS. */
function defaultWorkers(): number {
  return Math.min(availableParallelism() - 1, MAX_WORKERS);
}

/** One worker, and the list (and where in it) of the part it holds. */
type Helper = { worker: Worker; holds?: { paths: readonly string[]; from: number } };

/** A pool whose workers start in the background, on a machine with more than one core. */
export function createLstatPool(workers = defaultWorkers()): LstatPool {
  const helpers: Helper[] = [];
  let busy = false;
  let closed = false;
  const starting = Array.from({ length: Math.max(0, workers) }, () => startHelper(helpers));
  const started = Promise.all(starting).then(() => helpers.length);

  /** Pi's thread does the first part, each helper one of the others, into the same memory. */
  const inParts = async (paths: readonly string[], stats: Float64Array, working: Helper[]) => {
    busy = true;
    const part = Math.ceil(paths.length / (working.length + 1));
    try {
      const answers = working.map((helper, index) => {
        const from = (index + 1) * part;
        const held = helper.holds?.paths === paths && helper.holds.from === from;
        const list = held ? undefined : paths.slice(from, from + part);
        helper.holds = { paths, from };
        return answerOf(helper, { list, buffer: stats.buffer, from }).catch(() => {
          // The worker is gone: its part is done here.
          helpers.splice(helpers.indexOf(helper), 1);
          lstatInto(paths, stats, from, Math.min(paths.length, from + part));
        });
      });
      lstatInto(paths, stats, 0, Math.min(paths.length, part));
      await Promise.all(answers);
    } finally {
      busy = false;
    }
  };

  return {
    async lstatAll(paths) {
      const stats = new Float64Array(new SharedArrayBuffer(paths.length * STAT_FIELDS * 8));
      const working = [...helpers];
      if (working.length > 0 && !busy && paths.length >= PARALLEL_FROM) await inParts(paths, stats, working);
      else lstatInto(paths, stats, 0, paths.length);
      return stats;
    },
    started: () => started,
    async close() {
      closed = true;
      await started;
      const stopping = helpers.splice(0);
      await Promise.all(stopping.map(({ worker }) => worker.terminate()));
    },
  };

  /** A worker that joins `helpers` once online; not one that fails, or comes after `close`. */
  function startHelper(into: Helper[]): Promise<void> {
    const worker = new Worker(WORKER_SOURCE, { eval: true });
    return new Promise((resolve) => {
      worker.once("online", () => {
        // Once started, never what keeps Pi's process alive.
        worker.unref();
        if (closed) void worker.terminate();
        else into.push({ worker });
        resolve();
      });
      const gone = () => {
        const at = into.findIndex((helper) => helper.worker === worker);
        if (at >= 0) into.splice(at, 1);
        resolve();
      };
      worker.on("error", gone);
      worker.once("exit", gone);
    });
  }
}

/** Sends `message` to the helper's worker and waits for its answer (rejected if it exits first). */
function answerOf(
  helper: Helper,
  message: { list: readonly string[] | undefined; buffer: ArrayBufferLike; from: number },
) {
  const { worker } = helper;
  return new Promise<void>((resolve, reject) => {
    const answered = () => {
      worker.off("exit", exited);
      resolve();
    };
    const exited = () => {
      worker.off("message", answered);
      helper.holds = undefined;
      reject(new Error("the lstat worker exited"));
    };
    worker.once("message", answered);
    worker.once("exit", exited);
    worker.postMessage(message);
  });
}
