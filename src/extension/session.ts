/**
 * Opens the quest session for the folder Pi runs in: the quest pack, the workspace's data
 * folder (`{agent_dir}/quests/workspaces/<key>/`: progress.json, events.jsonl, and the task
 * verifier's and receipts' files), and the real adapters behind the controller. No Pi import.
 */
import { resolve } from "node:path";
import { formatDiagnostic } from "../core/diagnostics.ts";
import { packageRoot } from "../core/package-root.ts";
import { PLAY_SOLUTION_ENV } from "../core/play-replies.ts";
import { openRecordSealer } from "../core/record-sealers.ts";
import type { Sealer } from "../core/seal.ts";
import { readEventLog } from "../events/log-reader.ts";
import { createEventLog } from "../events/log-writer.ts";
import type { PiEvent } from "../events/names.ts";
import type { PiSdkSource } from "../probes/pi-sdk.ts";
import { openCarryOverStore } from "../runtime/carry-over.ts";
import { needsConsent } from "../runtime/pack-records.ts";
import type { FoundPack } from "../runtime/packs.ts";
import { openProgressStore } from "../runtime/progress.ts";
import type { ReviewModelSource } from "../runtime/reviewer.ts";
import { loadQuestPack } from "../verifier/loader.ts";
import { agentCodeNotice, codeWrittenByPi } from "./agent-code.ts";
import { type QuestController, startQuestController } from "./controller.ts";
import { locateDataFolder } from "./data-folder.ts";
import { codeFilesIn } from "./extension-code-looks.ts";
import { createIntegrityAlerts, type IntegrityAlerts } from "./integrity-alerts.ts";
import { freshMemory, type ProcessMemory } from "./process-memory.ts";
import { questStartOf } from "./quest-activation.ts";
import type { PackCommands } from "./quest-subcommands.ts";
import type { QuestUi } from "./quest-ui.ts";
import { eventLogChanged, ownEventLog, progressWatch } from "./record-memory.ts";
import { holdSessionLock } from "./session-lock.ts";

/** The pack that ships with pi-quests: `quests/` at the package root (from src/ or dist/). */
export const BUILT_IN_PACK = resolve(packageRoot(import.meta.dirname), "quests");

export type QuestSessionOptions = {
  cwd: string;
  env: Record<string, string | undefined>;
  ui: QuestUi;
  /** The folder of the Pi that loaded pi-quests, when known: command checks' PI_QUESTS_PI_PACKAGE. */
  piPackage?: string;
  /** Pi's SDK, for skill checks and the reviewer: the running Pi's own (src/runtime/pi-host.ts). */
  pi?: PiSdkSource;
  /** The file that SDK was imported from, when known (what a review's receipt is bound to). */
  piSdkFile?: string;
  sessionId(): string | undefined;
  debounceMs?: number;
  /** Events that came while opening; recorded before the first evaluation. */
  backlog?: PiEvent[];
  /** Where a review check's model comes from when it names none: the learner's model in Pi. */
  reviewModels?: ReviewModelSource;
  /** What `/quest status` says about the agent's bash and pi-quests' records (bash-tool.ts). */
  protectionText?: () => string;
  /** What pi-quests remembers across the sessions of this Pi process; a fresh one by default. */
  memory?: ProcessMemory;
  /** Where Pi loaded extension code from for this session (extension-folders.ts). */
  extensionFolders?: readonly string[];
  /**
   * Set when this Pi was started with code loaded before pi-quests (src/core/process-start.ts):
   * its receipts are kept in memory only, so no later session trusts what this one ran.
   */
  untrustedStart?: boolean;
  /** The pack to play (default: `PI_QUESTS_PACK`'s, else the built-in one), and where its records are kept. */
  pack?: FoundPack;
  /** Its name on the HUD and in `/quest list` (quest-packs.ts' packLabel). */
  packName?: string;
  /** `/quest packs` and `/quest pack ID`. */
  packs?: PackCommands;
};

export type QuestSessionOpened =
  | { ok: true; controller: QuestController }
  | { ok: false; message: string; readOnly?: true };

/**
 * The workspace's events, read once: from here on the in-memory log is the truth, whatever the
 * file comes to say; and when this Pi wrote the file before (a /reload), what it remembers of it
 * (record-memory.ts). What was altered is reported, what was torn is said.
 */
async function readOwnLog(
  eventsFile: string,
  sealer: Sealer,
  memory: ProcessMemory,
  alerts: IntegrityAlerts,
  ui: QuestUi,
) {
  const fromFile = await readEventLog(eventsFile, sealer, "lenient");
  const own = await ownEventLog(memory.eventLogs, eventsFile, fromFile.events);
  if (own.changedOnDisk) eventLogChanged(eventsFile, alerts.report);
  const recorded = own.changedOnDisk ? { events: own.events, alteredLines: [], skippedLines: 0 } : fromFile;
  for (const line of recorded.alteredLines) {
    alerts.report({
      kind: "altered",
      record: "event",
      where: `${eventsFile}:${line}`,
      reason: "the line has no valid seal, or repeats a recorded one: pi-quests did not write it there",
    });
  }
  if (recorded.skippedLines > 0) {
    ui.notify(
      `pi-quests: ${recorded.skippedLines} unreadable line(s) in ${eventsFile} were skipped`,
      "warning",
    );
  }
  return { recorded, own };
}

/** Why a Pi whose data dir is read-only (started from the agent's sandboxed bash) runs no quests. */
function readOnlyMessage(dataDir: string): string {
  return `pi-quests records nothing in this Pi: its records folder ${dataDir} is read-only here (a Pi started from the agent's bash sees it hidden). The Pi that started it keeps the quests.`;
}

