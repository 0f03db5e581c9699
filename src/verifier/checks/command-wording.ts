/** The `command` check's wording for people (zod-free: the HUD loads it while Pi starts). */
import type { CheckWording, ReportDetail } from "./define.ts";

/** How many lines of a failing or pending run's output the report shows (its tail). */
const OUTPUT_TAIL_LINES = 20;

export const commandWording = {
  /** Whether a receipt answered the check, and for a failing or pending run the tail of its output. */
  reportDetail: (result) => {
    const evidence = result.evidence;
    if (evidence.kind !== "command") return {};
    const detail: ReportDetail = evidence.receipt?.reused
      ? { note: `receipt ${evidence.receipt.id}: same check, same files; not run again` }
      : {};
    if (result.status === "pass" || !evidence.output) return detail;
    const tail = evidence.output.trimEnd().split("\n").slice(-OUTPUT_TAIL_LINES);
    const cut = evidence.outputTruncated ? " (earlier output dropped)" : "";
    return {
      ...detail,
      lines: [`last ${tail.length} line(s) of output${cut}:`, ...tail.map((line) => `| ${line}`)],
    };
  },
} satisfies CheckWording;
