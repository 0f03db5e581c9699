/**
 * The learner's quest session in one workspace: which quest is active, when it is evaluated,
 * what the HUD shows, and what `/quest` does. No Pi import: Pi's side (events, UI) comes in
 * through `record`, `command` and the `QuestUi` port; the engine through `createEvaluator`.
 *
 * Evaluation: turn ends are debounced (the caller never waits), `/quest check` and activation
 * run at once, never two at a time (the scheduler). A result is published only if its quest is
 * still the active one and the run was not cancelled; a pass completes the quest, records
 * `quest_completed` and activates the next available quest.
 */
import type { VerifierEvent } from "../core/events.ts";
import {
  QUEST_ACTIVATED_EVENT,
  QUEST_COMPLETED_EVENT,
  type QuestActivation,
} from "../core/lifecycle-events.ts";
import { PI_EVENTS, type PiEvent } from "../core/pi-events.ts";
import type { QuestEvaluator } from "../runtime/quest-evaluator.ts";
import type { DependencyPin } from "../task-verifier/dependencies.ts";
import type { Quest } from "../verifier/quest.ts";
import { formatQuestResult } from "../verifier/report.ts";
import type { QuestResult } from "../verifier/results.ts";
import { createScheduler, type VerifierScheduler } from "../verifier/scheduler.ts";
import type { EventLog } from "./event-log.ts";
import { LIFECYCLE_EVENTS } from "./event-log.ts";
import { type HudState, hudCheck } from "./hud.ts";
import { createIntegrityAlerts, type IntegrityAlerts } from "./integrity-alerts.ts";
import { pinQuest, unpinQuest } from "./pinned-quest.ts";
import type { ActiveQuest, Progress, ProgressStore } from "./progress.ts";
import { emptyProgress } from "./progress.ts";
import { parseQuestCommand, questHelp } from "./quest-command.ts";
import type { SandboxOutcome } from "./sandbox.ts";

export type NotifyLevel = "info" | "warning" | "error";

/** What the controller needs from Pi's UI. Without a UI (print mode) the HUD calls do nothing. */
export type QuestUi = {
  readonly hasUI: boolean;
  showHud(state: HudState): void;
  notify(message: string, level: NotifyLevel): void;
  /** Asks yes or no; undefined when there is no one to ask. */
  confirm(title: string, message: string): Promise<boolean | undefined>;
  /** Command output: a notification in Pi's UI; printed without one (Pi sends it to stderr in print mode). */
  say(text: string): void;
};

/** What an activation pins, besides the quest's definition. */
export type QuestPins = {
  /** HEAD at activation: what git checks and "commits since the quest started" compare against. */
  baseline?: string;
  /** Where command checks take their oracles from: a sandbox template's commit (else `baseline`). */
  oracleBaseline?: string;
  /** node_modules at activation; a command check never runs on changed dependencies. */
  dependencies?: DependencyPin;
};

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
  ): Promise<QuestEvaluator>;
  /** Pins the workspace's node_modules, for a quest whose command checks run in the task verifier. */
  pinDependencies?(): Promise<DependencyPin>;
  /** Sets up the workspace from a sandbox quest's template. */
  prepareSandbox(quest: Quest & { sandboxDir: string }): Promise<SandboxOutcome>;
  /** The workspace's HEAD commit (a full object id), if it is a git repository with one. */
  headCommit(): Promise<string | undefined>;
  sessionId(): string | undefined;
  now?: () => Date;
  debounceMs?: number;
  /** Events that came while the session was opening: recorded first, before any evaluation. */
  backlog?: PiEvent[];
  /** Where altered records and blocked tool calls are reported; the HUD and /quest status show them. */
  alerts?: IntegrityAlerts;
};

