/**
 * Print and JSON mode (no UI): events are recorded to the workspace's log and nothing else
 * happens (unless a Pi with a UI has this workspace's quest session open: then it owns the log,
 * session-lock.ts, and print mode records nothing; nor where the data dir is read-only, as it is
 * to a `pi -p` the agent runs from its sandboxed bash). No HUD to show, and an evaluation would only be cancelled when Pi exits; the next
 * session with a UI, or `pi-quests check --events`, evaluates what was recorded. This path
 * loads no schema library, so `pi -p` starts about as fast as without the extension.
 */
import { openRecordSealer } from "../core/record-sealers.ts";
import { createEventLog, type EventLog, nextSeqOf } from "../events/log-writer.ts";
import { readActivePack } from "../runtime/pack-records.ts";
import { locateDataFolder } from "./data-folder.ts";
import { anotherSessionHolds } from "./session-lock.ts";

/** The log of a print-mode Pi that may not write: it keeps nothing. */
const NOT_RECORDING: EventLog = {
  file: "",
  events: () => [],
  nextSeq: () => 0,
  record: (event, sessionId) => ({ ...event, ...(sessionId ? { sessionId } : {}), seq: 0 }),
  flush: async () => {},
};

export async function openEventRecorder(options: {
  cwd: string;
  env: Record<string, string | undefined>;
  onWriteError: (error: unknown) => void;
}): Promise<EventLog> {
  const {
    eventsFile: file,
    dataDir,
    workspace,
    folder,
    readOnly,
  } = await activePackFolder(options.cwd, options.env);
  // Inside the agent's sandboxed bash the data dir is hidden and read-only: nothing to record to.
  if (readOnly) return NOT_RECORDING;
  // A session with a UI in this workspace owns the log: print mode inside it records nothing.
  if (await anotherSessionHolds(folder)) return NOT_RECORDING;
  const sealer = openRecordSealer(dataDir, "events", workspace);
  // Only new events are held here, so nothing may be dropped: the next full session bounds the log.
  return createEventLog(file, [], await nextSeqOf(file, sealer), {
    sealer,
    maxEvents: Number.POSITIVE_INFINITY,
    onWriteError: options.onWriteError,
  });
}

/** The data folder of the pack active in the workspace (the built-in pack's, or PI_QUESTS_PACK's). */
async function activePackFolder(cwd: string, env: Record<string, string | undefined>) {
  const root = await locateDataFolder(cwd, env);
  if (env.PI_QUESTS_PACK || root.readOnly) return root;
  const active = await readActivePack(root.rootDataDir, root.workspace);
  return active ? locateDataFolder(cwd, env, active) : root;
}
