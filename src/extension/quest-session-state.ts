/**
 * The learner's standing in one workspace, in memory: the progress record, the active quest and
 * why none is active. Queries and changes of state only; what a change shows or starts (the HUD,
 * notifications, an evaluation) is for quest-activation.ts and the controller.
 */

import type { EventLog } from "../events/log-writer.ts";
import { EVALUATION_TRIGGERS, LIFECYCLE_EVENTS, PI_EVENTS } from "../events/names.ts";
import type { VerifierEvent } from "../events/schema.ts";
import { type ActiveQuest, emptyProgress, type Progress, type ProgressStore } from "../runtime/progress.ts";
import type { QuestEvaluator } from "../runtime/quest-evaluator.ts";
import type { DependencyPin } from "../task-verifier/dependencies.ts";
import type { Quest } from "../verifier/quest.ts";
import type { QuestResult } from "../verifier/results.ts";
import { pinQuest, unpinQuest } from "./pinned-quest.ts";

/** What an activation pins, besides the quest's definition. */
export type QuestPins = {
  /** HEAD at activation: what git checks and "commits since the quest started" compare against. */
  baseline?: string;
  /** Where command checks take their oracles from: a sandbox template's commit (else `baseline`). */
  oracleBaseline?: string;
  /** node_modules at activation; a command check never runs on changed dependencies. */
  dependencies?: DependencyPin;
};

/** The active quest: its record in progress, its pinned definition, and its evaluator once built. */
export type ActiveQuestState = { record: ActiveQuest; quest: Quest; evaluator?: Promise<QuestEvaluator> };

/** Where the learner stands with a quest (`/quest list`, Tab completion). */
export type Standing = "done" | "active" | "skipped" | "locked" | "available";

/** What became of the quest progress had pinned, when the session opened. */
export type Restored = { kind: "none" } | { kind: "restored" } | { kind: "unusable"; problem: string };

export type QuestSessionState = {
  readonly pack: readonly Quest[];
  readonly progress: Progress;
  readonly active: ActiveQuestState | undefined;
  /** Why no quest is active although some remain (e.g. the next one needs an empty folder). */
  readonly notice: string | undefined;
  save(): Promise<void>;
  byId(id: string): Quest | undefined;
  isDone(id: string): boolean;
  /** Skipped and not started again since: not done, but it no longer locks what requires it. */
  isSkipped(id: string): boolean;
  /** The quests `quest` requires that are neither done nor skipped (a skipped one unlocks what needs it). */
  missingRequirements(quest: Quest): string[];
  /** The quests `quest` requires that were skipped: their work may be missing (quest-activation.ts says so). */
  skippedRequirements(quest: Quest): string[];
  /** Done, else active, else skipped, else locked (a requirement not done), else available. */
  standingOf(quest: Quest): Standing;
  /** The first quest in pack order that is neither done nor skipped and whose requirements are done. */
  nextAvailable(): Quest | undefined;
  /** 1-based, as the HUD and announcements number quests; 0 for a quest the pack no longer has. */
  positionOf(quest: Quest): number;
  /** The last published result, when it is this quest's. */
  lastResultOf(questId: string): QuestResult | undefined;
  confirmedFor(questId: string): (checkId: string) => boolean | undefined;
  /**
   * Whether the learner had done anything in this quest when its last result was computed: a
   * turn, a `!` command, or another act a check can see (a model picked, a session named). Until
   * then no check shows as failed: an act the last result has not seen yet (the learner just
   * pressed Enter) turns nothing red before the next result says what it did.
   */
  learnerActed(record: ActiveQuest): boolean;
  /** What the active quest sees: its own events, and quest lifecycle events since the last reset. */
  visibleEvents(record: ActiveQuest): VerifierEvent[];
  pinsOf(active: ActiveQuestState): QuestPins;
  /** The record of `quest` activated now, its events starting with the next one recorded. */
  newActiveRecord(quest: Quest, pins: QuestPins): ActiveQuest;
  makeActive(active: ActiveQuestState): void;
  /** None active, for the reason `notice` gives. */
  waitWith(notice: string): void;
  markCompleted(done: ActiveQuestState): void;
  /** Skipped; the active quest when it is this one is dropped. Starting it again clears the mark. */
  markSkipped(quest: Quest): void;
  /** Makes `result` the last one; `through` is the newest event's seq the evaluation saw. */
  publish(result: QuestResult, through?: number): void;
  recordSandbox(template: string, baseline: string): void;
  recordConfirmation(questId: string, checkId: string, answer: boolean): void;
  recordHintShown(record: ActiveQuest, hintCount: number): void;
  /** Takes up the quest progress had pinned, if its definition can still be used. */
  restorePinned(): Restored;
  /** Every quest starts over; the sandbox record is kept, and earlier events are no longer seen. */
  startOver(): void;
};