export type QuestController = {
  /** Records a Pi event; a turn or run end schedules an evaluation. Returns at once. */
  record(event: PiEvent): void;
  command(args: string): Promise<void>;
  /** The quest ids and titles, for argument completion. */
  quests(): ReadonlyArray<{ id: string; title: string }>;
  /** Resolves when no evaluation is running or scheduled. */
  idle(): Promise<void>;
  /** Cancels a running evaluation (killing its processes) and waits for pending writes. */
  dispose(): Promise<void>;
};

type Active = { record: ActiveQuest; quest: Quest; evaluator?: Promise<QuestEvaluator> };

export async function startQuestController(deps: QuestControllerDeps): Promise<QuestController> {
  const { pack, ui, events } = deps;
  const now = deps.now ?? (() => new Date());
  const alerts = deps.alerts ?? createIntegrityAlerts((message) => ui.notify(message, "warning"));
  const loaded = await deps.progress.load();
  let progress: Progress = loaded.progress;
  if (loaded.kind === "altered") {
    // Events recorded under the altered progress belong to it: they start over with it.
    progress.epochSeq = events.nextSeq();
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
  let active: Active | undefined;
  let evaluating = false;
  /** Why no quest is active although some remain (e.g. the next one needs an empty folder). */
  let notice: string | undefined;
  let disposed = false;

  const save = () => deps.progress.save(progress);
  const byId = (id: string) => pack.find((quest) => quest.id === id);
  const isDone = (id: string) => progress.completed[id] !== undefined;
  const missingRequirements = (quest: Quest) => quest.requires.filter((id) => !isDone(id));
  const nextAvailable = () =>
    pack.find((quest) => !isDone(quest.id) && missingRequirements(quest).length === 0);

  /** 1-based, as the HUD and announcements number quests. */
  const positionOf = (quest: Quest) => pack.findIndex((candidate) => candidate.id === quest.id) + 1;
  /** The last published result, when it is this quest's. */
  const lastResultOf = (questId: string): QuestResult | undefined => {
    const result = progress.lastResult as QuestResult | undefined;
    return result?.quest === questId ? result : undefined;
  };

  const render = () => {
    if (disposed) return;
    ui.showHud(hudState());
  };

  const hudState = (): HudState => {
    const total = pack.length;
    const warning = alerts.hudLine();
    const integrity = warning ? { integrity: warning } : {};
    if (!active) {
      const done = pack.filter((quest) => isDone(quest.id)).length;
      return { kind: "idle", done, total, ...(notice ? { notice } : {}), ...integrity };
    }
    const results = new Map(lastResultOf(active.quest.id)?.checks.map((c) => [c.id, c]));
    return {
      kind: "active",
      title: active.quest.title,
      // A pinned quest the pack no longer has is counted last.
      position: positionOf(active.quest) || total,
      total,
      checks: active.quest.checks.map((check) => hudCheck(check, results.get(check.id))),
      evaluating,
      ...integrity,
    };
  };
  alerts.onChange(render);

  /** What the active quest sees: its own events, and quest lifecycle events since the last reset. */
  const visibleEvents = (record: ActiveQuest): VerifierEvent[] =>
    events
      .events()
      .filter(
        (event) =>
          event.seq >= record.fromSeq || (LIFECYCLE_EVENTS.has(event.name) && event.seq >= progress.epochSeq),
      );

  /**
   * Where the active quest's oracles come from: the commit pinned at activation, or, for a
   * sandbox quest pinned before oracles were recorded, its sandbox's template commit.
   */
  const oracleOf = ({ record, quest }: Active): string | undefined =>
    record.oracleBaseline ??
    (quest.sandboxDir !== undefined && progress.sandbox?.template === quest.sandboxDir
      ? progress.sandbox.baseline
      : undefined);

  const pinsOf = (current: Active): QuestPins => {
    const oracleBaseline = oracleOf(current);
    const { baseline, dependencies } = current.record;
    return {
      ...(baseline ? { baseline } : {}),
      ...(oracleBaseline ? { oracleBaseline } : {}),
      ...(dependencies ? { dependencies } : {}),
    };
  };

  const confirmedFor = (questId: string) => (checkId: string) =>
    progress.confirmations[questId]?.[checkId]?.answer;

  const evaluate = async (signal: AbortSignal) => {
    const current = active;
    if (!current) return;
    evaluating = true;
    render();
    try {
      // A failure to build it (say, a transient git error) is tried again next time.
      current.evaluator ??= deps
        .createEvaluator(current.quest, pinsOf(current), confirmedFor(current.quest.id))
        .catch((error: unknown) => {
          current.evaluator = undefined;
          throw error;
        });
      const evaluator = await current.evaluator;
      const result = await evaluator({
        events: visibleEvents(current.record),
        ...(deps.sessionId() ? { sessionId: deps.sessionId() } : {}),
        signal,
      });
      // A cancelled run, or one whose quest was replaced meanwhile, publishes nothing.
      if (signal.aborted || active !== current || disposed) return;
      progress.lastResult = result;
      // The result is shown as it is (every check green on a pass) before the next quest comes.
      evaluating = false;
      render();
      if (result.status === "pass") await complete(current);
      else await save();
    } finally {
      evaluating = false;
      // A quest activated during this run has drawn itself, and its own evaluation comes next.
      if (active === current || active === undefined) render();
    }
  };

  const makeScheduler = (): VerifierScheduler =>
    createScheduler({
      evaluate,
      ...(deps.debounceMs !== undefined ? { debounceMs: deps.debounceMs } : {}),
      // An infrastructure error is never a pass: the checks stay as they were.
      onError: (error) =>
        ui.notify(`pi-quests could not check the quest: ${(error as Error).message}`, "error"),
    });
  // Replaced on reset, which cancels the running evaluation.
  let scheduler = makeScheduler();

  const complete = async (done: Active) => {
    progress.completed[done.quest.id] = {
      at: now().toISOString(),
      definitionHash: done.record.definitionHash,
    };
    events.record({ name: QUEST_COMPLETED_EVENT, payload: { quest: done.quest.id } }, deps.sessionId());
    active = undefined;
    progress.active = undefined;
    // One notification: Pi's TUI shows only the last of several sent back to back.
    const completed = `Quest complete: ${done.quest.title} ✓`;
    const next = nextAvailable();
    if (!next) {
      await save();
      ui.notify(`${completed}\nEvery quest is done. Well played!`, "info");
      return;
    }
    const started = await activate(next, false);
    if (started.ok) ui.notify(`${completed}\n\n${announcement(next)}`, "info");
    else ui.notify(`${completed}\n\n${started.message}`, "warning");
  };

  const announcement = (quest: Quest) => {
    return `Quest ${positionOf(quest)}/${pack.length}: ${quest.title}\n${quest.goal.trim()}\n(/quest hint if you are stuck)`;
  };

  /**
   * Makes `quest` the active one: sandbox, baseline and definition pinned now. `announce` tells
   * the learner its goal (a quest that starts by itself; `/quest start` says it its own way).
   */
  const activate = async (
    quest: Quest,
    announce = true,
  ): Promise<{ ok: true } | { ok: false; message: string }> => {
    if (quest.sandboxDir) {
      const reuse = progress.sandbox?.template === quest.sandboxDir;
      if (!reuse) {
        const prepared = await deps.prepareSandbox({ ...quest, sandboxDir: quest.sandboxDir });
        if (!prepared.ok) {
          // A quest that is active stays active; only with none is the next one's problem shown.
          if (!active) {
            notice =
              prepared.kind === "not_empty"
                ? `next: "${quest.title}" needs an empty folder (/quest start ${quest.id})`
                : `next: "${quest.title}" could not be set up (/quest start ${quest.id})`;
            progress.active = undefined;
            await save();
            render();
          }
          return { ok: false, message: prepared.message };
        }
        progress.sandbox = {
          template: quest.sandboxDir,
          baseline: prepared.baseline,
          at: now().toISOString(),
        };
      }
    }
    const baseline = await deps.headCommit();
    // Tests come from the template's own commit, never from one made since (say, in an earlier
    // quest on the same sandbox); commits are still counted from HEAD now.
    const oracleBaseline = quest.sandboxDir ? progress.sandbox?.baseline : undefined;
    const pinned = pinQuest(quest);
    const runsInTaskVerifier = quest.checks.some((c) => c.type === "command" && c.isolation === "worktree");
    const dependencies = runsInTaskVerifier ? await deps.pinDependencies?.() : undefined;
    const record: ActiveQuest = {
      questId: quest.id,
      ...pinned,
      ...(baseline ? { baseline } : {}),
      ...(oracleBaseline ? { oracleBaseline } : {}),
      ...(dependencies ? { dependencies } : {}),
      activatedAt: now().toISOString(),
      fromSeq: events.nextSeq(),
      hintsShown: 0,
    };
    events.record(
      {
        name: QUEST_ACTIVATED_EVENT,
        payload: {
          quest: quest.id,
          baseline: baseline ?? null,
          ...(oracleBaseline ? { oracleBaseline } : {}),
        } satisfies QuestActivation,
      },
      deps.sessionId(),
    );
    active = { record, quest };
    notice = undefined;
    progress.active = record;
    progress.lastResult = undefined;
    await save();
    render();
    if (announce) ui.notify(announcement(quest), "info");
    scheduler.questActivated();
    return { ok: true };
  };

  /** Records an event; a blocked tool call is also an integrity alert. */
  const recordEvent = (event: PiEvent) => {
    events.record(event, deps.sessionId());
    if (event.name === PI_EVENTS.toolBlocked) {
      const { toolName, reason } = event.payload as { toolName: string; reason: string };
      alerts.report({ kind: "blocked", toolName, reason });
    }
  };

  for (const event of deps.backlog?.splice(0) ?? []) recordEvent(event);

  // Back where the learner left off: the pinned quest, or the next available one.
  if (progress.active) {
    const restored = unpinQuest(progress.active);
    if (restored.ok) active = { record: progress.active, quest: restored.quest };
    else {
      ui.notify(
        `pi-quests: the active quest could not be restored (${restored.problem}); choose one with /quest list`,
        "warning",
      );
      progress.active = undefined;
      await save();
    }
  }
  if (active) {
    render();
    scheduler.questActivated();
  } else {
    const next = nextAvailable();
    const started = next ? await activate(next) : { ok: true as const };
    if (!started.ok) ui.notify(started.message, "warning");
    render();
  }

  const commands = {
    list() {
      const lines = pack.map((quest, index) => {
        const state = isDone(quest.id)
          ? "✓ done"
          : active?.quest.id === quest.id
            ? "▶ active"
            : missingRequirements(quest).length > 0
              ? `locked: needs ${missingRequirements(quest).join(", ")}`
              : "○ available";
        return `${index + 1}. ${quest.id}: ${quest.title} (${state})`;
      });
      ui.say(["Quests:", ...lines, "Start one with /quest start ID."].join("\n"));
    },

    async start(questId: string | undefined) {
      const ids = pack.map((quest) => quest.id).join(", ");
      if (!questId) return ui.say(`Which quest? /quest start ID, one of: ${ids}`);
      const quest = byId(questId);
      if (!quest) return ui.say(`No quest "${questId}". The quests are: ${ids}`);
      const missing = missingRequirements(quest);
      if (missing.length > 0) {
        return ui.say(`"${quest.title}" needs ${missing.join(", ")} first (/quest start ${missing[0]}).`);
      }
      if (active?.quest.id === quest.id) {
        ui.say(`"${quest.title}" is already the active quest; checking it now.`);
        scheduler.manualCheck();
        return scheduler.idle();
      }
      const started = await activate(quest, false);
      if (!started.ok) return ui.say(started.message);
      ui.say(`Quest started: ${quest.title}\n\n${quest.goal.trim()}`);
      return scheduler.idle();
    },

    async check() {
      if (!active) return ui.say(noActiveQuest());
      const { quest } = active;
      for (const check of quest.checks) {
        if (check.type !== "confirm" || progress.confirmations[quest.id]?.[check.id]?.answer === true)
          continue;
        const answer = await ui.confirm(quest.title, check.prompt);
        if (answer === undefined) continue;
        progress.confirmations[quest.id] = {
          ...progress.confirmations[quest.id],
          [check.id]: { answer, at: now().toISOString() },
        };
        await save();
      }
      scheduler.manualCheck();
      await scheduler.idle();
      const result = lastResultOf(quest.id);
      if (active?.quest.id === quest.id && result) {
        const { passed, failed, pending } = result.counts;
        ui.say(`${quest.title}: ${passed} passed, ${failed} failed, ${pending} pending.`);
      }
    },

    async hint() {
      if (!active) return ui.say(noActiveQuest());
      const { quest, record } = active;
      if (quest.hints.length === 0)
        return ui.say(`"${quest.title}" has no hints. Its goal:\n${quest.goal.trim()}`);
      const index = Math.min(record.hintsShown, quest.hints.length - 1);
      const last = index === quest.hints.length - 1 ? " (the last one)" : "";
      ui.say(`Hint ${index + 1}/${quest.hints.length}${last}: ${quest.hints[index]}`);
      record.hintsShown = Math.min(record.hintsShown + 1, quest.hints.length);
      await save();
    },

    status() {
      const integrity = alerts.statusText();
      if (!active) return ui.say(integrity ? `${noActiveQuest()}\n\n${integrity}` : noActiveQuest());
      const { quest } = active;
      const result = lastResultOf(quest.id);
      const report = result ? formatQuestResult(result, quest.title) : `${quest.title}: not checked yet\n`;
      ui.say(`${report}\nGoal: ${quest.goal.trim()}${integrity ? `\n\n${integrity}` : ""}`);
    },

    async reset() {
      const ok = await ui.confirm(
        "Reset quest progress?",
        "Every quest in this folder starts over. Your files are kept.",
      );
      if (ok !== true) {
        return ui.say(ok === undefined ? "Reset needs Pi's interactive UI to confirm." : "Reset cancelled.");
      }
      await scheduler.dispose();
      scheduler = makeScheduler();
      progress = {
        ...emptyProgress(),
        epochSeq: events.nextSeq(),
        ...(progress.sandbox ? { sandbox: progress.sandbox } : {}),
      };
      active = undefined;
      notice = undefined;
      ui.say("Quest progress reset.");
      const next = nextAvailable();
      const started = next ? await activate(next) : { ok: true as const };
      if (!started.ok) ui.say(started.message);
      await save();
      render();
      await scheduler.idle();
    },
  };

  const noActiveQuest = () =>
    notice ? `No active quest: ${notice}.` : "No active quest. See /quest list, then /quest start ID.";

  return {
    record(event) {
      recordEvent(event);
      if (event.name === PI_EVENTS.turnEnd || event.name === PI_EVENTS.agentEnd) scheduler.turnEnd();
    },
    async command(args) {
      const parsed = parseQuestCommand(args);
      switch (parsed.kind) {
        case "help":
          return ui.say(questHelp());
        case "unknown":
          return ui.say(`Unknown /quest command "${parsed.word}".\n${questHelp()}`);
        case "list":
          return commands.list();
        case "start":
          return commands.start(parsed.questId);
        case "check":
          return commands.check();
        case "hint":
          return commands.hint();
        case "status":
          return commands.status();
        case "reset":
          return commands.reset();
        default:
          return unreachable(parsed);
      }
    },
    quests: () => pack.map(({ id, title }) => ({ id, title })),
    idle: () => scheduler.idle(),
    async dispose() {
      disposed = true;
      await scheduler.dispose();
      await events.flush();
      await save();
    },
  };
}

function unreachable(value: never): never {
  throw new Error(`unexpected /quest command ${JSON.stringify(value)}`);
}