export async function openQuestSession(options: QuestSessionOptions): Promise<QuestSessionOpened> {
  const { env, ui } = options;
  const packDir =
    options.pack?.path ?? (env.PI_QUESTS_PACK ? resolve(options.cwd, env.PI_QUESTS_PACK) : BUILT_IN_PACK);
  const pack = await loadQuestPack(packDir);
  if (!pack.ok) {
    const problems = pack.diagnostics.slice(0, 5).map(formatDiagnostic).join("\n");
    return { ok: false, message: `the quest pack ${packDir} has errors:\n${problems}` };
  }
  if (pack.value.length === 0) return { ok: false, message: `the quest pack ${packDir} has no quests` };

  const data = await locateDataFolder(options.cwd, env, options.pack);
  if (data.readOnly) return { ok: false, readOnly: true, message: readOnlyMessage(data.dataDir) };
  const { home, agentDir, dataDir, workspace, eventsFile } = data;
  const alerts = createIntegrityAlerts((message) => ui.notify(message, "warning"));
  const memory = options.memory ?? freshMemory();
  const eventsSealer = openRecordSealer(dataDir, "events", workspace);
  const { recorded, own } = await readOwnLog(eventsFile, eventsSealer, memory, alerts, ui);
  // This session is now the log's only writer (a print-mode Pi meanwhile records nothing).
  const lock = await holdSessionLock(data.folder);
  const firstSeq = recorded.events.reduce((next, event) => Math.max(next, event.seq + 1), 0);
  const events = createEventLog(eventsFile, recorded.events, firstSeq, {
    sealer: eventsSealer,
    onWriteError: (error) =>
      ui.notify(`pi-quests could not record an event: ${(error as Error).message}`, "warning"),
    rewriteFirst: own.changedOnDisk,
    onWritten: own.onWritten,
  });
  const agentCode = agentCodeNotice(
    codeWrittenByPi({
      loaded: codeFilesIn(options.extensionFolders ?? []).keys(),
      events: recorded.events,
      remembered: memory.codeWrittenByTools,
      workspace,
      home,
    }),
    { workspace, home },
  );
  const controller = await startQuestController({
    pack: pack.value,
    progress: openProgressStore(
      data.progressFile,
      openRecordSealer(dataDir, "progress", workspace),
      undefined,
      progressWatch(memory.progress, data.progressFile, alerts.report),
    ),
    events,
    ui,
    alerts,
    sessionId: options.sessionId,
    ...(options.debounceMs !== undefined ? { debounceMs: options.debounceMs } : {}),
    ...(options.backlog ? { backlog: options.backlog } : {}),
    start: questStartOf(env.PI_QUESTS_START),
    ...(env[PLAY_SOLUTION_ENV] ? { playedSolution: env[PLAY_SOLUTION_ENV] } : {}),
    workspace,
    ...(options.protectionText ? { protectionText: options.protectionText } : {}),
    ...(agentCode ? { agentCode } : {}),
    ...(options.packName ? { packName: options.packName } : {}),
    ...(options.packs ? { packs: options.packs } : {}),
    // Only a session with a UI moves progress between folders (carried-progress.ts).
    ...(ui.hasUI ? { carryOver: openCarryOverStore(dataDir, workspace) } : {}),
    ...(options.pack && needsConsent(options.pack) ? { packCommand: `/quest pack ${options.pack.id}` } : {}),
    async createEvaluator(quest, pins, confirmed, hooks) {
      // The engine and its adapters load on the first evaluation, not at Pi's start.
      const { createQuestEvaluator } = await import("../runtime/quest-evaluator.ts");
      return createQuestEvaluator({
        quest,
        workspace,
        ...(quest.sandboxDir ? { sandbox: workspace } : {}),
        ...pins,
        dataDir,
        // Only receipts a Pi session wrote answer here: never the CLI's (src/receipts/writers.ts).
        writer: "pi",
        ...(options.untrustedStart ? { receiptsInMemory: true } : {}),
        agentDir,
        home,
        env,
        confirmed,
        onIntegrityAlert: alerts.report,
        ...(options.reviewModels ? { reviewModels: options.reviewModels } : {}),
        ...(hooks ? { onReviewActivity: hooks.onReviewActivity } : {}),
        ...(options.piPackage ? { piPackage: options.piPackage } : {}),
        ...(options.pi ? { pi: options.pi } : {}),
        ...(options.piSdkFile ? { piSdkFile: options.piSdkFile } : {}),
      });
    },
    // git (execa) loads when a quest first needs it, not while Pi starts.
    async prepareSandbox(quest, recorded) {
      const { prepareSandbox } = await import("../runtime/sandbox.ts");
      return prepareSandbox({
        template: quest.sandboxDir,
        workspace,
        questId: quest.id,
        env,
        ...(recorded ? { recorded } : {}),
      });
    },
    // Read at activation, so a dependency the agent patches afterwards never decides a check.
    async pinDependencies() {
      const { pinDependencies } = await import("../task-verifier/dependencies.ts");
      return pinDependencies(workspace);
    },
    async headCommit() {
      const { createGitProbe } = await import("../probes/git.ts");
      const head = await createGitProbe().resolveRevision(workspace, "HEAD");
      return head.ok ? head.value : undefined;
    },
  });
  return {
    ok: true,
    controller: {
      ...controller,
      async dispose() {
        await controller.dispose();
        await lock.release();
      },
    },
  };
}
