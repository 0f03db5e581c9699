/**
 * When evaluation runs. A burst of turn ends is one evaluation (debounced); a manual check or a
 * newly activated quest runs now; never two evaluations at once: a trigger during a run asks for
 * exactly one trailing run. Each run is told why it runs: the strongest trigger asked for since
 * the last run began (manual over activation over turn end), so a `/quest check` during a run
 * makes the trailing run a manual one (a review check reviews only then).
 */
import type { EvaluationTrigger } from "./context.ts";

export type Clock = {
  setTimeout(callback: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
};

export type SchedulerOptions = {
  /** One evaluation; it must stop soon after `signal` aborts. */
  evaluate: (signal: AbortSignal, trigger: EvaluationTrigger) => Promise<void>;
  debounceMs?: number;
  clock?: Clock;
  /** Told of an evaluation that threw; the scheduler keeps going. */
  onError?: (error: unknown) => void;
};

export type VerifierScheduler = {
  questActivated(): void;
  turnEnd(): void;
  manualCheck(): void;
  /** Clears timers, aborts a running evaluation and resolves once it has ended. */
  dispose(): Promise<void>;
  /** Resolves when nothing is running or scheduled (for tests and shutdown). */
  idle(): Promise<void>;
};

export const DEFAULT_DEBOUNCE_MS = 250;

const STRENGTH: Record<EvaluationTrigger, number> = { turn_end: 0, activation: 1, manual: 2 };
const stronger = (a: EvaluationTrigger | undefined, b: EvaluationTrigger): EvaluationTrigger =>
  a !== undefined && STRENGTH[a] >= STRENGTH[b] ? a : b;

const realClock: Clock = {
  setTimeout: (callback, ms) => setTimeout(callback, ms),
  clearTimeout: (handle) => clearTimeout(handle as NodeJS.Timeout),
};

export function createScheduler(options: SchedulerOptions): VerifierScheduler {
  const debounceMs = options.debounceMs ?? DEFAULT_DEBOUNCE_MS;
  const clock = options.clock ?? realClock;
  let timer: unknown;
  let running: { controller: AbortController; done: Promise<void> } | undefined;
  let trailing = false;
  let trailingTrigger: EvaluationTrigger | undefined;
  let disposed = false;
  let idleWaiters: Array<() => void> = [];

  const settleIdle = () => {
    if (running || timer !== undefined) return;
    const waiters = idleWaiters;
    idleWaiters = [];
    for (const resolve of waiters) resolve();
  };

  const cancelTimer = () => {
    if (timer !== undefined) clock.clearTimeout(timer);
    timer = undefined;
  };

  const runNow = (trigger: EvaluationTrigger) => {
    cancelTimer();
    if (disposed) return settleIdle();
    if (running) {
      trailing = true;
      trailingTrigger = stronger(trailingTrigger, trigger);
      return;
    }
    const controller = new AbortController();
    const done = (async () => {
      try {
        await options.evaluate(controller.signal, trigger);
      } catch (error) {
        options.onError?.(error);
      } finally {
        running = undefined;
        if (trailing && !disposed) {
          const next = trailingTrigger ?? "turn_end";
          trailing = false;
          trailingTrigger = undefined;
          runNow(next);
        } else {
          trailing = false;
          settleIdle();
        }
      }
    })();
    running = { controller, done };
  };

  return {
    questActivated: () => runNow("activation"),
    manualCheck: () => runNow("manual"),
    turnEnd() {
      if (disposed) return;
      cancelTimer();
      timer = clock.setTimeout(() => {
        timer = undefined;
        runNow("turn_end");
      }, debounceMs);
    },
    async dispose() {
      disposed = true;
      cancelTimer();
      trailing = false;
      trailingTrigger = undefined;
      const current = running;
      if (current) {
        current.controller.abort();
        await current.done;
      }
      settleIdle();
    },
    idle() {
      if (!running && timer === undefined) return Promise.resolve();
      return new Promise((resolve) => idleWaiters.push(resolve));
    },
  };
}
