/** What the HUD shows now, built from the session and its last result (hud.ts turns it into lines). */
import { type Check, learnerReason } from "../verifier/checks/registry.ts";
import type { CheckResult, PendingKind } from "../verifier/results.ts";
import type { HudCheck, HudState } from "./hud.ts";
import type { QuestSessionState } from "./quest-session-state.ts";

export type HudInputs = {
  /** Whether an evaluation of the active quest is running. */
  evaluating: boolean;
  /** The model of the review running now, if one is. */
  reviewing?: string | undefined;
  /** The integrity warning, if pi-quests ignored altered records or blocked the agent. */
  integrity: string | undefined;
  /** The line about code Pi wrote that runs inside Pi, if there is any (agent-code.ts). */
  agentCode?: string | undefined;
  /** The active pack's name, when it is not the built-in pack. */
  pack?: string | undefined;
};

/** What an unmet check says before the learner has done anything in the quest. */
export const NOT_YET = "not yet";

/**
 * A check's HUD line from its result: `○` alone before any result; `○` "not yet" for a check
 * not met before the learner has acted in the quest (`acted`): nothing is red, and nothing waits
 * on something they have not done, before the learner does something. A check that cannot be
 * decided for another reason (a confirm to answer, no review model, a tool that would not start)
 * says so at once: that is the learner's to fix. Otherwise the reason is the check type's
 * wording for a learner (registry.ts, `learnerReason`), never the author's summary.
 */
export function hudCheck(
  check: Check | { id: string; describe?: string },
  result?: CheckResult,
  acted = true,
): HudCheck {
  const describe = check.describe ?? check.id;
  if (!result) return { describe, status: "unchecked" };
  if (!acted && unmetForNow(result)) return { describe, status: "unchecked", reason: NOT_YET };
  if (result.status === "pass") return { describe, status: "pass" };
  const own = "type" in check ? check : undefined;
  return { describe, status: result.status, reason: learnerReason(result, own) };
}

/** Pending for want of the learner's own work: an event not reached yet, a review with nothing to review. */
const WAITS_ON_THE_LEARNER: ReadonlySet<PendingKind> = new Set(["not_reached", "awaiting_review"]);

/** Whether a result only says the learner has not done the work yet (before they act, "not yet"). */
function unmetForNow(result: CheckResult): boolean {
  if (result.status !== "pending") return result.status === "fail";
  // A pending result of any kind of evidence (a review's too) says why in `pending`.
  return "pending" in result.evidence && WAITS_ON_THE_LEARNER.has(result.evidence.pending as PendingKind);
}

export function questHudState(
  session: QuestSessionState,
  { evaluating, reviewing, integrity, agentCode, pack: packName }: HudInputs,
): HudState {
  const { pack, active, notice } = session;
  const total = pack.length;
  const warning = {
    ...(integrity ? { integrity } : {}),
    ...(agentCode ? { agentCode } : {}),
    ...(packName ? { pack: packName } : {}),
  };
  if (!active) {
    const done = pack.filter((quest) => session.isDone(quest.id)).length;
    const skipped = pack.filter((quest) => session.isSkipped(quest.id)).length;
    return {
      kind: "idle",
      done,
      total,
      ...(skipped > 0 ? { skipped } : {}),
      ...(notice ? { notice } : {}),
      ...warning,
    };
  }
  const results = new Map(session.lastResultOf(active.quest.id)?.checks.map((c) => [c.id, c]));
  const acted = session.learnerActed(active.record);
  return {
    kind: "active",
    title: active.quest.title,
    // A pinned quest the pack no longer has is counted last.
    position: session.positionOf(active.quest) || total,
    total,
    checks: active.quest.checks.map((check) => hudCheck(check, results.get(check.id), acted)),
    evaluating,
    ...(reviewing !== undefined ? { reviewing } : {}),
    ...warning,
  };
}
