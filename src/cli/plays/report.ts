/**
 * What `pi-quests test` found, as one value every reporter turns into text: each play with what
 * its name expected and what happened, the quests nobody proved, and the exit code it makes.
 */
import type { QuestResult } from "../../verifier/results.ts";
import { EXIT } from "../exit-codes.ts";
import { describeFailedCall, type FailedToolCall } from "./failed-tools.ts";

/** `pass.yaml` and every `pass-*.yaml` expect the quest complete, every `fail-*.yaml` not complete. */
export type PlayExpectation = "complete" | "not complete";
/** `error`: the play could not be played to its end (no replies left, a timeout, a refusal). */
export type PlayOutcome = "complete" | "not complete" | "error";

export type PlayReport = {
  /** The quest's id. */
  quest: string;
  /** The play file's name without `.yaml`: `pass`, `pass-heredoc`, `fail-claim`. */
  play: string;
  expected: PlayExpectation;
  outcome: PlayOutcome;
  /** `outcome === expected`. */
  ok: boolean;
  /** When not ok, or for an error: one sentence. */
  reason?: string;
  durationMs: number;
  /** The quest's last result, as `pi-quests check --json` prints it. */
  result?: QuestResult;
  /** For a play that did not complete its quest: the tool calls that failed, with their steps. */
  failedTools?: FailedToolCall[];
  containment?: "pid-namespace" | "process-group";
};

export type TestReport = {
  /** The pack folder as given. */
  pack: string;
  /** In pack order. */
  plays: PlayReport[];
  /** Quest ids without `solutions/<id>/pass.yaml`. */
  unproven: string[];
  /** `--strict`: an unproven quest counts as a failure. */
  strict: boolean;
  piVersion?: string;
  /** Set when the run played one shard (`--shard K/N`): what `--merge` needs to join the shards. */
  shard?: ShardRun;
};

/** One shard's run: which shard, what all the shards play together, and what played it. */
export type ShardRun = {
  /** 1-based. */
  index: number;
  count: number;
  /** Every play the `count` shards play together, as `QUEST/PLAY`, in the order reported. */
  planned: string[];
  /** The pack's quest files, plays and sandboxes, hashed (pack-digest.ts). */
  packDigest: string;
  /** The pi-quests that played it. */
  piQuestsVersion: string;
};

/** Plays that ended as their name says, and plays that did not (unproven quests are not plays). */
export function playCounts(report: TestReport): { passed: number; failed: number } {
  const passed = report.plays.filter((play) => play.ok).length;
  return { passed, failed: report.plays.length - passed };
}

/** 0 when every play is ok and, with `--strict`, every quest has a pass play; else 1. */
export function testExitCode(report: TestReport): number {
  const failed = playCounts(report).failed > 0 || (report.strict && report.unproven.length > 0);
  return failed ? EXIT.fail : EXIT.pass;
}

/** How every reporter names a play: `QUEST/PLAY`. */
export function playName(play: Pick<PlayReport, "quest" | "play">): string {
  return `${play.quest}/${play.play}`;
}

/** Why a quest is unproven, in the words every reporter uses. */
export function unprovenReason(quest: string): string {
  return `no solutions/${quest}/pass.yaml`;
}

/** The play's reason, or (for a play not ok that gave none) what it expected and what happened. */
export function playReason(play: PlayReport): string | undefined {
  if (play.reason) return play.reason;
  return play.ok ? undefined : `expected ${play.expected}, got ${play.outcome}`;
}

/** How the text and TAP reporters name a shard: `shard 2/4: 3 of the 11 plays` (of all the shards). */
export function shardLine(shard: ShardRun, plays: number): string {
  return `shard ${shard.index}/${shard.count}: ${plays} of the ${shard.planned.length} plays`;
}

/** The tool calls that failed in a play not ok, one line each (none for a play that ended as named). */
export function failedToolLines(play: PlayReport): string[] {
  if (play.ok || !play.failedTools?.length) return [];
  return ["tool calls that failed:", ...play.failedTools.map((call) => `  ${describeFailedCall(call)}`)];
}

/** The title `formatQuestResult` prints after the quest's id: the report knows no quest titles. */
export const RESULT_TITLE = "last result";
