import { readFile, stat } from "node:fs/promises";
import { type Diagnostic, describeFsError } from "../core/diagnostics.ts";
import { SEAL_FIELD, type Sealer, verifyRecord } from "../core/seal.ts";
import { type VerifierEvent, VerifierEventSchema } from "../events/schema.ts";

/** An events file larger than this is refused (about a million recorded events). */
export const MAX_EVENTS_FILE_BYTES = 256 * 1024 * 1024;
const MAX_REPORTED = 20;

export type EventsRead =
  | { ok: true; events: VerifierEvent[]; warnings: Diagnostic[] }
  | { ok: false; diagnostics: Diagnostic[] };

/**
 * Reads recorded events: one JSON object a line, blank lines allowed, `seq` increasing. The file
 * is the author's: a line without a seal is taken as the author's own. A line with a seal is
 * checked against `sealer` (the workspace's events key): one that does not verify was changed
 * after pi-quests wrote it, or sealed by another machine's pi-quests, and is left out with a
 * warning naming it. It never counts, so an agent cannot pass a sealed log off as its own.
 */
export async function readEventsFile(file: string, sealer: Sealer): Promise<EventsRead> {
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
  return parseEventLines(text, file, sealer);
}

export const ALTERED_LINE_WARNING =
  "its seal does not verify with this data dir's key: altered, or sealed by another machine's pi-quests; remove its seal field to vouch for it yourself. Left out";

export function parseEventLines(text: string, file: string, sealer: Sealer): EventsRead {
  const events: VerifierEvent[] = [];
  const diagnostics: Diagnostic[] = [];
  const warnings: Diagnostic[] = [];
  const lines = text.split("\n");
  let previousSeq = -1;
  for (let index = 0; index < lines.length && diagnostics.length < MAX_REPORTED; index++) {
    const line = lines[index]?.trim() ?? "";
    if (line === "") continue;
    const at = (message: string) => diagnostics.push({ file, line: index + 1, column: 1, message });
    let json: unknown;
    try {
      json = JSON.parse(line);
    } catch (error) {
      at(`not JSON: ${(error as Error).message}; each line is one event object`);
      continue;
    }
    if (json !== null && typeof json === "object" && SEAL_FIELD in json) {
      const verified = verifyRecord(sealer, json);
      if (!verified.ok) {
        warnings.push({ file, line: index + 1, column: 1, message: ALTERED_LINE_WARNING });
        continue;
      }
      json = verified.record;
    }
    const parsed = VerifierEventSchema.safeParse(json);
    if (!parsed.success) {
      const issues = parsed.error.issues.map(
        (issue) => `${issue.path.join(".") || "event"}: ${issue.message}`,
      );
      at(`not an event (${issues.join("; ")}); an event is {"name", "sessionId"?, "seq", "payload"}`);
      continue;
    }
    if (parsed.data.seq <= previousSeq) {
      at(
        `seq ${parsed.data.seq} is not greater than the previous event's ${previousSeq}; events are in recording order`,
      );
      continue;
    }
    previousSeq = parsed.data.seq;
    events.push(parsed.data);
  }
  return diagnostics.length > 0 ? { ok: false, diagnostics } : { ok: true, events, warnings };
}

function problem(file: string, line: number, message: string): EventsRead {
  return { ok: false, diagnostics: [{ file, line, column: line > 0 ? 1 : 0, message }] };
}
