/**
 * The learner's quest session in one workspace, put together: the session state
 * (quest-session-state.ts), activation and completion (quest-activation.ts), evaluation
 * (quest-evaluation.ts), the HUD state (quest-hud-state.ts) and the `/quest` subcommands
 * (quest-subcommands.ts). No Pi import: Pi's side (events, UI) comes in through `record`,
 * `command` and the `QuestUi` port; the engine through `createEvaluator`.
 */

import type { EventLog } from "../events/log-writer.ts";
import { EVALUATION_TRIGGERS, PI_EVENTS, type PiEvent } from "../events/names.ts";
import type { CarryOver, CarryOverStore } from "../runtime/carry-over.ts";
import type { Progress, ProgressStore } from "../runtime/progress.ts";
import type { QuestEvaluator } from "../runtime/quest-evaluator.ts";
import type { SandboxOutcome, SandboxRecord } from "../runtime/sandbox.ts";
import type { DependencyPin } from "../task-verifier/dependencies.ts";
import { readsChangedPaths } from "../verifier/checks/event.ts";
import { confirmationPrompt } from "../verifier/checks/registry.ts";
import { inLearnerPaths } from "../verifier/learner-paths.ts";
import type { Quest } from "../verifier/quest.ts";
import { formatQuestResult } from "../verifier/report.ts";
import type { AgentCodeNotice } from "./agent-code.ts";
import { carriedOverNote, offerCarriedProgress } from "./carried-progress.ts";
import { createIntegrityAlerts, type IntegrityAlerts } from "./integrity-alerts.ts";
import { createQuestActivator, type QuestStart } from "./quest-activation.ts";
import { questHelp, readQuestCommand } from "./quest-command.ts";
import { createQuestEvaluation, type EvaluatorHooks } from "./quest-evaluation.ts";
import { questHudState } from "./quest-hud-state.ts";
import { type QuestSummary, questSummaries } from "./quest-list.ts";
import { message } from "./quest-message.ts";
import { recheckCompleted } from "./quest-recheck.ts";
import { createQuestSessionState, type QuestPins, type QuestSessionState } from "./quest-session-state.ts";
import { referencePlayOf, solutionMessage } from "./quest-solution.ts";
import { checkSummaryText, learnerStatusText } from "./quest-status.ts";
import type { PackCommands, QuestCommandContext } from "./quest-subcommands.ts";
import type { QuestUi } from "./quest-ui.ts";

export type QuestControllerDeps = {
  pack: readonly Quest[];
  progress: ProgressStore;
  events: EventLog;
  ui: QuestUi;
  /** The evaluator of a pinned quest, with what was pinned at its activation. */
  createEvaluator(
    quest: Quest,
    pins: QuestPins,
    confirmed: (checkId: string) => boolean | undefined,
    hooks?: EvaluatorHooks,
  ): Promise<QuestEvaluator>;
  /** Pins the workspace's node_modules, for a quest whose command checks run in the task verifier. */
  pinDependencies?(): Promise<DependencyPin>;
  /** Sets up the workspace from a sandbox quest's template. */
  prepareSandbox(quest: Quest & { sandboxDir: string }, recorded?: SandboxRecord): Promise<SandboxOutcome>;
  /** The workspace's HEAD commit (a full object id), if it is a git repository with one. */
  headCommit(): Promise<string | undefined>;
  sessionId(): string | undefined;
  now?: () => Date;
  debounceMs?: number;
  /** Events that came while the session was opening: recorded first, before any evaluation. */
  backlog?: PiEvent[];
  /** Where altered records and blocked tool calls are reported; the HUD and /quest status show them. */
  alerts?: IntegrityAlerts;
  /** Which quest starts by itself (`PI_QUESTS_START`, quest-activation.ts); unset: today's rule. */
  start?: QuestStart;
  /** The folder Pi runs in: `/quest status` shows the verifier's worktree paths as paths relative to it. */
  workspace?: string;
  /** What `/quest status` says about how the agent's bash is kept from the records (bash-tool.ts). */
  protectionText?: () => string;
  /** Code Pi wrote that Pi loaded into itself this session (agent-code.ts): a HUD line, a paragraph. */
  agentCode?: AgentCodeNotice;
  /** The active pack's name on the HUD and in `/quest list`; none for the built-in pack (as before packs). */
  packName?: string;
  /** `/quest packs` and `/quest pack ID` (quest-packs.ts). */
  packs?: PackCommands;
  /**
   * What another folder left for a new, empty one, and where this one leaves its quests when a
   * quest needs an empty folder (src/runtime/carry-over.ts).
   */
  carryOver?: CarryOverStore;
  /** How another folder reaches this pack (`/quest pack ID`), when a new folder opens on another. */
  packCommand?: string;
  /** The play file a `pi-quests play --solution` Pi follows (`PI_QUESTS_PLAY_SOLUTION`): `/quest solution` shows it. */
  playedSolution?: string;
};

