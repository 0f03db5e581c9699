/** What the HUD shows now, built from the session and its last result (hud.ts turns it into lines). */
import { hintFor } from "../verifier/checks/registry.ts";
import type { CheckResult } from "../verifier/results.ts";
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

/**
 * A check's HUD line from its result; before any result, just its description. A check type may
 * word the reason for a learner (its module's `hint`); else it is the summary.
 */
export function hudCheck(check: { id: string; describe?: string }, result?: CheckResult): HudCheck {
  const describe = check.describe ?? check.id;
  if (!result) return { describe, status: "unchecked" };
  const hint = hintFor(result);
  if (hint !== undefined) return { describe, status: result.status, reason: hint };
  const { summary } = result.evidence;
  const reason = result.status === "pending" ? `pending, ${summary}` : summary;
  return { describe, status: result.status, reason };
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
  return {
    kind: "active",
    title: active.quest.title,
    // A pinned quest the pack no longer has is counted last.
    position: session.positionOf(active.quest) || total,
    total,
    checks: active.quest.checks.map((check) => hudCheck(check, results.get(check.id))),
    evaluating,
    ...(reviewing !== undefined ? { reviewing } : {}),
    ...warning,
  };
}
