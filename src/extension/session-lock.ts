/**
 * Who owns a workspace's event log: the Pi session with a UI that has the quest session open
 * holds `session.lock` in the workspace's data folder (its pid) until it closes. That session
 * keeps the log's sequence in memory and is its only writer; a print-mode Pi started meanwhile in
 * the same workspace (a learner's `!pi -p`, a script) records nothing, since its lines would take
 * sequence numbers the session writes again, and the next session would rightly read the second
 * copies as altered. A lock whose process is gone (a crash) is taken as absent. No schema library:
 * print mode reads it.
 */
import { mkdir, rm } from "node:fs/promises";
import { join } from "node:path";
import { writeAtomically } from "../core/atomic-file.ts";
import { readRecordFile } from "../core/record-file.ts";
import { processAlive } from "../probes/os/process-group.ts";

const LOCK_FILE = "session.lock";

/** Takes the lock for this process; `release` removes it (only if it is still this process's). */
export async function holdSessionLock(folder: string): Promise<{ release(): Promise<void> }> {
  const file = join(folder, LOCK_FILE);
  await mkdir(folder, { recursive: true });
  await writeAtomically(file, `${JSON.stringify({ pid: process.pid })}\n`);
  return {
    async release() {
      if ((await lockHolder(folder)) === process.pid) await rm(file, { force: true });
    },
  };
}

/** Whether a live process other than this one holds the workspace's log. */
export async function anotherSessionHolds(folder: string): Promise<boolean> {
  const pid = await lockHolder(folder);
  return pid !== undefined && pid !== process.pid && processAlive(pid);
}

async function lockHolder(folder: string): Promise<number | undefined> {
  try {
    const read = readRecordFile(join(folder, LOCK_FILE), 4096);
    if (!read.ok) return undefined;
    const { pid } = JSON.parse(read.bytes.toString("utf8")) as { pid?: unknown };
    return typeof pid === "number" && Number.isInteger(pid) && pid > 0 ? pid : undefined;
  } catch {
    return undefined;
  }
}
