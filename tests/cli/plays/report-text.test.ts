/**
 * `--reporter text`: one line a play, the reason and the quest's last result under a play not
 * ok, the unproven quests, Pi's version, and `N passed, N failed` as the last line.
 */
import { describe, expect, it } from "vitest";
import { formatPlayText, formatTextReport, formatTextSummary } from "../../../src/cli/plays/report-text.ts";
import { ALL_OK, COLORED_OUTPUT, COMMIT_ERROR, MIXED, PROMPT_PASS, SHARD_2_OF_3 } from "./sample-reports.ts";

describe("the text reporter", () => {
  it("prints each play in pack order, what went wrong under a play not ok, then the counts", () => {
    expect(formatTextReport(MIXED).split("\n")).toEqual([
      "✓ first-prompt/pass: expected complete, got complete (1.2 s)",
      "✗ first-file/pass: expected complete, got not complete (2.1 s)",
      "    first-file did not complete: says-hello failed",
      "    first-file: last result",
      "      [pass] wrote-it (Pi wrote hello.txt with its write tool): matching tool_result event at seq 6",
      "      [pass] file-there (hello.txt exists): hello.txt is a file",
      "      [FAIL] says-hello (hello.txt says hello): exit code 1, expected = 0",
      "          last 1 line(s) of output:",
      `          | ${COLORED_OUTPUT.trimEnd()}`,
      "    FAIL: 2 passed, 1 failed, 0 pending",
      "✗ first-file/fail-claim: expected not complete, got complete (1.9 s)",
      "    first-file completed, though fail-claim expects it not to",
      "    first-file: last result",
      "      [pass] wrote-it (Pi wrote hello.txt with its write tool): matching tool_result event at seq 6",
      "      [pass] file-there (hello.txt exists): hello.txt is a file",
      "      [pass] says-hello (hello.txt says hello): exit code 0",
      "    pass: 3 passed, 0 failed, 0 pending",
      "✗ first-commit/fail-uncommitted: expected not complete, got error (45.0 s)",
      '    the play ran out of model replies at step 2 (prompt "commit it")',
      "unproven: first-skill (no solutions/QUEST/pass.yaml)",
      "Pi 1.6.0",
      "1 passed, 3 failed, 1 unproven",
      "",
    ]);
  });

  it("prints one play at a time, so the command can print each as it finishes", () => {
    expect(formatPlayText(PROMPT_PASS)).toBe(
      "✓ first-prompt/pass: expected complete, got complete (1.2 s)\n",
    );
    expect(formatPlayText({ ...COMMIT_ERROR, reason: undefined })).toBe(
      "✗ first-commit/fail-uncommitted: expected not complete, got error (45.0 s)\n" +
        "    expected not complete, got error\n",
    );
  });

  it("ends with N passed, N failed alone on the last line; unproven are named a failure with --strict", () => {
    expect(formatTextReport(ALL_OK).split("\n").slice(-2)).toEqual(["1 passed, 0 failed", ""]);
    expect(formatTextSummary({ ...ALL_OK, unproven: ["a", "b"], strict: true })).toBe(
      "unproven (a failure with --strict): a, b (no solutions/QUEST/pass.yaml)\n1 passed, 0 failed, 2 unproven\n",
    );
  });

  it("says which shard it played and how many of all the shards' plays, before the counts", () => {
    expect(formatTextSummary(SHARD_2_OF_3)).toBe(
      "Pi 1.6.0\nshard 2/3: 1 of the 3 plays\n1 passed, 0 failed\n",
    );
  });
});
