import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { createScheduler } from "../../src/verifier/scheduler.ts";

/** An evaluation the test finishes by hand, to hold a run open. */
function gatedEvaluation() {
  const runs: Array<{ signal: AbortSignal; finish: () => void }> = [];
  const evaluate = vi.fn(
    (signal: AbortSignal) =>
      new Promise<void>((resolve) => {
        runs.push({ signal, finish: resolve });
        signal.addEventListener("abort", () => resolve());
      }),
  );
  return { evaluate, runs };
}

describe("the scheduler", () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  it("collapses a burst of 100 turn ends into one evaluation after the debounce", async () => {
    const evaluate = vi.fn(async () => {});
    const scheduler = createScheduler({ evaluate, debounceMs: 250 });
    for (let i = 0; i < 100; i++) {
      scheduler.turnEnd();
      await vi.advanceTimersByTimeAsync(10);
    }
    expect(evaluate).not.toHaveBeenCalled();
    // The last turn end was 10 ms ago: 239 more is 1 ms short of the debounce.
    await vi.advanceTimersByTimeAsync(239);
    expect(evaluate).not.toHaveBeenCalled();
    await vi.advanceTimersByTimeAsync(1);
    expect(evaluate).toHaveBeenCalledTimes(1);
    await scheduler.dispose();
  });

  it("runs a manual check at once and cancels the pending debounce", async () => {
    const evaluate = vi.fn(async () => {});
    const scheduler = createScheduler({ evaluate });
    scheduler.turnEnd();
    scheduler.manualCheck();
    expect(evaluate).toHaveBeenCalledTimes(1);
    await vi.advanceTimersByTimeAsync(1000);
    expect(evaluate).toHaveBeenCalledTimes(1);
  });

  it("evaluates a newly activated quest at once", () => {
    const evaluate = vi.fn(async () => {});
    createScheduler({ evaluate }).questActivated();
    expect(evaluate).toHaveBeenCalledTimes(1);
  });

  it("never runs two evaluations at once: triggers during a run yield exactly one trailing run", async () => {
    const { evaluate, runs } = gatedEvaluation();
    const scheduler = createScheduler({ evaluate });
    scheduler.manualCheck();
    scheduler.manualCheck();
    scheduler.questActivated();
    scheduler.turnEnd();
    await vi.advanceTimersByTimeAsync(300);
    expect(evaluate).toHaveBeenCalledTimes(1);
    runs[0]?.finish();
    await vi.advanceTimersByTimeAsync(0);
    expect(evaluate).toHaveBeenCalledTimes(2);
    runs[1]?.finish();
    await scheduler.idle();
    expect(evaluate).toHaveBeenCalledTimes(2);
  });

  it("dispose clears timers, aborts the running evaluation and waits for it", async () => {
    const { evaluate, runs } = gatedEvaluation();
    const scheduler = createScheduler({ evaluate });
    scheduler.manualCheck();
    scheduler.turnEnd();
    await scheduler.dispose();
    expect(runs[0]?.signal.aborted).toBe(true);
    scheduler.turnEnd();
    scheduler.manualCheck();
    await vi.advanceTimersByTimeAsync(1000);
    expect(evaluate).toHaveBeenCalledTimes(1);
  });

  it("keeps going after an evaluation throws, and reports the error", async () => {
    const errors: unknown[] = [];
    const evaluate = vi.fn(async () => {
      throw new Error("boom");
    });
    const scheduler = createScheduler({ evaluate, onError: (error) => errors.push(error) });
    scheduler.manualCheck();
    await scheduler.idle();
    scheduler.manualCheck();
    await scheduler.idle();
    expect(evaluate).toHaveBeenCalledTimes(2);
    expect(errors).toHaveLength(2);
  });
});

describe("the scheduler's triggers", () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  it("tells each run why it runs, and a manual check during a run makes the trailing run manual", async () => {
    const triggers: string[] = [];
    const { evaluate, runs } = gatedEvaluation();
    const scheduler = createScheduler({
      evaluate: (signal, trigger) => {
        triggers.push(trigger);
        return evaluate(signal);
      },
      debounceMs: 10,
    });
    scheduler.questActivated();
    scheduler.turnEnd();
    await vi.advanceTimersByTimeAsync(10);
    scheduler.manualCheck();
    scheduler.turnEnd();
    await vi.advanceTimersByTimeAsync(10);
    runs[0]?.finish();
    await vi.advanceTimersByTimeAsync(0);
    scheduler.turnEnd();
    runs[1]?.finish();
    await vi.advanceTimersByTimeAsync(10);
    runs[2]?.finish();
    await scheduler.idle();
    expect(triggers).toEqual(["activation", "manual", "turn_end"]);
  });
});
