/** Reads a recorded event log back, every line checked against the event schema. */
import { readFile } from "node:fs/promises";
import { type VerifierEvent, VerifierEventSchema } from "../core/events.ts";

/** Every valid event in `file`, in seq order; lines that are not events are counted and skipped. */
export async function readEventLog(file: string): Promise<{ events: VerifierEvent[]; skippedLines: number }> {
  let text: string;
  try {
    text = await readFile(file, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return { events: [], skippedLines: 0 };
    throw error;
  }
  const events: VerifierEvent[] = [];
  let skippedLines = 0;
  for (const line of text.split("\n")) {
    if (line.trim() === "") continue;
    try {
      events.push(VerifierEventSchema.parse(JSON.parse(line)));
    } catch {
      // A line cut short by a crash, or edited by hand: the rest of the log still counts.
      skippedLines++;
    }
  }
  events.sort((a, b) => a.seq - b.seq);
  return { events, skippedLines };
}