export type QuestSessionOptions = {
  pack: readonly Quest[];
  progress: Progress;
  store: ProgressStore;
  events: EventLog;
  now: () => Date;
};

export function createQuestSessionState(options: QuestSessionOptions): QuestSessionState {
  const { pack, store, events, now } = options;
  let progress = options.progress;
  let active: ActiveQuestState | undefined;
  let notice: string | undefined;
  /** The newest event's seq the last published result saw; none: every event (a result from progress). */
  let resultThrough: number | undefined;

  const isDone = (id: string) => progress.completed[id] !== undefined;
  const isSkipped = (id: string) => progress.skipped?.[id] !== undefined;
  const missingRequirements = (quest: Quest) => quest.requires.filter((id) => !isDone(id) && !isSkipped(id));

  return {
    pack,
    get progress() {
      return progress;
    },
    get active() {
      return active;
    },
    get notice() {
      return notice;
    },
    save: () => store.save(progress),
    byId: (id) => pack.find((quest) => quest.id === id),
    isDone,
    isSkipped,
    missingRequirements,
    skippedRequirements: (quest) => quest.requires.filter((id) => !isDone(id) && isSkipped(id)),
    standingOf: (quest) =>
      standingOf(quest, { isDone, isSkipped, missingRequirements, active: active?.quest.id }),
    nextAvailable: () =>
      pack.find(
        (quest) => !isDone(quest.id) && !isSkipped(quest.id) && missingRequirements(quest).length === 0,
      ),
    positionOf: (quest) => pack.findIndex((candidate) => candidate.id === quest.id) + 1,
    lastResultOf(questId) {
      const result = progress.lastResult as QuestResult | undefined;
      return result?.quest === questId ? result : undefined;
    },
    confirmedFor: (questId) => (checkId) => progress.confirmations[questId]?.[checkId]?.answer,
    learnerActed: (record) => learnerActedSince(events.events(), record.fromSeq, resultThrough),
    visibleEvents: (record) => visibleEventsOf(events.events(), record.fromSeq, progress.epochSeq),
    pinsOf: (current) => pinsOf(progress, current),
    newActiveRecord: (quest, { baseline, oracleBaseline, dependencies }) => ({
      questId: quest.id,
      ...pinQuest(quest),
      ...(baseline ? { baseline } : {}),
      ...(oracleBaseline ? { oracleBaseline } : {}),
      ...(dependencies ? { dependencies } : {}),
      activatedAt: now().toISOString(),
      fromSeq: events.nextSeq(),
      hintsShown: 0,
    }),
    makeActive(current) {
      unskip(progress, current.quest.id);
      active = current;
      notice = undefined;
      progress.active = current.record;
      progress.lastResult = undefined;
      resultThrough = undefined;
    },
    waitWith(reason) {
      notice = reason;
      progress.active = undefined;
    },
    markCompleted(done) {
      progress.completed[done.quest.id] = {
        at: now().toISOString(),
        definitionHash: done.record.definitionHash,
      };
      unskip(progress, done.quest.id);
      active = undefined;
      progress.active = undefined;
    },
    markSkipped(quest) {
      progress.skipped = { ...progress.skipped, [quest.id]: { at: now().toISOString() } };
      if (active?.quest.id !== quest.id) return;
      active = undefined;
      progress.active = undefined;
      progress.lastResult = undefined;
    },
    publish(result, through) {
      progress.lastResult = result;
      resultThrough = through;
    },
    recordSandbox(template, baseline) {
      progress.sandbox = { template, baseline, at: now().toISOString() };
    },
    recordConfirmation(questId, checkId, answer) {
      progress.confirmations[questId] = {
        ...progress.confirmations[questId],
        [checkId]: { answer, at: now().toISOString() },
      };
    },
    recordHintShown(record, hintCount) {
      record.hintsShown = Math.min(record.hintsShown + 1, hintCount);
    },
    restorePinned() {
      if (!progress.active) return { kind: "none" };
      const restored = unpinQuest(progress.active);
      if (restored.ok) {
        active = { record: progress.active, quest: restored.quest };
        return { kind: "restored" };
      }
      progress.active = undefined;
      return { kind: "unusable", problem: restored.problem };
    },
    startOver() {
      progress = {
        ...emptyProgress(),
        epochSeq: events.nextSeq(),
        ...(progress.sandbox ? { sandbox: progress.sandbox } : {}),
      };
      active = undefined;
      notice = undefined;
    },
  };
}

