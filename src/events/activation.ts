/** Where a quest started, as the events recorded it. */
import { QUEST_ACTIVATED_EVENT, type QuestActivation } from "./names.ts";
import type { VerifierEvent } from "./schema.ts";

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
