import type { CheckResult, QuestResult } from "../core/results.ts";

/** A stream the CLI writes to (stdout or stderr; a buffer in tests). */
export type Writer = (text: string) => void;

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
  const lines = [`  [${MARK[check.status]}] ${label}: ${check.evidence.summary}`];
  const evidence = check.evidence;
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
