/**
 * `--reporter junit`: JUnit XML written by junit-report-builder (loaded only when asked for).
 * One `<testcase name="QUEST/PLAY" classname="QUEST">` a play: a wrong outcome is a
 * `<failure>`, an `error` outcome an `<error>`, and the play's reason with the quest's last
 * result goes to `<system-out>`. An unproven quest is a skipped `QUEST/pass` (a failure with
 * `--strict`). Every text is stripped of control characters first (`plainText`). A shard's suite
 * is named for its shard (`pi-quests test PACK (shard 2/4)`), so the N files a CI collects hold N
 * distinct suites, and no testcase twice (each play is in one shard, unproven quests in shard 1).
 */
import type { Builder } from "junit-report-builder";
import { formatQuestResult } from "../../verifier/report.ts";
import { plainText } from "./plain-text.ts";
import {
  failedToolLines,
  type PlayReport,
  playName,
  playReason,
  RESULT_TITLE,
  type TestReport,
  unprovenReason,
} from "./report.ts";

type Suite = ReturnType<Builder["testSuite"]>;

/**
 * The library's builder. Its CommonJS file sets `module.exports` to the builder, which Node
 * gives an ES import as `default`; its types declare an ES `export default`, which TypeScript
 * reads as `default.default` for a CommonJS package. Node is right, hence the cast.
 */
async function loadJunit(): Promise<Builder> {
  const loaded = (await import("junit-report-builder")) as unknown as { default: Builder };
  return loaded.default;
}

/** The XML document, ending with a newline. */
export async function formatJunitReport(report: TestReport): Promise<string> {
  const builder = (await loadJunit()).newBuilder(); // never the library's shared default builder
  const suite = builder.testSuite().name(plainText(`pi-quests test ${report.pack}${shardSuffix(report)}`));
  if (report.piVersion) suite.property("pi.version", plainText(report.piVersion));
  if (report.shard) suite.property("shard", `${report.shard.index}/${report.shard.count}`);
  for (const play of report.plays) addPlay(suite, play);
  for (const quest of report.unproven) addUnproven(suite, quest, report.strict);
  return `${builder.build()}\n`;
}

/** ` (shard K/N)` for a shard's run, else nothing. */
function shardSuffix(report: TestReport): string {
  return report.shard ? ` (shard ${report.shard.index}/${report.shard.count})` : "";
}

function addPlay(suite: Suite, play: PlayReport): void {
  const testCase = suite
    .testCase()
    .className(plainText(play.quest))
    .name(plainText(playName(play)))
    .time(play.durationMs / 1000);
  const reason = plainText(playReason(play) ?? "");
  if (play.outcome === "error") testCase.error(reason, "play-error");
  else if (!play.ok) testCase.failure(reason, "wrong-outcome");
  testCase.standardOutput(plainText(playOutput(play)));
}

/** What a CI page shows under the test: expected and outcome, the reason, the quest's result. */
function playOutput(play: PlayReport): string {
  const reason = playReason(play);
  return [
    `expected ${play.expected}, got ${play.outcome}\n`,
    reason ? `${reason}\n` : "",
    ...failedToolLines(play).map((line) => `${line}\n`),
    play.result ? formatQuestResult(play.result, RESULT_TITLE) : "",
  ].join("");
}

function addUnproven(suite: Suite, quest: string, strict: boolean): void {
  const testCase = suite
    .testCase()
    .className(plainText(quest))
    .name(plainText(`${quest}/pass`));
  const reason = plainText(`unproven: ${unprovenReason(quest)}`);
  if (strict) testCase.failure(reason, "unproven");
  else testCase.skipped().standardOutput(reason);
}
