/**
 * `/quest status` for the learner: each check of the active quest with its mark and the reason in
 * the learner's words, as the HUD shows it but never cut short, and how many are done. The
 * author's report (ids, `[FAIL]`, exit codes, output) is `/quest status --details`. Pure.
 */
import type { Quest } from "../verifier/quest.ts";
import type { QuestResult } from "../verifier/results.ts";
import { MARK } from "./hud.ts";
import { hudCheck } from "./quest-hud-state.ts";

export function learnerStatusText(quest: Quest, result: QuestResult | undefined, acted: boolean): string {
  const results = new Map(result?.checks.map((check) => [check.id, check]));
  const checks = quest.checks.map((check) => hudCheck(check, results.get(check.id), acted));
  const passed = checks.filter((check) => check.status === "pass").length;
  const done =
    passed === checks.length
      ? "Every check passes."
      : `${passed} of ${checks.length} ${checks.length === 1 ? "check passes" : "checks pass"}.`;
  return [
    quest.title,
    ...checks.map(
      ({ status, describe, reason }) => `  ${MARK[status]} ${describe}${reason ? `: ${reason}` : ""}`,
    ),
    `${result ? done : "Not checked yet."} The checker's own detail: /quest status --details`,
  ].join("\n");
}
