/**
 * `pi-quests test --merge`: the JSON reports of a run's shards, written by the JSON reporter,
 * read back into the report one run makes; and every way reports can fail to be one run's
 * shards refused with a sentence naming the file.
 */
import { describe, expect, it } from "vitest";
import { mergeShardReports, type ReportFile } from "../../../src/cli/plays/merge.ts";
import type { PlayReport, ShardRun, TestReport } from "../../../src/cli/plays/report.ts";
import { testExitCode } from "../../../src/cli/plays/report.ts";
import { formatJsonReport } from "../../../src/cli/plays/report-json.ts";
import { ALL_OK, MIXED } from "./sample-reports.ts";

const names = (report: TestReport) => report.plays.map((play) => `${play.quest}/${play.play}`);

const RUN = { packDigest: "sha256:abc", piQuestsVersion: "0.9.0" };

/** The report of shard `index` of `count` of `whole`, holding `plays` (and, in shard 1, the unproven). */
function shardOf(
  whole: TestReport,
  index: number,
  count: number,
  plays: readonly PlayReport[],
  run: Partial<ShardRun> = {},
): TestReport {
  return {
    ...whole,
    plays: [...plays],
    unproven: index === 1 ? whole.unproven : [],
    shard: { index, count, planned: names(whole), ...RUN, ...run },
  };
}

const file = (name: string, report: TestReport): ReportFile => ({
  file: name,
  text: formatJsonReport(report),
});

/** MIXED in two shards: the second and fourth play in shard 1, the others in shard 2. */
function mixedShards(): ReportFile[] {
  const [a, b, c, d] = MIXED.plays as [PlayReport, PlayReport, PlayReport, PlayReport];
  return [
    file("shard-2.json", shardOf(MIXED, 2, 2, [a, c])),
    file("shard-1.json", shardOf(MIXED, 1, 2, [b, d])),
  ];
}

const refusal = (files: readonly ReportFile[]) => {
  const merged = mergeShardReports(files);
  if (merged.ok) throw new Error("merged, but should have been refused");
  return merged.message;
};

describe("mergeShardReports", () => {
  it("gives back the report one run makes: the plays in planned order, unproven once, Pi's version", () => {
    const merged = mergeShardReports(mixedShards());
    expect(merged).toEqual({ ok: true, report: MIXED });
    if (merged.ok) expect(testExitCode(merged.report)).toBe(1);
  });

  it("keeps what a failing play's report says of the tool calls that failed", () => {
    const [a, b, c, d] = MIXED.plays as [PlayReport, PlayReport, PlayReport, PlayReport];
    const failedTools = [
      { step: 'step 1 (prompt "Fix it")', tool: "edit", error: "Could not find the exact text" },
    ];
    const withCalls = { ...MIXED, plays: [a, { ...b, failedTools }, c, d] };
    const merged = mergeShardReports([
      file("shard-1.json", shardOf(withCalls, 1, 2, [withCalls.plays[1] as PlayReport, d])),
      file("shard-2.json", shardOf(withCalls, 2, 2, [a, c])),
    ]);
    expect(merged).toEqual({ ok: true, report: withCalls });
  });

  it("exits 0 when every play of every shard is ok, an empty shard included", () => {
    const merged = mergeShardReports([
      file("a.json", shardOf(ALL_OK, 1, 3, [])),
      file("b.json", shardOf(ALL_OK, 2, 3, ALL_OK.plays)),
      file("c.json", shardOf(ALL_OK, 3, 3, [])),
    ]);
    expect(merged).toEqual({ ok: true, report: ALL_OK });
    if (merged.ok) expect(testExitCode(merged.report)).toBe(0);
  });

  it("refuses a missing shard, saying which and how many", () => {
    expect(refusal([file("a.json", shardOf(ALL_OK, 1, 3, ALL_OK.plays))])).toBe(
      "shard 2/3, 3/3 are missing: give the reports of all 3 shards",
    );
  });

  it("refuses a shard given twice, naming both files", () => {
    const one = shardOf(ALL_OK, 1, 2, ALL_OK.plays);
    expect(refusal([file("a.json", one), file("b.json", one)])).toBe("a.json and b.json are both shard 1/2");
  });

  it("refuses shards that overlap: a play in two reports", () => {
    const files = [
      file("a.json", shardOf(ALL_OK, 1, 2, ALL_OK.plays)),
      file("b.json", shardOf(ALL_OK, 2, 2, ALL_OK.plays)),
    ];
    expect(refusal(files)).toBe("the play first-prompt/pass is in a.json and in b.json: the shards overlap");
  });

  it("refuses reports of another pack, naming the file", () => {
    const files = [
      file("a.json", shardOf(ALL_OK, 1, 2, ALL_OK.plays)),
      file("b.json", { ...shardOf(ALL_OK, 2, 2, [], { packDigest: "sha256:def" }), pack: "other" }),
    ];
    expect(refusal(files)).toBe(
      "b.json is a report of another pack than a.json (other against ./my-pack: their quests, plays or sandboxes differ); merge the shards of one run",
    );
  });

  it("refuses reports of another pi-quests version, naming both", () => {
    const files = [
      file("a.json", shardOf(ALL_OK, 1, 2, ALL_OK.plays)),
      file("b.json", shardOf(ALL_OK, 2, 2, [], { piQuestsVersion: "0.8.0" })),
    ];
    expect(refusal(files)).toBe(
      "b.json was played by pi-quests 0.8.0, a.json by pi-quests 0.9.0; merge the shards of one run",
    );
  });

  it("refuses shards that planned other plays (another --quest or --chapter)", () => {
    const files = [
      file("a.json", shardOf(ALL_OK, 1, 2, ALL_OK.plays)),
      file("b.json", shardOf(ALL_OK, 2, 2, [], { planned: ["first-prompt/pass", "first-file/pass"] })),
    ];
    expect(refusal(files)).toMatch(/^b\.json planned other plays than a\.json/);
  });

  it("refuses shards of another N, another --strict, another Pi", () => {
    const a = file("a.json", shardOf(ALL_OK, 1, 2, ALL_OK.plays));
    expect(refusal([a, file("b.json", shardOf(ALL_OK, 2, 3, []))])).toMatch(
      /^b\.json is shard 2\/3, a\.json shard 1\/2/,
    );
    expect(refusal([a, file("b.json", { ...shardOf(ALL_OK, 2, 2, []), strict: true })])).toBe(
      "b.json ran with --strict, a.json did not",
    );
    expect(refusal([a, file("b.json", { ...shardOf(ALL_OK, 2, 2, []), piVersion: "1.5.0" })])).toBe(
      "b.json was played on Pi 1.5.0, a.json on Pi (unknown); merge the shards of one run",
    );
  });

  it("refuses a report of a whole run, a file that is not JSON, and one that is not a report", () => {
    expect(refusal([file("whole.json", ALL_OK)])).toBe(
      "whole.json is not a shard's report: make each with pi-quests test PACK --shard K/N --reporter json",
    );
    expect(refusal([{ file: "x.json", text: "<testsuites/>" }])).toMatch(/^x\.json is not JSON \(/);
    expect(refusal([{ file: "y.json", text: '{"plays": [{"quest": 1}], "unproven": []}' }])).toMatch(
      /^y\.json is not a report of pi-quests test --reporter json at plays\.0\.quest: /,
    );
  });

  it("refuses nothing to merge", () => {
    expect(refusal([])).toBe("give the JSON reports of the shards to merge");
  });
});