export type QuestController = {
  /** Records a Pi event; a turn or run end schedules an evaluation. Returns at once. */
  record(event: PiEvent): void;
  command(args: string): Promise<void>;
  /** The quests and where the learner stands with each, for argument completion. */
  quests(): readonly QuestSummary[];
  /**
   * Whether the active quest (its pinned definition) reads what each tool call or `!` command
   * changed: only then does the extension look at the workspace around every call.
   */
  readsChangedPaths(): boolean;
  /** Resolves when no evaluation is running or scheduled. */
  idle(): Promise<void>;
  /** Cancels a running evaluation (killing its processes) and waits for pending writes. */
  dispose(): Promise<void>;
};

export async function startQuestController(deps: QuestControllerDeps): Promise<QuestController> {
  const { pack, ui, events } = deps;
  const now = deps.now ?? (() => new Date());
  const alerts = deps.alerts ?? createIntegrityAlerts((message) => ui.notify(message, "warning"));
  const loaded = await loadProgress(deps, alerts);
  const titleOf = (id: string) => pack.find((quest) => quest.id === id)?.title ?? id;
  const carried =
    loaded.fresh && deps.carryOver ? await offerCarriedProgress(deps.carryOver, ui, titleOf) : undefined;
  const progress = carried ? withCarryOver(loaded.progress, carried) : loaded.progress;
  const session = createQuestSessionState({ pack, progress, store: deps.progress, events, now });
  // Carried quests are this folder's from now on, whatever starts next.
  if (carried) await session.save();
  let disposed = false;

  const render = () => {
    if (disposed) return;
    ui.showHud(
      questHudState(session, {
        evaluating: evaluation.evaluating,
        reviewing: evaluation.reviewing,
        integrity: alerts.hudLine(),
        agentCode: deps.agentCode?.hudLine,
        pack: deps.packName,
      }),
    );
  };
  const evaluation = createQuestEvaluation({
    session,
    createEvaluator: deps.createEvaluator,
    sessionId: deps.sessionId,
    ...(deps.debounceMs !== undefined ? { debounceMs: deps.debounceMs } : {}),
    render,
    complete: (done) => activator.complete(done),
    onError: (message) => ui.notify(message, "error"),
  });
  const activator = createQuestActivator({
    session,
    events,
    ui,
    sessionId: deps.sessionId,
    prepareSandbox: deps.prepareSandbox,
    headCommit: deps.headCommit,
    ...(deps.pinDependencies ? { pinDependencies: deps.pinDependencies } : {}),
    render,
    evaluateActivated: () => evaluation.questActivated(),
    startNext: deps.start !== "off",
    ...(deps.carryOver ? { carryOver: deps.carryOver } : {}),
    ...(deps.packCommand ? { packCommand: deps.packCommand } : {}),
  });
  alerts.onChange(render);

  /** Records an event; a blocked tool call is also an integrity alert. */
  const recordEvent = (event: PiEvent) => {
    events.record(event, deps.sessionId());
    if (event.name === PI_EVENTS.toolBlocked) {
      const { toolName, reason } = event.payload as { toolName: string; reason: string };
      alerts.report({ kind: "blocked", toolName, reason });
    }
  };
  for (const event of deps.backlog?.splice(0) ?? []) recordEvent(event);
  if (carried) ui.notify(message(carriedOverNote(carried)), "info");
  await resume(session, ui, activator.activate, {
    start: deps.start ?? carriedStart(session, carried),
    render,
    evaluate: () => evaluation.questActivated(),
  });

  const context: QuestCommandContext = {
    ...(deps.packs ? { packs: deps.packs } : {}),
    ...(deps.packName ? { packName: deps.packName } : {}),
    session,
    ui,
    evaluation,
    activate: activator.activate,
    skip: activator.skip,
    integrityText: () => alerts.statusText(),
    protectionText: deps.protectionText ?? (() => ""),
    agentCodeText: () => deps.agentCode?.statusText ?? "",
    confirmationPrompt,
    formatResult: (result, title) =>
      formatQuestResult(deps.workspace ? inLearnerPaths(result, deps.workspace) : result, title),
    learnerStatus: learnerStatusText,
    checkSummary: checkSummaryText,
    solution: (quest) => solutionMessage(quest, referencePlayOf(quest)),
    playedSolution: () => playedSolution(deps, session),
    recheckCompleted: () =>
      recheckCompleted({
        session,
        events: () => events.events(),
        createEvaluator: deps.createEvaluator,
        sessionId: deps.sessionId,
      }),
    render,
  };
  return {
    record(event) {
      recordEvent(event);
      if (EVALUATION_TRIGGERS.has(event.name)) evaluation.turnEnd();
    },
    command: (args) => runQuestCommand(args, context),
    quests: () => questSummaries(session),
    readsChangedPaths: () => session.active !== undefined && readsChangedPaths(session.active.quest.checks),
    idle: () => evaluation.idle(),
    async dispose() {
      disposed = true;
      await evaluation.dispose();
      await events.flush();
      await session.save();
    },
  };
}

