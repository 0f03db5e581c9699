/**
 * `/quest check all`: every completed quest of the pack checked again against the folder as it
 * is now, to see whether earlier work has regressed. Each quest is evaluated as it was played:
 * its checks (the pack's definition), the baselines its activation recorded, and the events of
 * that play (from its `quest_activated` to its `quest_completed`), so an event check still sees
 * what happened then while a file, git or command check sees today's files. Progress is not
 * changed: a regressed quest stays done, and the learner is told how to do it again.
 */
import { QUEST_ACTIVATED_EVENT, QUEST_COMPLETED_EVENT, type QuestActivation } from "../events/names.ts";
import type { VerifierEvent } from "../events/schema.ts";
import type { QuestEvaluator } from "../runtime/quest-evaluator.ts";
import type { Quest } from "../verifier/quest.ts";
import type { QuestResult } from "../verifier/results.ts";
import { MARK } from "./hud.ts";
import { hudCheck } from "./quest-hud-state.ts";
import type { QuestPins, QuestSessionState } from "./quest-session-state.ts";

export type RecheckDeps = {
  session: QuestSessionState;
  events: () => readonly VerifierEvent[];
  createEvaluator(
    quest: Quest,
    pins: QuestPins,
    confirmed: (checkId: string) => boolean | undefined,
  ): Promise<QuestEvaluator>;
  sessionId(): string | undefined;
};

/** What one completed quest's play left in the event log: its events and its activation's baselines. */
type PlayRecord = { events: VerifierEvent[]; pins: QuestPins };

/**
 * The last completed play of `questId` in this progress's epoch: from its activation to its
 * completion, with the lifecycle events before it (as the quest saw them when it was active).
 */
export function playRecordOf(
  all: readonly VerifierEvent[],
  questId: string,
  epochSeq: number,
): PlayRecord | undefined {
  const isOf = (name: string) => (event: VerifierEvent) =>
    event.name === name && event.seq >= epochSeq && (event.payload as { quest?: unknown }).quest === questId;
  const completed = all.findLast(isOf(QUEST_COMPLETED_EVENT));
  if (!completed) return undefined;
  const activated = all.findLast((event) => isOf(QUEST_ACTIVATED_EVENT)(event) && event.seq < completed.seq);
  if (!activated) return undefined;
  const lifecycle = new Set([QUEST_ACTIVATED_EVENT, QUEST_COMPLETED_EVENT]);
  const events = all.filter(
    (event) =>
      (event.seq >= activated.seq && event.seq <= completed.seq) ||
      (lifecycle.has(event.name) && event.seq >= epochSeq && event.seq < activated.seq),
  );
  const { baseline, oracleBaseline } = activated.payload as QuestActivation;
  return {
    events,
    pins: { ...(baseline ? { baseline } : {}), ...(oracleBaseline ? { oracleBaseline } : {}) },
  };
}

/** One completed quest checked again: still passing, regressed (with why), or not re-checkable. */
type Rechecked =
  | { quest: Quest; kind: "passes" }
  | { quest: Quest; kind: "regressed"; result: QuestResult }
  | { quest: Quest; kind: "unchecked"; why: string };

/** Why a completed quest has no record here: done in another folder (carried), or its record is gone. */
function notRecordedHere(session: RecheckDeps["session"], quest: Quest): string {
  const from = session.progress.completed[quest.id]?.from;
  return from
    ? `done in ${from}: /quest check all there re-checks it`
    : "the record of how it was done is gone";
}

async function recheckOne(deps: RecheckDeps, quest: Quest, signal: AbortSignal): Promise<Rechecked> {
  const { session } = deps;
  const record = playRecordOf(deps.events(), quest.id, session.progress.epochSeq);
  if (!record) return { quest, kind: "unchecked", why: notRecordedHere(session, quest) };
  try {
    const evaluator = await deps.createEvaluator(quest, record.pins, session.confirmedFor(quest.id));
    const sessionId = deps.sessionId();
    const result = await evaluator({
      events: record.events,
      ...(sessionId ? { sessionId } : {}),
      signal,
      trigger: "manual",
    });
    return result.status === "pass" ? { quest, kind: "passes" } : { quest, kind: "regressed", result };
  } catch (error) {
    return { quest, kind: "unchecked", why: (error as Error).message };
  }
}

/** `/quest check all`'s answer: each completed quest, whether it still passes, and why not. */
export async function recheckCompleted(
  deps: RecheckDeps,
  signal = new AbortController().signal,
): Promise<string> {
  const { session } = deps;
  const done = session.pack.filter((quest) => session.isDone(quest.id));
  if (done.length === 0) return "No quest is done yet: /quest check all re-checks the quests you completed.";
  const rechecked: Rechecked[] = [];
  for (const quest of done) rechecked.push(await recheckOne(deps, quest, signal));
  const regressed = rechecked.filter((each) => each.kind === "regressed");
  const passing = rechecked.filter((each) => each.kind === "passes").length;
  const summary =
    regressed.length === 0
      ? `${passing} of ${done.length} still pass.`
      : `${passing} of ${done.length} still pass; ${regressed.length} regressed.`;
  const lines = rechecked.flatMap(recheckedLines);
  const after =
    regressed.length === 0
      ? []
      : [
          "A regressed quest stays done (progress is unchanged): fix its work, or do it again with /quest start ID.",
        ];
  return [
    `Re-checked the ${done.length} completed ${done.length === 1 ? "quest" : "quests"}: ${summary}`,
    ...lines,
    ...after,
  ].join("\n");
}

function recheckedLines(each: Rechecked): string[] {
  const head = `${each.quest.id}: ${each.quest.title}`;
  switch (each.kind) {
    case "passes":
      return [`  ${MARK.pass} ${head}: still passes`];
    case "unchecked":
      return [`  ${MARK.pending} ${head}: not re-checked (${each.why})`];
    case "regressed": {
      const results = new Map(each.result.checks.map((check) => [check.id, check]));
      const failing = each.quest.checks
        .map((check) => hudCheck(check, results.get(check.id), true))
        .filter((check) => check.status !== "pass")
        .map(
          ({ status, describe, reason }) => `      ${MARK[status]} ${describe}${reason ? `: ${reason}` : ""}`,
        );
      return [`  ${MARK.fail} ${head}: regressed`, ...failing];
    }
    default:
      return [];
  }
}
