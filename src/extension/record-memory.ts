/**
 * pi-quests' own records against what this Pi process last wrote to them: "this process's
 * memory wins" (docs/security.md, 1) carried past the end of a session, to the next session of
 * the same Pi (`/reload`, `/new`, `/resume`, `/fork`). A `/reload` is when an extension the agent
 * wrote is loaded, and such code can read the seal key and write records that verify
 * (docs/security.md, 14): a file that changed after this process last wrote it is not trusted,
 * whatever its seals say. The process's memory is process-memory.ts; the progress file's side of
 * it is src/runtime/progress.ts's `ProgressWatch`, the event log's is here.
 *
 * A Pi process that starts has no memory: it reads the files as they are, and only their seals
 * stand between it and a record written while no Pi ran.
 */
import { createHash, type Hash } from "node:crypto";
import { readFile } from "node:fs/promises";
import type { IntegrityReporter } from "../core/integrity.ts";
import type { VerifierEvent } from "../events/schema.ts";
import type { ProgressWatch } from "../runtime/progress.ts";
import type { RememberedLog } from "./process-memory.ts";

/** The event log to open, as this process's memory has it. */
export type OwnEventLog = {
  /** The events the log opens with: this process's own when the file is not what it left. */
  events: VerifierEvent[];
  /** The file is not what this process last left there: it is written again from `events`. */
  changedOnDisk: boolean;
  /** The log writer's `onWritten`: what this process writes is what it remembers. */
  onWritten(write: { kind: "append" | "rewrite"; text: string }): void;
};

/**
 * The log of `file` for a session that opens: `fromFile` are the events read from it. When this
 * process remembers the file and its bytes are not the ones it left, its own events are used.
 */
export async function ownEventLog(
  logs: Map<string, RememberedLog>,
  file: string,
  fromFile: VerifierEvent[],
): Promise<OwnEventLog> {
  const bytes = await readBytes(file);
  const remembered = logs.get(file);
  const changedOnDisk = remembered !== undefined && sha256(bytes) !== remembered.sha256;
  const events = changedOnDisk ? [...remembered.events] : fromFile;
  // What the file holds as this process knows it: the bytes it read and trusts, or (changed) the
  // rewrite the log writes first, which starts it over.
  let written: Hash = createHash("sha256").update(changedOnDisk ? Buffer.alloc(0) : bytes);
  const keep = () => logs.set(file, { sha256: written.copy().digest("hex"), events });
  if (!changedOnDisk) keep();
  return {
    events,
    changedOnDisk,
    onWritten({ kind, text }) {
      if (kind === "rewrite") written = createHash("sha256");
      written.update(text);
      keep();
    },
  };
}

/** What the learner is told when the log was not what this process left. */
export function eventLogChanged(file: string, report: IntegrityReporter): void {
  report({
    kind: "altered",
    record: "event",
    where: file,
    reason:
      "the file changed after this Pi last wrote it, by something other than pi-quests in this Pi: the events this Pi recorded are used, and the file is written again",
  });
}

/** The progress file's watch: this process's memory of it, and the learner told when it changed. */
export function progressWatch(
  written: Map<string, string>,
  file: string,
  report: IntegrityReporter,
): ProgressWatch {
  return {
    written,
    changedOnDisk(backup) {
      report({
        kind: "altered",
        record: "progress",
        where: backup ?? file,
        reason:
          backup === undefined
            ? "it was removed after this Pi last wrote it: pi-quests put its own back"
            : "it changed after this Pi last wrote it, by something other than pi-quests in this Pi: it was set aside, and pi-quests put its own back",
      });
    },
  };
}

function sha256(bytes: Buffer): string {
  return createHash("sha256").update(bytes).digest("hex");
}

async function readBytes(file: string): Promise<Buffer> {
  try {
    return await readFile(file);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return Buffer.alloc(0);
    throw error;
  }
}
