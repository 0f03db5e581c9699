import { describe, expect, it } from "vitest";
import type { CheckOfType } from "../../../src/verifier/checks/registry.ts";
import type { EvaluationContext } from "../../../src/verifier/context.ts";
import { evaluateCheck } from "../../../src/verifier/evaluate.ts";
import type { ReviewOutcome, ReviewRequest } from "../../../src/verifier/probes.ts";
import { QuestFileSchema } from "../../../src/verifier/quest.ts";
import type { ReceiptPort } from "../../../src/verifier/receipts-port.ts";
import { check } from "../../support/checks.ts";
import { context, fakeProbes } from "../../support/fake-probes.ts";

const review = check({
  type: "review",
  criterion: "NOTES.md explains the bug",
  files: ["NOTES.md"],
}) as CheckOfType<"review">;
const FINGERPRINT = {
  ok: true as const,
  algorithm: "git-blob-sha1+sha256" as const,
  value: "a".repeat(64),
  entries: 1,
  bytes: 10,
};
const read = { path: "NOTES.md", firstLine: 1, text: "add() subtracts b\n" };

function reviewer(outcome: ReviewOutcome, requests: ReviewRequest[] = []) {
  return async (request: ReviewRequest) => {
    requests.push(request);
    return outcome;
  };
}

const judged = (verdict: string, evidence: unknown[], reads = [read]): ReviewOutcome => ({
  ok: true,
  model: "p/m",
  reads,
  submissions: [{ verdict, evidence }],
  fingerprint: FINGERPRINT,
});

const withReviewer = (
  outcome: ReviewOutcome,
  extra: Partial<EvaluationContext> = {},
  requests: ReviewRequest[] = [],
) => context({ probes: fakeProbes({}, { review: reviewer(outcome, requests) }), ...extra });

describe("review", () => {
  it("passes on a valid pass, fails on a valid fail, with the citations' lines", async () => {
    const passed = await evaluateCheck(
      review,
      withReviewer(judged("pass", [{ path: "NOTES.md", quote: "subtracts b" }])),
    );
    expect(passed).toMatchObject({
      status: "pass",
      evidence: {
        kind: "review",
        model: "p/m",
        citations: [{ path: "NOTES.md", lines: [1, 1] }],
        fingerprint: "a".repeat(64),
      },
    });
    const failed = await evaluateCheck(
      review,
      withReviewer(judged("fail", [{ path: "NOTES.md", quote: "add()" }])),
    );
    expect(failed.status).toBe("fail");
  });

  it("is pending with the reason for a judgment the rules refuse", async () => {
    const result = await evaluateCheck(
      review,
      withReviewer(judged("pass", [{ path: "NOTES.md", quote: "multiplies" }])),
    );
    expect(result).toMatchObject({ status: "pending", evidence: { pending: "needs_review" } });
    expect(result.evidence.summary).toContain("not in what the reviewer read");
  });

  it("is pending for no model, a timeout, a provider error, no reviewer, and a pass without fingerprint", async () => {
    const cases: [ReviewOutcome, string][] = [
      [
        { ok: false, kind: "no_model", message: "no model to review with: choose a model with /model" },
        "no_model",
      ],
      [{ ok: false, kind: "timeout", message: "timed out" }, "timeout"],
      [{ ok: false, kind: "error", message: "the provider answered: rate limited" }, "error"],
      [
        {
          ...judged("pass", [{ path: "NOTES.md", quote: "add()" }]),
          fingerprint: { ok: false, reason: "too big" },
        } as ReviewOutcome,
        "no_fingerprint",
      ],
    ];
    for (const [outcome, kind] of cases) {
      const result = await evaluateCheck(review, withReviewer(outcome));
      expect(result).toMatchObject({ status: "pending", evidence: { pending: kind } });
    }
    const none = await evaluateCheck(review, context());
    expect(none).toMatchObject({ status: "pending", evidence: { pending: "unavailable" } });
  });

  it("reviews only when asked, or at a turn end when on_turn_end says so", async () => {
    const requests: ReviewRequest[] = [];
    const outcome = judged("pass", [{ path: "NOTES.md", quote: "add()" }]);
    for (const trigger of ["turn_end", "activation"] as const) {
      const result = await evaluateCheck(review, withReviewer(outcome, { trigger }, requests));
      expect(result).toMatchObject({ status: "pending", evidence: { pending: "awaiting_review" } });
    }
    expect(requests).toEqual([]);
    const eager = check({ ...review, id: undefined, on_turn_end: true }) as CheckOfType<"review">;
    expect(
      (await evaluateCheck(eager, withReviewer(outcome, { trigger: "turn_end" }, requests))).status,
    ).toBe("pass");
    expect((await evaluateCheck(review, withReviewer(outcome, { trigger: "manual" }, requests))).status).toBe(
      "pass",
    );
    expect(requests).toHaveLength(2);
  });

  it("is answered by a fresh receipt without a review, even at a turn end", async () => {
    const requests: ReviewRequest[] = [];
    const answered = {
      id: review.id,
      type: "review" as const,
      status: "pass" as const,
      evidence: { kind: "review" as const, summary: "from the receipt", criterion: review.criterion },
    };
    const receipts = { reuseReview: async () => answered } as unknown as ReceiptPort;
    const result = await evaluateCheck(
      review,
      withReviewer(judged("fail", []), { receipts, trigger: "turn_end" }, requests),
    );
    expect(result).toBe(answered);
    expect(requests).toEqual([]);
  });

  it("is a version 2 check type", () => {
    const quest = {
      version: 1,
      id: "q",
      title: "T",
      goal: "g",
      checks: [{ type: "review", criterion: "c" }],
    };
    const parsed = QuestFileSchema.safeParse(quest);
    expect(parsed.success).toBe(false);
    expect(parsed.error?.issues[0]?.message).toBe(
      "type: review is a version 2 check type; say version: 2 to use it",
    );
    expect(QuestFileSchema.safeParse({ ...quest, version: 2 }).success).toBe(true);
  });
});
