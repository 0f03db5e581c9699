/**
 * What only a live session knows, as the contract marks it (docs/quest-format.md, the
 * recorded-events table): a session file never gives these events, nor these fields. A live
 * event put through `asFileGivesIt` is what reading the session file should give.
 */
type Event = { name: string; payload: Record<string, unknown> };

export const LIVE_ONLY_FIELDS: Readonly<Record<string, readonly string[]>> = {
  session_start: ["reason", "resumed"],
  input: ["rawText", "source", "streamingBehavior"],
  tool_result: ["changedPaths", "changedPathsTruncated", "extensionFilesChanged"],
  user_bash: ["changedPaths", "changedPathsTruncated"],
  turn_end: ["turnIndex"],
  agent_end: ["aborted"],
  model_select: ["source", "origin"],
  thinking_level_select: ["origin"],
  session_name: ["origin"],
  session_compact: ["reason", "instructions"],
};

/** pi-quests' own lifecycle events, a blocked call, a run's context, a /tree move without a summary. */
export function liveOnlyEvent(event: Event): boolean {
  return (
    event.name === "tool_blocked" ||
    event.name === "context_loaded" ||
    (event.name === "session_tree" && event.payload.summarized === false) ||
    event.name.startsWith("quest_")
  );
}

/** The events a session file gives for these live ones: live-only events and fields left out, no seq. */
export function asFileGivesIt(events: readonly Event[]): Event[] {
  return events
    .filter((event) => !liveOnlyEvent(event))
    .map(({ name, payload }) => {
      const kept = { ...payload };
      for (const field of LIVE_ONLY_FIELDS[name] ?? []) delete kept[field];
      return { name, payload: kept };
    });
}
