/**
 * Lifecycle events the extension records; `after: quest-id` looks for `quest_completed`. Kept
 * apart from the event schema so a fast path can name them without loading zod.
 */
import type { VerifierEvent } from "./schema.ts";

export const QUEST_COMPLETED_EVENT = "quest_completed";
export const QUEST_ACTIVATED_EVENT = "quest_activated";

/**
 * What `quest_activated` pins: `baseline` is HEAD at activation (what "commits since the quest
 * started" count from; null outside git), `oracleBaseline` the sandbox template's own commit,
 * where a sandbox quest's tests and other protected files come from (absent without a sandbox:
 * the oracle is then `baseline`).
 */
export type QuestActivation = { quest: string; baseline: string | null; oracleBaseline?: string };

/** The last activation of `questId` the events record, when there is one. */
export function lastActivation(
  events: readonly VerifierEvent[],
  questId: string,
): QuestActivation | undefined {
  for (let index = events.length - 1; index >= 0; index--) {
    const event = events[index];
    if (event?.name !== QUEST_ACTIVATED_EVENT || event.payload.quest !== questId) continue;
    const { baseline, oracleBaseline } = event.payload;
    return {
      quest: questId,
      baseline: typeof baseline === "string" ? baseline : null,
      ...(typeof oracleBaseline === "string" ? { oracleBaseline } : {}),
    };
  }
  return undefined;
}
