/**
 * When and how the active quest is evaluated. Turn ends are debounced (the caller never waits),
 * `/quest check` and activation run at once, never two at a time (the scheduler). A result is
 * published only if its quest is still the active one and the run was not cancelled; a pass
 * completes the quest.
 */

import type { QuestEvaluator } from "../runtime/quest-evaluator.ts";
import type { EvaluationTrigger } from "../verifier/context.ts";
import type { Quest } from "../verifier/quest.ts";
import { createScheduler, type VerifierScheduler } from "../verifier/scheduler.ts";
import type { ActiveQuestState, QuestPins, QuestSessionState } from "./quest-session-state.ts";

export type QuestEvaluationOptions = {
  session: QuestSessionState;
  /** The evaluator of a pinned quest, with what was pinned at its activation. */
  createEvaluator(
    quest: Quest,
    pins: QuestPins,
    confirmed: (checkId: string) => boolean | undefined,
    hooks?: EvaluatorHooks,
  ): Promise<QuestEvaluator>;
  sessionId(): string | undefined;
  debounceMs?: number;
  render(): void;
  complete(done: ActiveQuestState): Promise<void>;
  /** Told of an evaluation that could not be done (never a pass: the checks stay as they were). */
  onError(message: string): void;
};

/** What the evaluator tells the evaluation while it runs. */
export type EvaluatorHooks = {
  onReviewActivity(activity: { reviewing: true; model: string } | { reviewing: false }): void;
};

export type QuestEvaluation = {
  /** Whether an evaluation is running (the HUD says "checking…"). */
  readonly evaluating: boolean;
  /** The review running now, with its model (the HUD says "reviewing…"); undefined when none. */
  readonly reviewing: string | undefined;
  /** Told by the evaluator when a review starts and ends. */
  reviewActivity(activity: { reviewing: true; model: string } | { reviewing: false }): void;
  questActivated(): void;
  turnEnd(): void;
  manualCheck(): void;
  /** Resolves when no evaluation is running or scheduled. */
  idle(): Promise<void>;
  /** Cancels a running evaluation and starts afresh (a reset). */
  restart(): Promise<void>;
  /** Cancels a running evaluation (killing its processes); nothing is published after it. */
  dispose(): Promise<void>;
};

export function createQuestEvaluation(options: QuestEvaluationOptions): QuestEvaluation {
  const { session } = options;
  let evaluating = false;
  let reviewing: string | undefined;
  let disposed = false;

  const reviewActivity = (activity: { reviewing: true; model: string } | { reviewing: false }) => {
    reviewing = activity.reviewing ? activity.model : undefined;
    if (!disposed) options.render();
  };

  /** The quest's evaluator, built once; a failure to build it (say, a transient git error) is tried again next time. */
  const evaluatorOf = (current: ActiveQuestState): Promise<QuestEvaluator> => {
    current.evaluator ??= options
      .createEvaluator(current.quest, session.pinsOf(current), session.confirmedFor(current.quest.id), {
        onReviewActivity: (activity) => reviewActivity(activity),
      })
      .catch((error: unknown) => {
        current.evaluator = undefined;
        throw error;
      });
    return current.evaluator;
  };

  const evaluate = async (signal: AbortSignal, trigger: EvaluationTrigger) => {
    const current = session.active;
    if (!current) return;
    evaluating = true;
    options.render();
    try {
      const evaluator = await evaluatorOf(current);
      const sessionId = options.sessionId();
      const events = session.visibleEvents(current.record);
      const result = await evaluator({
        events,
        ...(sessionId ? { sessionId } : {}),
        signal,
        trigger,
      });
      // A cancelled run, or one whose quest was replaced meanwhile, publishes nothing.
      if (signal.aborted || session.active !== current || disposed) return;
      session.publish(result, events.at(-1)?.seq ?? -1);
      // The result is shown as it is (every check green on a pass) before the next quest comes.
      evaluating = false;
      options.render();
      if (result.status === "pass") await options.complete(current);
      else await session.save();
    } finally {
      evaluating = false;
      // A quest activated during this run has drawn itself, and its own evaluation comes next.
      if (session.active === current || session.active === undefined) options.render();
    }
  };

  const makeScheduler = (): VerifierScheduler =>
    createScheduler({
      evaluate,
      ...(options.debounceMs !== undefined ? { debounceMs: options.debounceMs } : {}),
      onError: (error) => options.onError(`pi-quests could not check the quest: ${(error as Error).message}`),
    });
  let scheduler = makeScheduler();

  return {
    get evaluating() {
      return evaluating;
    },
    get reviewing() {
      return reviewing;
    },
    reviewActivity,
    questActivated: () => scheduler.questActivated(),
    turnEnd: () => scheduler.turnEnd(),
    manualCheck: () => scheduler.manualCheck(),
    idle: () => scheduler.idle(),
    async restart() {
      await scheduler.dispose();
      scheduler = makeScheduler();
    },
    async dispose() {
      disposed = true;
      await scheduler.dispose();
    },
  };
}
