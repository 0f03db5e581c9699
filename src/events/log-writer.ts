/**
 * The recorded events of one workspace, as `pi-quests check --events` reads them: one
 * `{name, sessionId, seq, payload}` JSON object a line. Recording is synchronous in memory (a
 * handler returns at once) and the file is appended in the background, one line a write, in
 * order. The log is bounded: past `maxEvents` the oldest ordinary events are dropped (the file
 * rewritten atomically); quest lifecycle events are kept, since `after: quest-id` needs them.
 * Long strings in payloads are cut, so a large file written by a tool does not bloat the log.
 * Every line carries a seal (src/core/seal.ts), so a line pi-quests did not write is known when
 * the log is read back; while a session runs, these in-memory events are the truth.
 */
import { appendFile, mkdir, open } from "node:fs/promises";
import { dirname } from "node:path";
import { writeAtomically } from "../core/atomic-file.ts";
import { type Sealer, sealRecord, verifyRecord } from "../core/seal.ts";
import { boundPayload } from "./bounds.ts";
import { LIFECYCLE_EVENTS, type PiEvent } from "./names.ts";
import type { VerifierEvent } from "./schema.ts";

export const DEFAULT_MAX_EVENTS = 5000;

export type EventLog = {
  readonly file: string;
  /** Every kept event, in seq order. */
  events(): readonly VerifierEvent[];
  /** The seq the next event gets. */
  nextSeq(): number;
  /** Records an event now; the file catches up in the background (see `flush`). */
  record(event: PiEvent, sessionId?: string): VerifierEvent;
  /** Resolves when everything recorded so far is in the file. */
  flush(): Promise<void>;
};

export type EventLogOptions = {
  /** Seals each line written (src/core/record-sealers.ts: the workspace's events sealer). */
  sealer: Sealer;
  /** Past this many events the oldest ordinary ones are dropped; Infinity keeps all. */
  maxEvents?: number;
  onWriteError?: (error: unknown) => void;
  /**
   * The file is written again from `events` first: it holds lines this process did not write
   * (the extension's memory of its own log says so, src/extension/record-memory.ts).
   */
  rewriteFirst?: boolean;
  /** Each write once it is in the file, in order: the text appended, or the whole new file. */
  onWritten?: (write: { kind: "append" | "rewrite"; text: string }) => void;
};

/**
 * A log that appends to `file`, holding `events` (already in the file) and numbering new events
 * from `nextSeq`. No schema library: print mode records through this alone, and must load fast.
 */
export function createEventLog(
  file: string,
  events: VerifierEvent[],
  firstSeq: number,
  options: EventLogOptions,
): EventLog {
  const lineOf = (event: VerifierEvent) => `${JSON.stringify(sealRecord(options.sealer, event))}\n`;
  const maxEvents = options.maxEvents ?? DEFAULT_MAX_EVENTS;
  let nextSeq = firstSeq;
  let writes: Promise<void> = Promise.resolve();
  const enqueue = (write: () => Promise<void>) => {
    writes = writes.then(write).catch((error) => options.onWriteError?.(error));
  };
  const append = (text: string) =>
    enqueue(() => appendFile(file, text).then(() => options.onWritten?.({ kind: "append", text })));
  const rewrite = (text: string) =>
    enqueue(() => writeAtomically(file, text).then(() => options.onWritten?.({ kind: "rewrite", text })));
  enqueue(() => mkdir(dirname(file), { recursive: true }).then(() => {}));
  if (options.rewriteFirst) rewrite(events.map(lineOf).join(""));
  return {
    file,
    events: () => events,
    nextSeq: () => nextSeq,
    record(event, sessionId) {
      const recorded: VerifierEvent = {
        name: event.name,
        ...(sessionId ? { sessionId } : {}),
        seq: nextSeq++,
        payload: boundPayload(event.payload),
      };
      events.push(recorded);
      if (events.length > maxEvents) {
        compact(events, maxEvents);
        rewrite(events.map(lineOf).join(""));
      } else {
        append(lineOf(recorded));
      }
      return recorded;
    },
    flush: () => writes,
  };
}

/**
 * The seq after the last one in `file` (0 for no file), read from the end: a window of 64 KiB,
 * doubled until it holds a whole line that parses and verifies (or is the whole file). A line
 * pi-quests did not write does not move the numbering.
 */
export async function nextSeqOf(file: string, sealer: Sealer): Promise<number> {
  let handle: Awaited<ReturnType<typeof open>>;
  try {
    handle = await open(file, "r");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return 0;
    throw error;
  }
  try {
    const { size } = await handle.stat();
    for (let window = 64 * 1024; ; window *= 2) {
      const length = Math.min(size, window);
      const buffer = Buffer.alloc(length);
      await handle.read(buffer, 0, length, size - length);
      const lines = buffer.toString("utf8").split("\n");
      // Unless the window starts the file, its first line may be cut: it does not count.
      const whole = length === size ? lines : lines.slice(1);
      for (const line of whole.reverse()) {
        const seq = seqOf(line, sealer);
        if (seq !== undefined) return seq + 1;
      }
      if (length === size) return 0;
    }
  } finally {
    await handle.close();
  }
}

function seqOf(line: string, sealer: Sealer): number | undefined {
  try {
    const verified = verifyRecord<{ seq?: unknown }>(sealer, JSON.parse(line));
    if (!verified.ok) return undefined;
    const { seq } = verified.record;
    return Number.isInteger(seq) && (seq as number) >= 0 ? (seq as number) : undefined;
  } catch {
    return undefined; // a partial line (a crash mid-write): look at the one before
  }
}

/** Drops the oldest ordinary events until a quarter of the room is free again. */
function compact(events: VerifierEvent[], maxEvents: number): void {
  const target = Math.floor(maxEvents * 0.75);
  let excess = events.length - target;
  const kept = events.filter((event) => {
    if (excess > 0 && !LIFECYCLE_EVENTS.has(event.name)) {
      excess--;
      return false;
    }
    return true;
  });
  events.splice(0, events.length, ...kept);
}
