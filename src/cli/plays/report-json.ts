/**
 * `--reporter json`: the contract's one object, `{plays: [{quest, play, expected, outcome, ok,
 * result}], unproven, passed, failed}`, with the compatible extras `reason`, `durationMs` and
 * `containment` on a play. A play that has no result (the quest was never evaluated) says
 * `"result": null`, so every play has the same keys. Beside the contract's keys, `piVersion`: the
 * Pi the plays ran in (the same line the text reporter ends with). A shard's run (`--shard K/N`)
 * adds `shard`: what `pi-quests test --merge` reads to join the shards' reports into one.
 */
import type { QuestResult } from "../../verifier/results.ts";
import { type PlayReport, playCounts, playReason, type ShardRun, type TestReport } from "./report.ts";

export type JsonPlay = {
  quest: string;
  play: string;
  expected: PlayReport["expected"];
  outcome: PlayReport["outcome"];
  ok: boolean;
  reason?: string;
  durationMs: number;
  containment?: PlayReport["containment"];
  /** A play that did not complete its quest: the tool calls that failed, each with its step. */
  failedTools?: PlayReport["failedTools"];
  result: QuestResult | null;
};

/** A shard's run, and what the shards must share to be merged: the pack, the versions, `--strict`. */
export type JsonShard = ShardRun & { pack: string; piVersion?: string; strict: boolean };

export type JsonReport = {
  plays: JsonPlay[];
  unproven: string[];
  passed: number;
  failed: number;
  piVersion?: string;
  shard?: JsonShard;
};

/** The object `--reporter json` prints. */
export function jsonReport(report: TestReport): JsonReport {
  return {
    plays: report.plays.map(jsonPlay),
    unproven: [...report.unproven],
    ...playCounts(report),
    ...(report.piVersion !== undefined ? { piVersion: report.piVersion } : {}),
    ...(report.shard ? { shard: jsonShard(report, report.shard) } : {}),
  };
}

function jsonShard(report: TestReport, shard: ShardRun): JsonShard {
  return {
    ...shard,
    planned: [...shard.planned],
    pack: report.pack,
    ...(report.piVersion !== undefined ? { piVersion: report.piVersion } : {}),
    strict: report.strict,
  };
}

function jsonPlay(play: PlayReport): JsonPlay {
  const reason = playReason(play);
  return {
    quest: play.quest,
    play: play.play,
    expected: play.expected,
    outcome: play.outcome,
    ok: play.ok,
    ...(reason !== undefined ? { reason } : {}),
    durationMs: play.durationMs,
    ...(play.containment ? { containment: play.containment } : {}),
    ...(play.failedTools?.length ? { failedTools: play.failedTools } : {}),
    result: play.result ?? null,
  };
}

/** One line of JSON, as `pi-quests check --json` prints its result. */
export function formatJsonReport(report: TestReport): string {
  return `${JSON.stringify(jsonReport(report))}\n`;
}
