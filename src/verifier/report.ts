/** A quest result as text: the CLI's `check` output and the extension's `/quest status`. */
import { reportDetailFor } from "./checks/registry.ts";
import type { CheckResult, QuestResult } from "./results.ts";

const MARK = { pass: "pass", fail: "FAIL", pending: "pending" } as const;
const DETAIL_INDENT = "      ";

/** One line a check, and what its type adds (for a failing or pending command, the tail of its output). */
export function formatQuestResult(result: QuestResult, title: string): string {
  const { passed, failed, pending } = result.counts;
  const lines = [
    `${result.quest}: ${title}`,
    ...result.checks.flatMap(formatCheck),
    `${MARK[result.status]}: ${passed} passed, ${failed} failed, ${pending} pending`,
  ];
  return `${lines.join("\n")}\n`;
}

function formatCheck(check: CheckResult): string[] {
  const label = check.describe ? `${check.id} (${check.describe})` : check.id;
  const detail = reportDetailFor(check);
  const note = detail.note ? ` (${detail.note})` : "";
  return [
    `  [${MARK[check.status]}] ${label}: ${check.evidence.summary}${note}`,
    ...(detail.lines ?? []).map((line) => `${DETAIL_INDENT}${line}`),
  ];
}
