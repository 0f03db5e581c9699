/**
 * Lifecycle events the extension records; `after: quest-id` looks for `quest_completed`. Kept
 * apart from the event schema so a fast path can name them without loading zod.
 */
export const QUEST_COMPLETED_EVENT = "quest_completed";
export const QUEST_ACTIVATED_EVENT = "quest_activated";
