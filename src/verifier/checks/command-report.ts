/**
 * The author's detail of a command check's result (`pi-quests check`, `/quest status --details`):
 * whether a receipt answered it, what of the learner's changes the run did not use, and the tail
 * of its output. The learner's own words for it are the check type's hint (command.ts).
 */
import type { CheckResult } from "../results.ts";
import type { ReportDetail } from "./define.ts";

/** How many of the output's last lines the detail shows. */
const OUTPUT_TAIL_LINES = 20;

/** Whether a receipt answered the check, and for a failing or pending run the tail of its output. */
export function commandReportDetail(result: CheckResult): ReportDetail {
  const evidence = result.evidence;
  if (evidence.kind !== "command") return {};
  const detail: ReportDetail = evidence.receipt?.reused
    ? { note: `receipt ${evidence.receipt.id}: same check, same files; not run again` }
    : {};
  if (result.status === "pass") return detail;
  // What the run did not use comes first: it may be why the check did not pass.
  const unused = evidence.unusedChanges ?? [];
  const unusedLines =
    unused.length > 0 ? ["not used in the check's run:", ...unused.map((sentence) => `- ${sentence}`)] : [];
  if (!evidence.output) return unusedLines.length > 0 ? { ...detail, lines: unusedLines } : detail;
  const tail = evidence.output.trimEnd().split("\n").slice(-OUTPUT_TAIL_LINES);
  const cut = evidence.outputTruncated ? " (earlier output dropped)" : "";
  return {
    ...detail,
    lines: [
      ...unusedLines,
      `last ${tail.length} line(s) of output${cut}:`,
      ...tail.map((line) => `| ${line}`),
    ],
  };
}
