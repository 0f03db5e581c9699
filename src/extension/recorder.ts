/**
 * Print and JSON mode (no UI): events are recorded to the workspace's log and nothing else
 * happens. No HUD to show, and an evaluation would only be cancelled when Pi exits; the next
 * session with a UI, or `pi-quests check --events`, evaluates what was recorded. This path
 * loads no schema library, so `pi -p` starts about as fast as without the extension.
 */
import { openRecordSealer } from "../core/record-sealers.ts";
import { createEventLog, type EventLog, nextSeqOf } from "../events/log-writer.ts";
import { locateDataFolder } from "./data-folder.ts";

export async function openEventRecorder(options: {
  cwd: string;
  env: Record<string, string | undefined>;
  onWriteError: (error: unknown) => void;
}): Promise<EventLog> {
  const { eventsFile: file, dataDir, workspace } = await locateDataFolder(options.cwd, options.env);
  const sealer = openRecordSealer(dataDir, "events", workspace);
  // Only new events are held here, so nothing may be dropped: the next full session bounds the log.
  return createEventLog(file, [], await nextSeqOf(file, sealer), {
    sealer,
    maxEvents: Number.POSITIVE_INFINITY,
    onWriteError: options.onWriteError,
  });
}
