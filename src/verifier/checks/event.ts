/**
 * `event`: passes when the recorded events hold a match (after a boundary, in one session, a
 * number of times). docs/quest-format.md, "`event`".
 */
import { z } from "zod";
import { checkBaseFields } from "../../core/check-fields.ts";
import { FieldPredicateSchema, IntPredicateSchema, StringPredicateSchema } from "../../core/predicates.ts";
import { CHANGED_PATHS_FIELD, QUEST_COMPLETED_EVENT } from "../../events/names.ts";
import type { EvaluationContext } from "../context.ts";
import { compileEventMatch, type EventIndex, fieldPathProblem } from "../event-index.ts";
import { describePredicate, matchesIntPredicate } from "../predicates.ts";
import type { CheckResult } from "../results.ts";
import { type CheckOf, defineCheckType } from "./define.ts";
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

/** `after: quest-id` is `{ref: quest-id, event: "quest_completed"}`. */
export const EventAfterSchema = z.union([
  z.string().min(1),
  z.strictObject({ ref: z.string().min(1), event: z.string().min(1) }),
]);
export type EventAfter = z.infer<typeof EventAfterSchema>;

export const EventCheckSchema = z.strictObject({
  ...checkBaseFields,
  type: z.literal("event"),
  match: EventMatchSchema,
  after: EventAfterSchema.optional(),
  same_session: z.boolean().default(false),
  count: IntPredicateSchema.optional(),
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

/** The seq after which events count, or why there is none yet. */
function resolveBoundary(
  check: EventCheck,
  ctx: EvaluationContext,
  index: EventIndex,
): { ok: true; seq: number } | { ok: false; reason: string } {
  if (check.after === undefined) return { ok: true, seq: -1 };
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
  // "No matching event (N recorded)" is for /quest status; the HUD says it plainly.
  hint: (result) =>
    result.status === "fail" && result.evidence.kind === "event" && result.evidence.matched === 0
      ? "not yet"
      : undefined,
});
