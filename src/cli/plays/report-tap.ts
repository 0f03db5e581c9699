/**
 * `--reporter tap`: TAP 14, written here (the format is a few lines). One test point a play; a
 * play not ok carries a YAML diagnostics block (expected, outcome, reason, the quest's last
 * result). An unproven quest is a point `QUEST/pass # SKIP unproven: …`, or `not ok` with
 * `--strict`. Counts and Pi's version follow as comments.
 */
import { stringify } from "yaml";
import {
  type PlayReport,
  playCounts,
  playName,
  playReason,
  shardLine,
  type TestReport,
  unprovenReason,
} from "./report.ts";

/** TAP 14 escapes `\` and `#` in a description; a line break would end the point. */
export function tapDescription(text: string): string {
  return text
    .replace(/\\/g, "\\\\")
    .replace(/#/g, "\\#")
    .replace(/[\r\n]+/g, " ");
}

/** A YAML block indented under its point, between `---` and `...`. */
function diagnostics(value: Record<string, unknown>): string[] {
  const yaml = stringify(value, { lineWidth: 0 }).trimEnd().split("\n");
  return ["  ---", ...yaml.map((line) => (line === "" ? "" : `  ${line}`)), "  ..."];
}

function playPoint(play: PlayReport, n: number): string[] {
  const point = `${play.ok ? "ok" : "not ok"} ${n} - ${tapDescription(playName(play))}`;
  if (play.ok) return [point];
  return [
    point,
    ...diagnostics({
      quest: play.quest,
      play: play.play,
      expected: play.expected,
      outcome: play.outcome,
      reason: playReason(play),
      durationMs: play.durationMs,
      ...(play.containment ? { containment: play.containment } : {}),
      ...(play.result ? { result: play.result } : {}),
    }),
  ];
}

function unprovenPoint(quest: string, n: number, strict: boolean): string[] {
  const description = tapDescription(`${quest}/pass`);
  const reason = `unproven: ${unprovenReason(quest)}`;
  if (!strict) return [`ok ${n} - ${description} # SKIP ${tapDescription(reason)}`];
  return [`not ok ${n} - ${description}`, ...diagnostics({ quest, play: "pass", reason })];
}

/** The TAP stream, ending with a newline. */
export function formatTapReport(report: TestReport): string {
  const { passed, failed } = playCounts(report);
  const count = report.plays.length + report.unproven.length;
  const points = [
    ...report.plays.map((play, i) => playPoint(play, i + 1)),
    ...report.unproven.map((quest, i) => unprovenPoint(quest, report.plays.length + i + 1, report.strict)),
  ].flat();
  const unproven = report.unproven.length > 0 ? `, ${report.unproven.length} unproven` : "";
  return `${[
    "TAP version 14",
    `1..${count}`,
    ...points,
    `# ${passed} passed, ${failed} failed${unproven}`,
    ...(report.piVersion ? [`# Pi ${tapDescription(report.piVersion)}`] : []),
    ...(report.shard ? [`# ${shardLine(report.shard, report.plays.length)}`] : []),
  ].join("\n")}\n`;
}
