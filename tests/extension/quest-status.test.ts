/**
 * What the learner reads about the active quest's checks: `/quest status` (each check, its mark
 * and reason in the learner's words) and the line `/quest check` says after checking. Before
 * the learner acts in the quest, an unmet check is "not yet", never "failed".
 */
import { describe, expect, it } from "vitest";
import { checkSummaryText, learnerStatusText } from "../../src/extension/quest-status.ts";
import { type Quest, QuestFileSchema } from "../../src/verifier/quest.ts";
import type { QuestResult } from "../../src/verifier/results.ts";

const file = QuestFileSchema.parse({
  version: 1,
  id: "hello",
  title: "Say hello",
  goal: "Say hello to Pi.",
  checks: [
    { id: "asked", describe: "You asked", type: "event", match: { event: "input" } },
    { id: "answered", describe: "Pi answered", type: "event", match: { event: "agent_end" } },
  ],
});
const QUEST: Quest = {
  ...file,
  checks: file.checks.map((check) => ({ ...check, id: check.id ?? "?" })),
  source: "/pack/hello.yaml",
};

/** A result where each check has the status given, in the quest's order. */
function result(...statuses: ("pass" | "fail" | "pending")[]): QuestResult {
  const checks = QUEST.checks.map((check, index) => ({
    id: check.id,
    type: check.type,
    status: statuses[index] ?? "fail",
    evidence: {
      kind: "event" as const,
      summary: "no matching input event (5 events recorded)",
      matched: 0,
      scanned: 5,
    },
  }));
  const count = (status: string) => checks.filter((check) => check.status === status).length;
  return {
    quest: QUEST.id,
    status: count("pass") === checks.length ? "pass" : "fail",
    counts: { passed: count("pass"), failed: count("fail"), pending: count("pending") },
    checks,
  } as QuestResult;
}

describe("/quest check's summary", () => {
  it("before the learner acts: how many pass, the rest 'not yet', never 'failed'", () => {
    const text = checkSummaryText(QUEST, result("fail", "fail"), false);
    expect(text).toBe("Say hello: 0 of 2 checks pass, 2 not yet.");
  });

  it("after the learner acted: how many pass, and where to read why the others do not", () => {
    expect(checkSummaryText(QUEST, result("pass", "fail"), true)).toBe(
      "Say hello: 1 of 2 checks pass; /quest status says what is missing.",
    );
    expect(checkSummaryText(QUEST, result("fail", "pending"), true)).toBe(
      "Say hello: 0 of 2 checks pass; /quest status says what is missing.",
    );
  });

  it("never an author's count or evidence", () => {
    for (const acted of [false, true]) {
      const text = checkSummaryText(QUEST, result("pass", "fail"), acted);
      expect(text).not.toMatch(/failed|pending|events recorded|no matching/);
    }
  });
});

describe("/quest status", () => {
  it("each check in the learner's words; 'not yet' before the learner acts", () => {
    expect(learnerStatusText(QUEST, result("pass", "fail"), false)).toBe(
      [
        "Say hello",
        "  ✓ You asked",
        "  ○ Pi answered: not yet",
        "1 of 2 checks pass. The checker's own detail: /quest status --details",
      ].join("\n"),
    );
  });

  it("before any check ran, says so", () => {
    expect(learnerStatusText(QUEST, undefined, false)).toMatch(/Not checked yet\./);
  });
});
