/** A quest result as text: the CLI's `check` output and the extension's `/quest status`. */
import type { CheckResult, QuestResult } from "./results.ts";

const MARK = { pass: "pass", fail: "FAIL", pending: "pending" } as const;
const OUTPUT_TAIL_LINES = 20;

/** One line a check, and for a failing or pending command the tail of what it printed. */
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
  const evidence = check.evidence;
  const reused =
    evidence.kind === "command" && evidence.receipt?.reused
      ? ` (receipt ${evidence.receipt.id}: same check, same files; not run again)`
      : "";
  const lines = [`  [${MARK[check.status]}] ${label}: ${evidence.summary}${reused}`];
  if (evidence.kind === "command" && check.status !== "pass" && evidence.output) {
    const tail = evidence.output.trimEnd().split("\n").slice(-OUTPUT_TAIL_LINES);
    const cut = evidence.outputTruncated ? " (earlier output dropped)" : "";
    lines.push(
      `      last ${tail.length} line(s) of output${cut}:`,
      ...tail.map((line) => `      | ${line}`),
    );
  }
  return lines;
}
