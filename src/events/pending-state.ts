/**
 * The translator's memory between Pi's events, each kept in one small piece: the inputs waiting
 * for the user message they become, the model a thinking level waits for, and how many of the
 * session's entries were already looked at for labels. Pure, no I/O.
 */
import type { InputDetails, PiEvent } from "./names.ts";

type PendingInput = InputDetails & { rawText: string };

/**
 * Pi's `input` events, until their user message ends: a steer or follow-up is delivered later than
 * it was typed, and follow-ups after steers.
 */
export function createInputQueue() {
  let pending: PendingInput[] = [];
  return {
    push(input: PendingInput) {
      pending.push(input);
    },
    /** The input a user message with `text` came from: typed as the model saw it, else the oldest. */
    take(text: string): PendingInput | undefined {
      if (pending.length === 0) return undefined;
      // Not found: expanded (a template, `/skill:`), or changed by an earlier handler.
      const index = Math.max(
        0,
        pending.findIndex((input) => input.rawText === text),
      );
      return pending.splice(index, 1)[0];
    },
    /** Inputs that never became a message (queues cleared, or handled by an extension). */
    clear() {
      pending = [];
    },
  };
}

type Model = { provider: string; id: string };

/**
 * Model, then thinking level, as the session file has them: Pi announces a level a model switch
 * changed before the switch itself, so such a level waits for the model's event.
 */
export function createModelOrder() {
  let last: Model | undefined;
  let held: PiEvent | undefined;
  return {
    start(model: Model | undefined) {
      last = model;
      held = undefined;
    },
    /** The model's event, and the level held for it. */
    modelSelected(model: Model, event: PiEvent): PiEvent[] {
      last = { provider: model.provider, id: model.id };
      const events = held ? [event, held] : [event];
      held = undefined;
      return events;
    },
    /** The level's event now, or undefined when `current` (Pi's model now) is not the last recorded. */
    thinkingSelected(event: PiEvent, current: Model | undefined): PiEvent | undefined {
      const switching =
        current !== undefined && (current.provider !== last?.provider || current.id !== last?.id);
      if (!switching) return event;
      held = event;
      return undefined;
    },
  };
}

/** Which of the session's entries are new since the last look (entries are only appended). */
export function createEntryCursor() {
  let seen = 0;
  return {
    start(count: number) {
      seen = count;
    },
    fresh<E>(entries: readonly E[]): readonly E[] {
      const fresh = entries.slice(seen);
      seen = entries.length;
      return fresh;
    },
  };
}
