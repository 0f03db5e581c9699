import type { EventMatch } from "../core/checks.ts";
import type { VerifierEvent } from "../core/events.ts";
import { matchesFieldPredicate, matchesStringPredicate } from "./predicates.ts";

/**
 * Recorded events grouped by name, built once per evaluation so each event check only looks
 * at the events of its own name: evaluation stays linear in the number of events.
 */
export type EventIndex = {
  byName: ReadonlyMap<string, readonly VerifierEvent[]>;
  total: number;
  /** The session of the last event that names one. */
  lastSessionId?: string;
};

export function indexEvents(events: readonly VerifierEvent[]): EventIndex {
  const byName = new Map<string, VerifierEvent[]>();
  let lastSessionId: string | undefined;
  for (const event of events) {
    let list = byName.get(event.name);
    if (!list) {
      list = [];
      byName.set(event.name, list);
    }
    list.push(event);
    if (event.sessionId !== undefined) lastSessionId = event.sessionId;
  }
  return { byName, total: events.length, ...(lastSessionId ? { lastSessionId } : {}) };
}

/** Reads the first of several payload fields that is present (live Pi events and fixtures differ). */
function firstPresent(payload: Record<string, unknown>, keys: readonly string[]): unknown {
  for (const key of keys) if (payload[key] !== undefined) return payload[key];
  return undefined;
}

/** `success` (fixtures) or `isError` / `is_error` (live tool results). */
function outcomeOf(payload: Record<string, unknown>): "success" | "error" | undefined {
  if (typeof payload.success === "boolean") return payload.success ? "success" : "error";
  const isError = firstPresent(payload, ["isError", "is_error"]);
  if (typeof isError === "boolean") return isError ? "error" : "success";
  return undefined;
}

/** Follows a dotted path (`input.path`, `args.0`) into a payload. */
export function readDotted(payload: unknown, dotted: string): unknown {
  let value: unknown = payload;
  for (const key of dotted.split(".")) {
    if (value === null || typeof value !== "object") return undefined;
    value = (value as Record<string, unknown>)[key];
  }
  return value;
}

export function eventMatches(event: VerifierEvent, match: EventMatch): boolean {
  if (event.name !== match.event) return false;
  const payload = event.payload;
  if (match.tool !== undefined) {
    const tool = firstPresent(payload, ["tool", "toolName", "tool_name"]);
    if (typeof tool !== "string" || !matchesStringPredicate(match.tool, tool)) return false;
  }
  if (match.outcome !== undefined && outcomeOf(payload) !== match.outcome) return false;
  if (match.min_assistant_turns !== undefined) {
    const turns = firstPresent(payload, ["assistant_turns", "assistantTurns"]);
    if (typeof turns !== "number" || turns < match.min_assistant_turns) return false;
  }
  for (const [path, predicate] of Object.entries(match.fields ?? {})) {
    if (!matchesFieldPredicate(predicate, readDotted(payload, path))) return false;
  }
  return true;
}