/**
 * The events a quest's checks see: its own, from its activation on, and the lifecycle events
 * (session starts and the like) of this progress's epoch, which a quest may need from before it.
 */
function visibleEventsOf<E extends { seq: number; name: string }>(
  all: readonly E[],
  fromSeq: number,
  epochSeq: number,
): E[] {
  return all.filter(
    (event) => event.seq >= fromSeq || (LIFECYCLE_EVENTS.has(event.name) && event.seq >= epochSeq),
  );
}

/**
 * What the learner does: a message, a `!` command, and every other act that schedules an
 * evaluation (a model picked, a session named...). Not a turn's or a run's end: the run of the
 * message that completed the last quest may end after the next one is active, and it was not an
 * act in that quest.
 */
const LEARNER_ACTS: ReadonlySet<string> = new Set(
  [...EVALUATION_TRIGGERS, PI_EVENTS.input].filter(
    (name) => name !== PI_EVENTS.turnEnd && name !== PI_EVENTS.agentEnd,
  ),
);

/**
 * Whether a learner's act was recorded at or after `fromSeq`, and no later than `through` when
 * given (the log is in seq order: read from its end).
 */
function learnerActedSince(recorded: readonly VerifierEvent[], fromSeq: number, through = Infinity): boolean {
  for (let i = recorded.length - 1; i >= 0; i--) {
    const event = recorded[i];
    if (event === undefined || event.seq < fromSeq) return false;
    if (event.seq <= through && LEARNER_ACTS.has(event.name)) return true;
  }
  return false;
}

/** Done, else active, else skipped, else locked, else available. */
function standingOf(
  quest: Quest,
  is: Pick<QuestSessionState, "isDone" | "isSkipped" | "missingRequirements"> & { active?: string },
): Standing {
  if (is.isDone(quest.id)) return "done";
  if (is.active === quest.id) return "active";
  if (is.isSkipped(quest.id)) return "skipped";
  return is.missingRequirements(quest).length > 0 ? "locked" : "available";
}

/** Takes `id` off the skipped quests (it was started again, or completed). */
function unskip(progress: Progress, id: string): void {
  if (progress.skipped?.[id] === undefined) return;
  const { [id]: _dropped, ...rest } = progress.skipped;
  progress.skipped = rest;
}

function pinsOf(progress: Progress, current: ActiveQuestState): QuestPins {
  const oracleBaseline = oracleOf(progress, current);
  const { baseline, dependencies } = current.record;
  return {
    ...(baseline ? { baseline } : {}),
    ...(oracleBaseline ? { oracleBaseline } : {}),
    ...(dependencies ? { dependencies } : {}),
  };
}

/**
 * Where a quest's oracles come from: the commit pinned at activation, or, for a sandbox quest
 * pinned before oracles were recorded, its sandbox's template commit.
 */
function oracleOf(progress: Progress, { record, quest }: ActiveQuestState): string | undefined {
  return (
    record.oracleBaseline ??
    (quest.sandboxDir !== undefined && progress.sandbox?.template === quest.sandboxDir
      ? progress.sandbox.baseline
      : undefined)
  );
}
