/** `--reporter json`: exactly the contract's object, plus the compatible extras, on one line. */
import { describe, expect, it } from "vitest";
import { formatJsonReport, jsonReport } from "../../../src/cli/plays/report-json.ts";
import {
  ALL_OK,
  COMMIT_ERROR,
  FIRST_FILE_DONE,
  FIRST_FILE_FAILING,
  FIRST_PROMPT_DONE,
  MIXED,
  SHARD_2_OF_3,
} from "./sample-reports.ts";

describe("the JSON reporter", () => {
  it("prints one line of JSON: the plays in pack order, unproven, passed, failed, and the Pi they ran in", () => {
    const text = formatJsonReport(MIXED);
    expect(text.endsWith("\n")).toBe(true);
    expect(text.trimEnd().includes("\n")).toBe(false);
    expect(JSON.parse(text)).toEqual({
      plays: [
        {
          quest: "first-prompt",
          play: "pass",
          expected: "complete",
          outcome: "complete",
          ok: true,
          durationMs: 1234,
          containment: "pid-namespace",
          result: FIRST_PROMPT_DONE,
        },
        {
          quest: "first-file",
          play: "pass",
          expected: "complete",
          outcome: "not complete",
          ok: false,
          reason: "first-file did not complete: says-hello failed",
          durationMs: 2051,
          containment: "pid-namespace",
          result: FIRST_FILE_FAILING,
        },
        {
          quest: "first-file",
          play: "fail-claim",
          expected: "not complete",
          outcome: "complete",
          ok: false,
          reason: "first-file completed, though fail-claim expects it not to",
          durationMs: 1890,
          containment: "process-group",
          result: FIRST_FILE_DONE,
        },
        {
          quest: "first-commit",
          play: "fail-uncommitted",
          expected: "not complete",
          outcome: "error",
          ok: false,
          reason: 'the play ran out of model replies at step 2 (prompt "commit it")',
          durationMs: 45000,
          containment: "pid-namespace",
          result: null,
        },
      ],
      unproven: ["first-skill"],
      passed: 1,
      failed: 3,
      piVersion: "1.6.0",
    });
  });

  it("keeps the result exactly as check --json prints it, control characters included", () => {
    const parsed = JSON.parse(formatJsonReport(MIXED));
    expect(parsed.plays[1].result).toEqual(FIRST_FILE_FAILING);
    expect(JSON.stringify(parsed.plays[1].result)).toBe(JSON.stringify(FIRST_FILE_FAILING));
  });

  it("gives every play the same keys: the contract's, then the extras the play has", () => {
    const contract = ["quest", "play", "expected", "outcome", "ok", "result"];
    for (const play of jsonReport(MIXED).plays) {
      expect(Object.keys(play)).toEqual(expect.arrayContaining(contract));
      expect(Object.keys(play).filter((key) => !contract.includes(key))).toEqual(
        expect.arrayContaining(["durationMs"]),
      );
    }
    const bare = jsonReport({ ...ALL_OK, plays: [{ ...COMMIT_ERROR, containment: undefined }] }).plays[0];
    expect(Object.keys(bare ?? {})).toEqual([
      "quest",
      "play",
      "expected",
      "outcome",
      "ok",
      "reason",
      "durationMs",
      "result",
    ]);
  });

  it("names a play not ok with no reason by what it expected and what happened", () => {
    const report = { ...ALL_OK, plays: [{ ...COMMIT_ERROR, reason: undefined }] };
    expect(jsonReport(report).plays[0]?.reason).toBe("expected not complete, got error");
  });

  it("says an all-green run with nothing unproven", () => {
    expect(JSON.parse(formatJsonReport(ALL_OK))).toMatchObject({ unproven: [], passed: 1, failed: 0 });
  });

  it("adds shard to a shard's report only: what --merge needs, the pack and versions with it", () => {
    expect(JSON.parse(formatJsonReport(SHARD_2_OF_3)).shard).toEqual({
      index: 2,
      count: 3,
      planned: ["first-prompt/pass", "first-file/pass", "first-file/fail-claim"],
      packDigest: "sha256:0123",
      piQuestsVersion: "0.9.0",
      pack: "./my-pack",
      piVersion: "1.6.0",
      strict: false,
    });
    expect(Object.keys(jsonReport(MIXED))).toEqual(["plays", "unproven", "passed", "failed", "piVersion"]);
  });
});
