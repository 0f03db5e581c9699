/**
 * `--reporter tap`, parsed back with tap-parser: TAP 14, the plan, ok / not ok a play, a SKIP
 * point for an unproven quest (not ok with --strict), the diagnostics of a play not ok as an
 * object with the quest's result, and descriptions escaped.
 */
import { Parser, type Result } from "tap-parser";
import { describe, expect, it } from "vitest";
import type { TestReport } from "../../../src/cli/plays/report.ts";
import { formatTapReport, tapDescription } from "../../../src/cli/plays/report-tap.ts";
import { ALL_OK, FIRST_FILE_FAILING, MIXED, PROMPT_PASS, SHARD_2_OF_3 } from "./sample-reports.ts";

type Parsed = {
  version: unknown;
  plan: { start: number; end: number };
  asserts: Result[];
  comments: string[];
  final: { ok: boolean; count: number; pass: number; fail: number; skip: number };
};

function parse(report: TestReport): Parsed {
  const events = Parser.parse(formatTapReport(report));
  const of = (type: string) => events.filter((event) => event[0] === type).map((event) => event[1]);
  return {
    version: of("version")[0],
    plan: of("plan")[0],
    asserts: of("assert"),
    comments: of("comment"),
    final: of("complete")[0],
  };
}

describe("the TAP reporter", () => {
  it("writes TAP 14 with a plan of one point a play and one an unproven quest", () => {
    const parsed = parse(MIXED);
    expect(parsed.version).toBe(14);
    expect(parsed.plan).toMatchObject({ start: 1, end: 5 });
    expect(parsed.asserts.map((a) => [a.id, a.ok, a.name, a.skip])).toEqual([
      [1, true, "first-prompt/pass", false],
      [2, false, "first-file/pass", false],
      [3, false, "first-file/fail-claim", false],
      [4, false, "first-commit/fail-uncommitted", false],
      [5, true, "first-skill/pass", "unproven: no solutions/first-skill/pass.yaml"],
    ]);
    expect(parsed.final).toMatchObject({ ok: false, count: 5, pass: 2, fail: 3, skip: 1 });
    expect(parsed.comments).toEqual(["# 1 passed, 3 failed, 1 unproven\n", "# Pi 1.6.0\n"]);
  });

  it("gives a play not ok its diagnostics as an object, with the quest's result as it was", () => {
    const [, wrongPass, , error] = parse(MIXED).asserts;
    expect(wrongPass?.diag).toEqual({
      quest: "first-file",
      play: "pass",
      expected: "complete",
      outcome: "not complete",
      reason: "first-file did not complete: says-hello failed",
      durationMs: 2051,
      containment: "pid-namespace",
      result: FIRST_FILE_FAILING,
    });
    expect(error?.diag).toEqual({
      quest: "first-commit",
      play: "fail-uncommitted",
      expected: "not complete",
      outcome: "error",
      reason: 'the play ran out of model replies at step 2 (prompt "commit it")',
      durationMs: 45000,
      containment: "pid-namespace",
    });
    expect(parse(MIXED).asserts[0]?.diag).toBeNull();
  });

  it("makes an unproven quest a failing point with --strict", () => {
    const parsed = parse({ ...MIXED, strict: true });
    const unproven = parsed.asserts[4];
    expect([unproven?.ok, unproven?.name, unproven?.skip]).toEqual([false, "first-skill/pass", false]);
    expect(unproven?.diag).toEqual({
      quest: "first-skill",
      play: "pass",
      reason: "unproven: no solutions/first-skill/pass.yaml",
    });
    expect(parsed.final).toMatchObject({ ok: false, fail: 4, skip: 0 });
  });

  it("passes as a whole when every play is ok and nothing is unproven", () => {
    const text = formatTapReport(ALL_OK);
    expect(text).toBe("TAP version 14\n1..1\nok 1 - first-prompt/pass\n# 1 passed, 0 failed\n");
    expect(parse(ALL_OK).final).toMatchObject({ ok: true, count: 1, pass: 1, fail: 0 });
  });

  it("escapes # and \\ in a description, so a parser reads the name back and no directive", () => {
    expect(tapDescription("a#b\\c\nd")).toBe("a\\#b\\\\c d");
    const odd = { ...PROMPT_PASS, quest: "q#1\\x", play: "fail-# SKIP me" };
    const [point] = parse({ ...ALL_OK, plays: [{ ...odd, ok: false, outcome: "error" }] }).asserts;
    expect([point?.ok, point?.name, point?.skip, point?.todo]).toEqual([
      false,
      "q#1\\x/fail-# SKIP me",
      false,
      false,
    ]);
  });

  it("says a shard's run in a comment after the counts", () => {
    expect(formatTapReport(SHARD_2_OF_3).split("\n").slice(-3)).toEqual([
      "# Pi 1.6.0",
      "# shard 2/3: 1 of the 3 plays",
      "",
    ]);
  });
});
