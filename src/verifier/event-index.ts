import type { VerifierEvent } from "../events/schema.ts";
import type { EventMatch } from "./checks/event.ts";
import { compileFieldPredicate, compileStringPredicate } from "./predicates.ts";

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
  return readPath(payload, dotted.split("."));
}

function readPath(payload: unknown, keys: readonly string[]): unknown {
  let value: unknown = payload;
  for (const key of keys) {
    if (value === null || typeof value !== "object") return undefined;
    value = (value as Record<string, unknown>)[key];
  }
  return value;
}

/** The segment of a `fields` path that stands for any element of a list or value of an object. */
export const ANY_ELEMENT = "*";

/**
 * Why a `fields` path cannot be read (undefined when it can): `*` stands for any element only
 * as a whole segment, so `a*` or `*x` is a mistake, not a key (no payload key is `*`).
 */
export function fieldPathProblem(dotted: string): string | undefined {
  const bad = dotted.split(".").find((key) => key !== ANY_ELEMENT && key.includes(ANY_ELEMENT));
  if (bad === undefined) return undefined;
  return `"${dotted}": * stands for any element only as a whole segment (like contextFiles.*), not inside "${bad}"`;
}

/**
 * A `fields` path, split once, as a test of a payload: without `*` the value at the path must
 * satisfy `test` (absent is `undefined`); each `*` tries every element of the list (or value of
 * the object) there, and the path holds when any way through it reaches a value that does. A
 * `*` over nothing (an empty list, not a list) holds for none.
 */
function compileFieldPath(dotted: string, test: (value: unknown) => boolean): (payload: unknown) => boolean {
  const keys = dotted.split(".");
  if (!keys.includes(ANY_ELEMENT)) return (payload) => test(readPath(payload, keys));
  const some = (value: unknown, at: number): boolean => {
    if (at === keys.length) return test(value);
    if (value === null || typeof value !== "object") return false;
    const key = keys[at] ?? "";
    if (key !== ANY_ELEMENT) return some((value as Record<string, unknown>)[key], at + 1);
    const elements = Array.isArray(value) ? value : Object.values(value);
    return elements.some((element) => some(element, at + 1));
  };
  return (payload) => some(payload, 0);
}

/**
 * Turns an event match into a test, done once per check: regexes compile and dotted paths split
 * once, not once per recorded event.
 */
export function compileEventMatch(match: EventMatch): (event: VerifierEvent) => boolean {
  const tool = match.tool === undefined ? undefined : compileStringPredicate(match.tool);
  const fields = Object.entries(match.fields ?? {}).map(([path, predicate]) =>
    compileFieldPath(path, compileFieldPredicate(predicate)),
  );
  return (event) => {
    if (event.name !== match.event) return false;
    const payload = event.payload;
    if (tool !== undefined) {
      const name = firstPresent(payload, ["tool", "toolName", "tool_name"]);
      if (typeof name !== "string" || !tool(name)) return false;
    }
    if (match.outcome !== undefined && outcomeOf(payload) !== match.outcome) return false;
    if (match.min_assistant_turns !== undefined) {
      const turns = firstPresent(payload, ["assistant_turns", "assistantTurns"]);
      if (typeof turns !== "number" || turns < match.min_assistant_turns) return false;
    }
    return fields.every((holds) => holds(payload));
  };
}

export function eventMatches(event: VerifierEvent, match: EventMatch): boolean {
  return compileEventMatch(match)(event);
}
