/** The report model: counts, the exit code (with and without --strict), and the reporters' table. */
import { describe, expect, it } from "vitest";
import { playCounts, playName, playReason, testExitCode } from "../../../src/cli/plays/report.ts";
import { isReporterName, REPORTER_NAMES, REPORTERS } from "../../../src/cli/plays/reporters.ts";
import { ALL_OK, FILE_PASS_WRONG, MIXED, PROMPT_PASS } from "./sample-reports.ts";

describe("the report of pi-quests test", () => {
  it("counts plays that ended as named as passed, the others as failed; unproven quests are not plays", () => {
    expect(playCounts(MIXED)).toEqual({ passed: 1, failed: 3 });
    expect(playCounts(ALL_OK)).toEqual({ passed: 1, failed: 0 });
    expect(playCounts({ ...ALL_OK, plays: [] })).toEqual({ passed: 0, failed: 0 });
  });

  it("exits 0 when every play is ok, 1 when one is not", () => {
    expect(testExitCode(ALL_OK)).toBe(0);
    expect(testExitCode(MIXED)).toBe(1);
    expect(testExitCode({ ...MIXED, plays: [PROMPT_PASS] })).toBe(0);
  });

  it("counts an unproven quest as a failure only with --strict", () => {
    const unproven = { ...ALL_OK, unproven: ["first-skill"] };
    expect(testExitCode(unproven)).toBe(0);
    expect(testExitCode({ ...unproven, strict: true })).toBe(1);
    expect(testExitCode({ ...ALL_OK, strict: true })).toBe(0);
  });

  it("names a play QUEST/PLAY, and says what went wrong when the runner gave no reason", () => {
    expect(playName(FILE_PASS_WRONG)).toBe("first-file/pass");
    expect(playReason(FILE_PASS_WRONG)).toBe("first-file did not complete: says-hello failed");
    expect(playReason({ ...FILE_PASS_WRONG, reason: undefined })).toBe("expected complete, got not complete");
    expect(playReason(PROMPT_PASS)).toBeUndefined();
  });
});

describe("the reporters' table", () => {
  it("has the four names --reporter takes, each a function of the report", async () => {
    expect(REPORTER_NAMES).toEqual(["text", "json", "junit", "tap"]);
    for (const name of REPORTER_NAMES) {
      const text = await REPORTERS[name](MIXED);
      expect(text, name).toMatch(/fail-claim[\s\S]*\n$/);
    }
  });

  it("knows only those names, not an object's inherited keys", () => {
    expect(isReporterName("junit")).toBe(true);
    expect(isReporterName("xml")).toBe(false);
    expect(isReporterName("toString")).toBe(false);
  });
});
