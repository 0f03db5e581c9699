/**
 * How much of a payload is recorded: strings are cut at 2,000 characters, lists at 100 items
 * (a tool call's `changedPaths` at its own 200), nesting at 6 levels, each cut saying how much
 * was left out. The event log applies it to
 * every event it records, and the session-file reader to every event it reads, so a long
 * summary or a large file written by a tool is the same text either way and does not bloat the
 * log. docs/quest-format.md (the recorded-events table) documents these sizes; docs/security.md
 * ("What the event log holds") what a payload may hold.
 */

import { CHANGED_PATHS_FIELD } from "./names.ts";

export const MAX_STRING_CHARS = 2000;
export const MAX_ARRAY_ITEMS = 100;
export const MAX_DEPTH = 6;

/**
 * The most workspace paths a `tool_result` or `user_bash` event lists as `changedPaths`; past it
 * the list stops at the first ones in order and `changedPathsTruncated` is set (the look that
 * makes the list, src/receipts/changed-paths.ts, stops there).
 */
export const MAX_CHANGED_PATHS = 200;

/** Payload fields whose list holds more than MAX_ARRAY_ITEMS: the contract gives them their own limit. */
const LIST_LIMIT_OF: Readonly<Record<string, number>> = { [CHANGED_PATHS_FIELD]: MAX_CHANGED_PATHS };

/** A copy of a payload with long strings cut and deep nesting summarized. */
export function boundPayload(payload: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(
    Object.entries(payload).map(([key, value]) => [key, bound(value, 1, LIST_LIMIT_OF[key])]),
  );
}

function bound(value: unknown, depth: number, maxItems = MAX_ARRAY_ITEMS): unknown {
  if (typeof value === "string") {
    return value.length > MAX_STRING_CHARS
      ? `${value.slice(0, MAX_STRING_CHARS)}…[${value.length - MAX_STRING_CHARS} more chars]`
      : value;
  }
  if (value === null || typeof value !== "object") return value;
  if (depth >= MAX_DEPTH) return "[nested too deep]";
  if (Array.isArray(value)) {
    const kept = value.slice(0, maxItems).map((item) => bound(item, depth + 1));
    return value.length > maxItems ? [...kept, `…[${value.length - maxItems} more items]`] : kept;
  }
  return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, bound(item, depth + 1)]));
}
