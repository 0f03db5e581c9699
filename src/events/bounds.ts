/**
 * How much of a payload is recorded: strings are cut at 2,000 characters, lists at 100 items,
 * nesting at 6 levels, each cut saying how much was left out. The event log applies it to
 * every event it records, and the session-file reader to every event it reads, so a long
 * summary or a large file written by a tool is the same text either way and does not bloat the
 * log. docs/quest-format.md (the recorded-events table) documents these sizes; docs/security.md
 * ("What the event log holds") what a payload may hold.
 */

export const MAX_STRING_CHARS = 2000;
export const MAX_ARRAY_ITEMS = 100;
export const MAX_DEPTH = 6;

/** A copy of a payload with long strings cut and deep nesting summarized. */
export function boundPayload(payload: Record<string, unknown>): Record<string, unknown> {
  return bound(payload, 0) as Record<string, unknown>;
}

function bound(value: unknown, depth: number): unknown {
  if (typeof value === "string") {
    return value.length > MAX_STRING_CHARS
      ? `${value.slice(0, MAX_STRING_CHARS)}…[${value.length - MAX_STRING_CHARS} more chars]`
      : value;
  }
  if (value === null || typeof value !== "object") return value;
  if (depth >= MAX_DEPTH) return "[nested too deep]";
  if (Array.isArray(value)) {
    const kept = value.slice(0, MAX_ARRAY_ITEMS).map((item) => bound(item, depth + 1));
    return value.length > MAX_ARRAY_ITEMS
      ? [...kept, `…[${value.length - MAX_ARRAY_ITEMS} more items]`]
      : kept;
  }
  return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, bound(item, depth + 1)]));
}
