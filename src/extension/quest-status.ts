/**
 * `/quest status` for the learner: each check of the active quest with its mark and the reason in
 * the learner's words, as the HUD shows it but never cut short, and how many are done. The
 * author's report (ids, `[FAIL]`, exit codes, output) is `/quest status --details`. Pure.
 */
import type { Quest } from "../verifier/quest.ts";
import type { QuestResult } from "../verifier/results.ts";
import { MARK } from "./hud.ts";
import { hudCheck } from "./quest-hud-state.ts";

function learnerChecks(quest: Quest, result: QuestResult | undefined, acted: boolean) {
  const results = new Map(result?.checks.map((check) => [check.id, check]));
  const checks = quest.checks.map((check) => hudCheck(check, results.get(check.id), acted));
  return { checks, passed: checks.filter((check) => check.status === "pass").length };
}

/** "1 of 3 checks pass", "0 of 1 check passes". */
const passCount = (passed: number, total: number) =>
  `${passed} of ${total} ${total === 1 ? "check passes" : "checks pass"}`;

export function learnerStatusText(quest: Quest, result: QuestResult | undefined, acted: boolean): string {
  const { checks, passed } = learnerChecks(quest, result, acted);
  const done = passed === checks.length ? "Every check passes." : `${passCount(passed, checks.length)}.`;
  return [
    quest.title,
    ...checks.map(
      ({ status, describe, reason }) => `  ${MARK[status]} ${describe}${reason ? `: ${reason}` : ""}`,
    ),
    `${result ? done : "Not checked yet."} The checker's own detail: /quest status --details`,
  ].join("\n");
}

/**
 * What `/quest check` says once it has checked: how many checks pass and, for the others, the
 * HUD's own word before the learner acts ("not yet", never "failed") or where to read why.
 */
export function checkSummaryText(quest: Quest, result: QuestResult, acted: boolean): string {
  const { checks, passed } = learnerChecks(quest, result, acted);
  const pass = passCount(passed, checks.length);
  const notYet = checks.filter((check) => check.status === "unchecked").length;
  const rest = checks.length - passed;
  if (rest === 0) return `${quest.title}: ${pass}.`;
  if (notYet === rest) return `${quest.title}: ${pass}, ${rest} not yet.`;
  return `${quest.title}: ${pass}; /quest status says what is missing.`;
}
