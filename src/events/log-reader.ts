/**
 * Reads a recorded event log back, every line checked against its seal and the event schema. A
 * line cut short by a crash is unreadable; a line without a valid seal, or a second copy of a
 * sealed line, is altered: pi-quests did not write it there. Neither ever counts.
 */
import { readFile } from "node:fs/promises";
import { type Sealer, verifyRecord } from "../core/seal.ts";
import { type VerifierEvent, VerifierEventSchema } from "./schema.ts";

export type EventLogRead = {
  /** Every sealed, valid event, in seq order. */
  events: VerifierEvent[];
  /** Lines that are not JSON events (a torn write). */
  skippedLines: number;
  /** The 1-based numbers of lines pi-quests did not write as they are. */
  alteredLines: number[];
};

export async function readEventLog(file: string, sealer: Sealer): Promise<EventLogRead> {
  let text: string;
  try {
    text = await readFile(file, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT")
      return { events: [], skippedLines: 0, alteredLines: [] };
    throw error;
  }
  const events: VerifierEvent[] = [];
  const seqs = new Set<number>();
  let skippedLines = 0;
  const alteredLines: number[] = [];
  const lines = text.split("\n");
  for (const [index, line] of lines.entries()) {
    if (line.trim() === "") continue;
    let json: unknown;
    try {
      json = JSON.parse(line);
    } catch {
      // A line cut short by a crash: the rest of the log still counts.
      skippedLines++;
      continue;
    }
    const verified = verifyRecord(sealer, json);
    if (!verified.ok) {
      alteredLines.push(index + 1);
      continue;
    }
    const parsed = VerifierEventSchema.safeParse(verified.record);
    if (!parsed.success) {
      skippedLines++;
      continue;
    }
    // A sealed line put in twice (a replay) counts once: its seq is taken.
    if (seqs.has(parsed.data.seq)) {
      alteredLines.push(index + 1);
      continue;
    }
    seqs.add(parsed.data.seq);
    events.push(parsed.data);
  }
  events.sort((a, b) => a.seq - b.seq);
  return { events, skippedLines, alteredLines };
}
