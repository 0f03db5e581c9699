/**
 * `--reporter text`: one line a play (✓ or ✗, the play, what was expected and what happened,
 * seconds); under a play not ok its reason and the quest's last result; then the unproven
 * quests, Pi's version, the shard when it is one, and `N passed, N failed` as the last line.
 */
import { formatQuestResult } from "../../verifier/report.ts";
import {
  failedToolLines,
  type PlayReport,
  playCounts,
  playName,
  playReason,
  RESULT_TITLE,
  shardLine,
  type TestReport,
} from "./report.ts";

const INDENT = "    ";

/** One play: its line, and for a play not ok what went wrong. Ends with a newline. */
export function formatPlayText(play: PlayReport): string {
  const seconds = (play.durationMs / 1000).toFixed(1);
  const line = `${play.ok ? "✓" : "✗"} ${playName(play)}: expected ${play.expected}, got ${play.outcome} (${seconds} s)`;
  if (play.ok) return `${line}\n`;
  const detail = [
    playReason(play) ?? "",
    ...failedToolLines(play),
    ...(play.result ? resultLines(play) : []),
  ];
  return `${[line, ...detail.map((text) => `${INDENT}${text}`)].join("\n")}\n`;
}

function resultLines(play: PlayReport): string[] {
  if (!play.result) return [];
  return formatQuestResult(play.result, RESULT_TITLE).trimEnd().split("\n");
}

/** What follows the plays: the unproven quests, Pi's version, the counts. Ends with a newline. */
export function formatTextSummary(report: TestReport): string {
  const { passed, failed } = playCounts(report);
  const unproven = report.unproven.length;
  const lines: string[] = [];
  if (unproven > 0) {
    const strict = report.strict ? " (a failure with --strict)" : "";
    lines.push(`unproven${strict}: ${report.unproven.join(", ")} (no solutions/QUEST/pass.yaml)`);
  }
  if (report.piVersion) lines.push(`Pi ${report.piVersion}`);
  if (report.shard) lines.push(shardLine(report.shard, report.plays.length));
  lines.push(`${passed} passed, ${failed} failed${unproven > 0 ? `, ${unproven} unproven` : ""}`);
  return `${lines.join("\n")}\n`;
}

/** The whole report, plays in pack order. */
export function formatTextReport(report: TestReport): string {
  return report.plays.map(formatPlayText).join("") + formatTextSummary(report);
}