/** The steps of the play this Pi follows, when it is a `pi-quests play --solution` Pi. */
function playedSolution(deps: QuestControllerDeps, session: QuestSessionState) {
  const file = deps.playedSolution;
  if (file === undefined) return undefined;
  const quest = session.active?.quest ?? session.pack[0];
  const about = { id: quest?.id ?? "", title: quest?.title ?? "" };
  return solutionMessage(about, file, `The play this Pi follows (${file}), step by step`);
}

/** The carried quest, to start by itself when it can start here; else the usual next one. */
function carriedStart(session: QuestSessionState, carried: CarryOver | undefined): QuestStart {
  const quest = carried ? session.byId(carried.quest) : undefined;
  return quest && session.missingRequirements(quest).length === 0 ? { quest: quest.id } : undefined;
}

/** Progress with the quests another folder left for this new one: done and skipped count here too. */
function withCarryOver(progress: Progress, carried: CarryOver): Progress {
  const completed = Object.fromEntries(
    Object.entries(carried.completed).map(([id, done]) => [id, { from: carried.from, ...done }]),
  );
  return { ...progress, completed, skipped: carried.skipped };
}

/**
 * The saved progress (`fresh`: this folder had none); an altered or unreadable file is reported,
 * kept aside, and progress starts over.
 */
async function loadProgress(
  { progress: store, events, ui }: QuestControllerDeps,
  alerts: IntegrityAlerts,
): Promise<{ progress: Progress; fresh: boolean }> {
  const loaded = await store.load();
  if (loaded.kind === "altered") {
    // Events recorded under the altered progress belong to it: they start over with it.
    loaded.progress.epochSeq = events.nextSeq();
    alerts.report({
      kind: "altered",
      record: "progress",
      where: loaded.backup,
      reason: `${loaded.reason === "unsealed" ? "it has no seal" : "its seal does not match its content"}: pi-quests did not write it; progress starts over`,
    });
  }
  if (loaded.kind === "recovered") {
    ui.notify(
      `pi-quests: your progress file could not be read (${loaded.problem}). It was kept as ${loaded.backup}; progress starts over.`,
      "warning",
    );
  }
  return { progress: loaded.progress, fresh: loaded.kind === "fresh" };
}

/**
 * Back where the learner left off: the pinned quest, or the next available one. `start` changes
 * that: `"off"` activates nothing by itself, `{ quest }` activates that quest unless it is the
 * pinned one (a quest it cannot start is a warning, and then none starts by itself).
 */
async function resume(
  session: QuestSessionState,
  ui: QuestUi,
  activate: QuestCommandContext["activate"],
  { start, render, evaluate }: { start: QuestStart; render(): void; evaluate(): void },
): Promise<void> {
  const restored = session.restorePinned();
  if (restored.kind === "unusable") {
    ui.notify(
      `pi-quests: the active quest could not be restored (${restored.problem}); choose one with /quest list`,
      "warning",
    );
    await session.save();
  }
  const asked = typeof start === "object" ? startAsked(session, start.quest) : undefined;
  if (asked && !asked.ok) ui.notify(asked.message, "warning");
  if (session.active && (!asked?.ok || session.active.quest.id === asked.quest.id)) {
    render();
    evaluate();
    return;
  }
  const next = asked
    ? asked.ok
      ? asked.quest
      : undefined
    : start === "off"
      ? undefined
      : session.nextAvailable();
  const started = next ? await activate(next) : { ok: true as const };
  if (!started.ok) ui.notify(started.message, "warning");
  render();
}

/** The quest `PI_QUESTS_START` names, if `/quest start` would start it; else why not. */
function startAsked(
  session: QuestSessionState,
  id: string,
): { ok: true; quest: Quest } | { ok: false; message: string } {
  const quest = session.byId(id);
  if (!quest) {
    const ids = session.pack.map((each) => each.id).join(", ");
    return {
      ok: false,
      message: `pi-quests: PI_QUESTS_START names no quest "${id}". The quests are: ${ids}`,
    };
  }
  const missing = session.missingRequirements(quest);
  if (missing.length > 0) {
    return {
      ok: false,
      message: `pi-quests: PI_QUESTS_START asks for "${quest.title}", which needs ${missing.join(", ")} first (/quest start ${missing[0]}).`,
    };
  }
  return { ok: true, quest };
}

async function runQuestCommand(args: string, context: QuestCommandContext): Promise<void> {
  const line = readQuestCommand(args);
  switch (line.kind) {
    case "help":
      return context.ui.say(questHelp());
    case "unknown":
      return context.ui.say(`Unknown /quest command "${line.word}".\n${questHelp()}`);
    case "subcommand":
      return line.subcommand.run(context, line.rest);
    default:
      return unreachable(line);
  }
}

function unreachable(value: never): never {
  throw new Error(`unexpected /quest command ${JSON.stringify(value)}`);
}
