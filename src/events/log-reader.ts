/**
 * Reads recorded events back: one `{name, sessionId?, seq, payload}` JSON object a line, blank
 * lines allowed, each line checked against its seal and the event schema. Two ways to read, by
 * whose file it is:
 *
 * - `lenient`, pi-quests' own log (the extension): a line cut short by a crash, or one that is
 *   not an event, is skipped and counted; a line without a valid seal, or a second copy of a
 *   sealed line, is altered (pi-quests did not write it there) and named. Neither ever counts;
 *   the rest of the log does, in seq order. A missing file is an empty log.
 * - `strict`, the author's file (`pi-quests check --events`): a malformed line is an error
 *   naming its file and line, and so is a seq that does not increase. A line without a seal is
 *   taken as the author's own. A line with a seal that does not verify with the workspace's
 *   events key was changed after pi-quests wrote it, or sealed by another machine's pi-quests:
 *   it is left out with a warning naming it, so an agent cannot pass a sealed log off as its own.
 */
import { readFile, stat } from "node:fs/promises";
import { type Diagnostic, describeFsError } from "../core/diagnostics.ts";
import { SEAL_FIELD, type Sealer, verifyRecord } from "../core/seal.ts";
import { type VerifierEvent, VerifierEventSchema } from "./schema.ts";

export type ReadMode = "lenient" | "strict";

export type LenientRead = {
  /** Every sealed, valid event, in seq order. */
  events: VerifierEvent[];
  /** Lines that are not JSON events (a torn write). */
  skippedLines: number;
  /** The 1-based numbers of lines pi-quests did not write as they are. */
  alteredLines: number[];
};

export type StrictRead =
  | { ok: true; events: VerifierEvent[]; warnings: Diagnostic[] }
  | { ok: false; diagnostics: Diagnostic[] };

/** An events file larger than this is refused (about a million recorded events). */
export const MAX_EVENTS_FILE_BYTES = 256 * 1024 * 1024;
const MAX_REPORTED = 20;

export const ALTERED_LINE_WARNING =
  "its seal does not verify with this data dir's key: altered, or sealed by another machine's pi-quests; remove its seal field to vouch for it yourself. Left out";

export function readEventLog(file: string, sealer: Sealer, mode: "lenient"): Promise<LenientRead>;
export function readEventLog(file: string, sealer: Sealer, mode: "strict"): Promise<StrictRead>;
export async function readEventLog(
  file: string,
  sealer: Sealer,
  mode: ReadMode,
): Promise<LenientRead | StrictRead> {
  switch (mode) {
    case "lenient":
      return readOwnLog(file, sealer);
    case "strict":
      return readAuthorsFile(file, sealer);
  }
}

async function readOwnLog(file: string, sealer: Sealer): Promise<LenientRead> {
  let text: string;
  try {
    text = await readFile(file, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT")
      return { events: [], skippedLines: 0, alteredLines: [] };
    throw error;
  }
  return keepSealedEvents(linesOf(text), sealer);
}

async function readAuthorsFile(file: string, sealer: Sealer): Promise<StrictRead> {
  let text: string;
  try {
    const info = await stat(file);
    if (info.size > MAX_EVENTS_FILE_BYTES) {
      return problem(
        file,
        0,
        `is ${info.size} bytes; an events file may be at most ${MAX_EVENTS_FILE_BYTES}`,
      );
    }
    const bytes = await readFile(file);
    if (bytes.includes(0)) return problem(file, 0, "is a binary file, not JSON lines");
    text = bytes.toString("utf8");
  } catch (error) {
    return problem(file, 0, describeFsError(error));
  }
  return keepAuthorsEvents(linesOf(text), sealer, file);
}

type Line = { content: string; number: number };

const linesOf = (text: string): Line[] =>
  text.split("\n").map((content, index) => ({ content, number: index + 1 }));

/** One line of a log, before the policy of the mode decides what it means. */
type LineReading =
  | { kind: "blank" }
  | { kind: "not-json"; message: string }
  | { kind: "bad-seal" }
  | { kind: "not-an-event"; issues: string[] }
  | { kind: "event"; event: VerifierEvent };

/**
 * Reads one line. `unsealed` says what a line without a seal is: the author's own (`accept`), or
 * a line pi-quests did not write (`reject`, where every line must carry its seal).
 */
function readLine(content: string, sealer: Sealer, unsealed: "accept" | "reject"): LineReading {
  const text = content.trim();
  if (text === "") return { kind: "blank" };
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    return { kind: "not-json", message: error instanceof Error ? error.message : String(error) };
  }
  const hasSeal = json !== null && typeof json === "object" && SEAL_FIELD in json;
  if (hasSeal || unsealed === "reject") {
    const verified = verifyRecord(sealer, json);
    if (!verified.ok) return { kind: "bad-seal" };
    json = verified.record;
  }
  const parsed = VerifierEventSchema.safeParse(json);
  if (!parsed.success) {
    return {
      kind: "not-an-event",
      issues: parsed.error.issues.map((issue) => `${issue.path.join(".") || "event"}: ${issue.message}`),
    };
  }
  return { kind: "event", event: parsed.data };
}

function keepSealedEvents(lines: readonly Line[], sealer: Sealer): LenientRead {
  const events: VerifierEvent[] = [];
  const seqs = new Set<number>();
  let skippedLines = 0;
  const alteredLines: number[] = [];
  for (const line of lines) {
    const reading = readLine(line.content, sealer, "reject");
    switch (reading.kind) {
      case "blank":
        break;
      // A line cut short by a crash: the rest of the log still counts.
      case "not-json":
      case "not-an-event":
        skippedLines++;
        break;
      case "bad-seal":
        alteredLines.push(line.number);
        break;
      case "event":
        // A sealed line put in twice (a replay) counts once: its seq is taken.
        if (seqs.has(reading.event.seq)) {
          alteredLines.push(line.number);
        } else {
          seqs.add(reading.event.seq);
          events.push(reading.event);
        }
        break;
    }
  }
  events.sort((a, b) => a.seq - b.seq);
  return { events, skippedLines, alteredLines };
}

function keepAuthorsEvents(lines: readonly Line[], sealer: Sealer, file: string): StrictRead {
  const events: VerifierEvent[] = [];
  const diagnostics: Diagnostic[] = [];
  const warnings: Diagnostic[] = [];
  let previousSeq = -1;
  for (const line of lines) {
    if (diagnostics.length >= MAX_REPORTED) break;
    const at = (message: string) => diagnostics.push({ file, line: line.number, column: 1, message });
    const reading = readLine(line.content, sealer, "accept");
    switch (reading.kind) {
      case "blank":
        break;
      case "not-json":
        at(`not JSON: ${reading.message}; each line is one event object`);
        break;
      case "bad-seal":
        warnings.push({ file, line: line.number, column: 1, message: ALTERED_LINE_WARNING });
        break;
      case "not-an-event":
        at(
          `not an event (${reading.issues.join("; ")}); an event is {"name", "sessionId"?, "seq", "payload"}`,
        );
        break;
      case "event":
        if (reading.event.seq <= previousSeq) {
          at(
            `seq ${reading.event.seq} is not greater than the previous event's ${previousSeq}; events are in recording order`,
          );
        } else {
          previousSeq = reading.event.seq;
          events.push(reading.event);
        }
        break;
    }
  }
  return diagnostics.length > 0 ? { ok: false, diagnostics } : { ok: true, events, warnings };
}

function problem(file: string, line: number, message: string): StrictRead {
  return { ok: false, diagnostics: [{ file, line, column: line > 0 ? 1 : 0, message }] };
}
