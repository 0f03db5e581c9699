/**
 * `event`: passes when the recorded events hold a match (after a boundary, in one session, a
 * number of times). docs/quest-format.md, "`event`".
 */
import { z } from "zod";
import { checkBaseFields } from "../../core/check-fields.ts";
import { boundedIntPredicate, FieldPredicateSchema, StringPredicateSchema } from "../../core/predicates.ts";
import { closestName } from "../../core/suggest.ts";
import { CHANGED_PATHS_FIELD, QUEST_COMPLETED_EVENT } from "../../events/names.ts";
import type { EvaluationContext } from "../context.ts";
import { compileEventMatch, type EventIndex, fieldPathProblem } from "../event-index.ts";
import { describePredicate, intPredicateBounds, matchesIntPredicate } from "../predicates.ts";
import type { CheckResult } from "../results.ts";
import { type CheckOf, type CheckProblem, defineCheckType, type SiblingCheck } from "./define.ts";
import { pending, result } from "./result.ts";

export const EventMatchSchema = z.strictObject({
  event: z.string().min(1),
  tool: StringPredicateSchema.optional(),
  outcome: z.enum(["success", "error"]).optional(),
  min_assistant_turns: z.int().min(0).optional(),
  fields: z
    .record(z.string().min(1), FieldPredicateSchema)
    .superRefine((fields, ctx) => {
      for (const key of Object.keys(fields)) {
        const problem = fieldPathProblem(key);
        if (problem !== undefined) ctx.addIssue({ code: "custom", params: { key }, message: problem });
      }
    })
    .optional(),
});
export type EventMatch = z.infer<typeof EventMatchSchema>;

/**
 * `after: quest-id` is `{ref: quest-id, event: "quest_completed"}`; `after: {check: ID}` (version 3)
 * is the first match of another event check of the same quest: the order a quest asks for ("Pi ran
 * the tests after it loaded AGENTS.md").
 */
export const EventAfterSchema = z.union([
  z.string().min(1),
  z.strictObject({ ref: z.string().min(1), event: z.string().min(1) }),
  z.strictObject({ check: z.string().min(1) }),
]);
export type EventAfter = z.infer<typeof EventAfterSchema>;

export const EventCheckSchema = z.strictObject({
  ...checkBaseFields,
  type: z.literal("event"),
  match: EventMatchSchema,
  after: EventAfterSchema.optional(),
  same_session: z.boolean().default(false),
  count: boundedIntPredicate("a number of events", 0).optional(),
});
export type EventCheck = CheckOf<typeof EventCheckSchema>;

export type EventEvidence = {
  kind: "event";
  summary: string;
  matched: number;
  scanned: number;
  boundarySeq?: number;
  firstMatchSeq?: number;
  sessionId?: string;
};

type Boundary = { ok: true; seq: number } | { ok: false; reason: string };

/** The seq after which events count, or why there is none yet. */
function resolveBoundary(
  check: EventCheck,
  ctx: EvaluationContext,
  index: EventIndex,
  seen: ReadonlySet<string> = new Set(),
): Boundary {
  if (check.after === undefined) return { ok: true, seq: -1 };
  if (typeof check.after === "object" && "check" in check.after)
    return firstMatchOf(check.after.check, ctx, index, new Set([...seen, check.id]));
  const { ref, event } =
    typeof check.after === "string" ? { ref: check.after, event: QUEST_COMPLETED_EVENT } : check.after;
  const explicit = ctx.eventRefs?.[ref]?.[event];
  if (explicit !== undefined) return { ok: true, seq: explicit };
  const candidates = index.byName.get(event) ?? [];
  for (let i = candidates.length - 1; i >= 0; i--) {
    const candidate = candidates[i];
    if (candidate && candidate.payload.quest === ref) return { ok: true, seq: candidate.seq };
  }
  return { ok: false, reason: `no ${event} event for "${ref}" has been recorded yet` };
}

/**
 * `after: {check: ID}` must name another event check of the quest, and following the names from
 * check to check must never come back: a check cannot wait for itself.
 */
function afterProblems(check: EventCheck & { id: string }, checks: readonly SiblingCheck[]): CheckProblem[] {
  const named = followedCheck(check);
  if (named === undefined) return [];
  const events = checks.filter((other) => other.type === "event" && other.id !== check.id);
  if (!events.some((other) => other.id === named)) {
    const ids = events.map((other) => other.id);
    const closest = closestName(named, ids);
    return [
      {
        field: ["after", "check"],
        message: `after names "${named}", which is no other event check of this quest${closest ? `; did you mean ${closest}?` : ids.length > 0 ? `; its event checks: ${ids.join(", ")}` : ""}`,
      },
    ];
  }
  const path = [check.id];
  for (let next: string | undefined = named; next !== undefined; ) {
    if (path.includes(next))
      return [
        {
          field: ["after", "check"],
          message: `after goes round in a circle: ${[...path, next].join(" after ")}`,
        },
      ];
    path.push(next);
    const step = next;
    next = followedCheck(checks.find((other) => other.id === step));
  }
  return [];
}

/** The check an event check's `after` names, if it names one. */
function followedCheck(check: { after?: unknown } | undefined): string | undefined {
  const after = check?.after;
  return typeof after === "object" && after !== null && "check" in after ? String(after.check) : undefined;
}

