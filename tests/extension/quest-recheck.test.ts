import { describe, expect, it } from "vitest";
import { QUEST_ACTIVATED_EVENT, QUEST_COMPLETED_EVENT } from "../../src/events/names.ts";
import type { VerifierEvent } from "../../src/events/schema.ts";
import { playRecordOf, recheckCompleted } from "../../src/extension/quest-recheck.ts";
import { createQuestSessionState } from "../../src/extension/quest-session-state.ts";
import { emptyProgress, type Progress } from "../../src/runtime/progress.ts";
import type { QuestEvaluator } from "../../src/runtime/quest-evaluator.ts";
import { type Quest, QuestFileSchema } from "../../src/verifier/quest.ts";
import type { QuestResult } from "../../src/verifier/results.ts";

function quest(id: string, describe: string): Quest {
  const file = QuestFileSchema.parse({
    version: 2,
    id,
    title: `Quest ${id}`,
    goal: `Do ${id}.`,
    checks: [{ id: "made", describe, type: "file_exists", path: `${id}.txt` }],
  });
  return {
    ...file,
    checks: file.checks.map((check) => ({ ...check, id: "made" })),
    source: `/pack/${id}.yaml`,
  };
}
const ALPHA = quest("alpha", "alpha.txt exists");
const BETA = quest("beta", "beta.txt exists");
const OPEN = quest("open", "open.txt exists");

const event = (seq: number, name: string, payload: Record<string, unknown> = {}): VerifierEvent =>
  ({ seq, name, payload, ts: "2030-01-01T00:00:00.000Z" }) as unknown as VerifierEvent;

/** alpha played from 0 to 2, beta from 3 to 5, open active from 6. */
const LOG: VerifierEvent[] = [
  event(0, QUEST_ACTIVATED_EVENT, { quest: "alpha", baseline: "a".repeat(40) }),
  event(1, "input", { text: "make alpha" }),
  event(2, QUEST_COMPLETED_EVENT, { quest: "alpha" }),
  event(3, QUEST_ACTIVATED_EVENT, {
    quest: "beta",
    baseline: "b".repeat(40),
    oracleBaseline: "c".repeat(40),
  }),
  event(4, "input", { text: "make beta" }),
  event(5, QUEST_COMPLETED_EVENT, { quest: "beta" }),
  event(6, QUEST_ACTIVATED_EVENT, { quest: "open", baseline: null }),
  event(7, "input", { text: "later" }),
];

const done = { at: "2030-01-01T00:00:00.000Z", definitionHash: "d".repeat(64) };

function failing(of: Quest, summary: string): QuestResult {
  return {
    quest: of.id,
    status: "fail",
    counts: { passed: 0, failed: 1, pending: 0 },
    checks: [
      {
        id: "made",
        type: "file_exists",
        status: "fail",
        describe: of.checks[0]?.describe ?? "",
        evidence: { kind: "file_exists", summary, exists: false, path: `${of.id}.txt` } as never,
      },
    ],
  };
}

function setUp(verdicts: Record<string, QuestResult | "pass">) {
  const progress: Progress = { ...emptyProgress(), completed: { alpha: done, beta: done } };
  const saved: Progress[] = [];
  const session = createQuestSessionState({
    pack: [ALPHA, BETA, OPEN],
    progress,
    store: {
      file: "",
      load: async () => ({ kind: "loaded", progress }),
      save: async (p) => void saved.push(p),
    },
    events: {
      file: "",
      events: () => LOG,
      nextSeq: () => LOG.length,
      record: () => undefined,
      flush: async () => {},
    } as never,
    now: () => new Date(0),
  });
  const asked: Array<{ quest: string; baseline?: string; events: number[] }> = [];
  const deps = {
    session,
    events: () => LOG,
    sessionId: () => "s1",
    async createEvaluator(of: Quest, pins: { baseline?: string }): Promise<QuestEvaluator> {
      return async (input) => {
        asked.push({
          quest: of.id,
          ...(pins.baseline ? { baseline: pins.baseline } : {}),
          events: input.events.map((each) => each.seq),
        });
        const verdict = verdicts[of.id] ?? "pass";
        return verdict === "pass"
          ? { quest: of.id, status: "pass", counts: { passed: 1, failed: 0, pending: 0 }, checks: [] }
          : verdict;
      };
    },
  };
  return { deps, asked, saved, progress };
}

describe("/quest check all", () => {
  it("finds a completed quest's play: its activation's baselines, its own events and the lifecycle before it", () => {
    expect(playRecordOf(LOG, "beta", 0)).toEqual({
      events: [LOG[0], LOG[2], LOG[3], LOG[4], LOG[5]],
      pins: { baseline: "b".repeat(40), oracleBaseline: "c".repeat(40) },
    });
    expect(playRecordOf(LOG, "open", 0)).toBeUndefined();
    // Before a reset (epochSeq past it), the play is not this progress's.
    expect(playRecordOf(LOG, "alpha", 3)).toBeUndefined();
  });

  it("re-checks every completed quest with its own play, and says which still pass and which regressed; progress unchanged", async () => {
    const { deps, asked, saved, progress } = setUp({ beta: failing(BETA, "beta.txt does not exist") });
    const before = structuredClone(progress);
    const text = await recheckCompleted(deps);
    expect(text.split("\n")).toEqual([
      "Re-checked the 2 completed quests: 1 of 2 still pass; 1 regressed.",
      "  ✓ alpha: Quest alpha: still passes",
      "  ✗ beta: Quest beta: regressed",
      "      ✗ beta.txt exists: beta.txt does not exist",
      "A regressed quest stays done (progress is unchanged): fix its work, or do it again with /quest start ID.",
    ]);
    expect(asked).toEqual([
      { quest: "alpha", baseline: "a".repeat(40), events: [0, 1, 2] },
      { quest: "beta", baseline: "b".repeat(40), events: [0, 2, 3, 4, 5] },
    ]);
    expect(progress).toEqual(before);
    expect(saved).toEqual([]);
  });

  it("says when nothing is done yet, and when a quest's record is gone", async () => {
    const { deps, progress } = setUp({});
    progress.completed = {};
    expect(await recheckCompleted(deps)).toBe(
      "No quest is done yet: /quest check all re-checks the quests you completed.",
    );
    progress.completed = { open: done };
    expect(await recheckCompleted(deps)).toBe(
      "Re-checked the 1 completed quest: 0 of 1 still pass.\n  … open: Quest open: not re-checked (the record of how it was done is gone)",
    );
  });

  it("a quest carried from another folder is re-checked there, and says so", async () => {
    const { deps, progress } = setUp({});
    progress.completed = { open: { ...done, from: "/home/ada/project" } };
    expect(await recheckCompleted(deps)).toBe(
      "Re-checked the 1 completed quest: 0 of 1 still pass.\n  … open: Quest open: not re-checked (done in /home/ada/project: /quest check all there re-checks it)",
    );
  });
});