/** The seq of the first match of the event check `id` of this quest (after its own boundary). */
function firstMatchOf(
  id: string,
  ctx: EvaluationContext,
  index: EventIndex,
  seen: ReadonlySet<string>,
): Boundary {
  const other = ctx.questChecks?.find((check) => check.id === id);
  // The loader refuses a name that is no event check of the quest, and a cycle: this is a guard.
  if (other?.type !== "event" || seen.has(id))
    return { ok: false, reason: `after names "${id}", which is no event check this one can follow` };
  const check = other as EventCheck & { id: string };
  const boundary = resolveBoundary(check, ctx, index, seen);
  if (!boundary.ok) return boundary;
  const matches = compileEventMatch(check.match);
  const first = (index.byName.get(check.match.event) ?? []).find(
    (event) => event.seq > boundary.seq && matches(event),
  );
  const what = check.describe ?? id;
  return first
    ? { ok: true, seq: first.seq }
    : { ok: false, reason: `it comes after "${what}", which has not happened yet` };
}

function evaluateEventCheck(check: EventCheck, ctx: EvaluationContext, index: EventIndex): CheckResult {
  const boundary = resolveBoundary(check, ctx, index);
  if (!boundary.ok) return pending(check, "not_reached", boundary.reason);

  const sessionId = check.same_session ? (ctx.sessionId ?? index.lastSessionId) : undefined;
  if (check.same_session && sessionId === undefined) {
    return pending(
      check,
      "not_reached",
      "same_session asks for a current session, and no event names one yet",
    );
  }
  const candidates = index.byName.get(check.match.event) ?? [];
  const matches = compileEventMatch(check.match);
  let matched = 0;
  let firstMatchSeq: number | undefined;
  for (const event of candidates) {
    if (event.seq <= boundary.seq) continue;
    if (sessionId !== undefined && event.sessionId !== sessionId) continue;
    if (!matches(event)) continue;
    matched++;
    firstMatchSeq ??= event.seq;
    // Without a count, the first match decides.
    if (check.count === undefined) break;
  }
  const passed = check.count === undefined ? matched > 0 : matchesIntPredicate(check.count, matched);
  const where = `${check.after !== undefined ? ` after seq ${boundary.seq}` : ""}${sessionId ? ` in session ${sessionId}` : ""}`;
  const summary =
    check.count === undefined
      ? passed
        ? `matching ${check.match.event} event at seq ${firstMatchSeq}${where}`
        : `no matching ${check.match.event} event${where} (${index.total} ${index.total === 1 ? "event" : "events"} recorded)`
      : `${matched} matching ${check.match.event} events${where}; count must be ${describePredicate(check.count)}`;
  return result(check, passed ? "pass" : "fail", {
    kind: "event",
    summary,
    matched,
    scanned: index.total,
    ...(check.after !== undefined ? { boundarySeq: boundary.seq } : {}),
    ...(firstMatchSeq !== undefined ? { firstMatchSeq } : {}),
    ...(sessionId !== undefined ? { sessionId } : {}),
  });
}

/**
 * Whether these checks (a quest's) read what a tool call or `!` command changed: an event check
 * with a `fields` path that starts with `changedPaths` (`changedPaths.*`, `changedPathsTruncated`).
 * Only for such a quest does the extension look at the workspace around every call; any other
 * quest pays nothing for the field.
 */
export function readsChangedPaths(checks: readonly { type: string }[]): boolean {
  return checks.some(
    (check) =>
      check.type === "event" &&
      Object.keys((check as EventCheck).match.fields ?? {}).some((path) =>
        path.startsWith(CHANGED_PATHS_FIELD),
      ),
  );
}

export const eventCheck = defineCheckType({
  type: "event",
  schema: EventCheckSchema,
  evaluate: evaluateEventCheck,
  needs: {},
  problemsAmong: afterProblems,
  newerFieldsUsed: (check) =>
    typeof check.after === "object" && "check" in check.after ? [{ field: "after", version: 3 }] : [],
  hint: eventHint,
});

/**
 * The learner's reason for a failed event check: "not yet" when it has not happened; with a
 * `count`, whether it happened too often (it must not happen, or not that often) or not often
 * enough yet. "No matching event (N recorded)" is for `/quest status --details`.
 */
function eventHint(result: CheckResult, check?: EventCheck): string | undefined {
  const evidence = result.evidence;
  if (result.status !== "fail" || evidence.kind !== "event") return undefined;
  const { matched } = evidence;
  const bounds = check?.count === undefined ? undefined : intPredicateBounds(check.count);
  if (bounds === undefined) return matched === 0 ? "not yet" : undefined;
  if (bounds.max !== undefined && matched > bounds.max) {
    return bounds.max === 0
      ? "it happened, and this quest asks that it does not (/quest hint)"
      : `it happened ${times(matched)}, more than the ${times(bounds.max)} this quest allows`;
  }
  if (matched === 0) return "not yet";
  return `${times(matched)} so far; it takes ${times(bounds.min ?? matched + 1)}`;
}

const times = (n: number) => (n === 1 ? "once" : n === 2 ? "twice" : `${n} times`);
