import { describe, expect, it } from "vitest";
import { createQuestSessionState } from "../../src/extension/quest-session-state.ts";
import { chapterCompleteNote, skippedWorkNote } from "../../src/extension/quest-way-forward.ts";
import { emptyProgress, type Progress } from "../../src/runtime/progress.ts";
import { type Quest, QuestFileSchema } from "../../src/verifier/quest.ts";

function quest(id: string, fields: Record<string, unknown> = {}): Quest {
  const file = QuestFileSchema.parse({
    version: 2,
    id,
    title: `Quest ${id}`,
    goal: `Do ${id}.`,
    checks: [{ id: "done", type: "event", match: { event: "input" } }],
    ...fields,
  });
  return {
    ...file,
    checks: file.checks.map((check) => ({ ...check, id: "done" })),
    source: `/pack/${id}.yaml`,
  };
}

const A1 = quest("a1", { chapter: "Talk" });
const A2 = quest("a2", { chapter: "Talk", requires: ["a1"] });
const B1 = quest("b1", { chapter: "Build", requires: ["a2"] });
const LOOSE = quest("loose");
const PACK = [A1, A2, B1, LOOSE];

function session(progress: Progress) {
  const events = {
    file: "",
    events: () => [],
    nextSeq: () => 0,
    record: () => undefined,
    flush: async () => {},
  };
  return createQuestSessionState({
    pack: PACK,
    progress,
    store: { file: "", load: async () => ({ kind: "loaded", progress }), save: async () => {} },
    events: events as never,
    now: () => new Date(0),
  });
}
const done = { at: "2030-01-01T00:00:00.000Z", definitionHash: "d".repeat(64) };
const skipped = { at: "2030-01-01T00:00:00.000Z" };

describe("a quest that builds on a skipped one", () => {
  it("names it and says what to do first; nothing when its requirements are done", () => {
    const state = session({ ...emptyProgress(), skipped: { a1: skipped } });
    expect(skippedWorkNote(state, A2)).toEqual([
      'This quest builds on "Quest a1", which you skipped: what it left behind may be missing here. If you get stuck, do it first (/quest start a1), then /quest start a2 again.',
    ]);
    expect(state.standingOf(A2)).toBe("available");
    expect(skippedWorkNote(session({ ...emptyProgress(), completed: { a1: done } }), A2)).toEqual([]);
    expect(skippedWorkNote(state, LOOSE)).toEqual([]);
  });
});

describe("a chapter completed", () => {
  it("is announced with the chapter that comes next once its last open quest is done", () => {
    const state = session({ ...emptyProgress(), completed: { a1: done, a2: done } });
    expect(chapterCompleteNote(state, A2, B1)).toEqual([
      "Chapter 1 complete: Talk ✓ (2 of 2 quests done).",
      "Next: chapter 2, Build.",
    ]);
  });

  it("counts a skipped quest and says how to take it up; with nothing next, only the chapter", () => {
    const state = session({ ...emptyProgress(), completed: { a2: done }, skipped: { a1: skipped } });
    expect(chapterCompleteNote(state, A2, undefined)).toEqual([
      "Chapter 1 complete: Talk ✓ (1 of 2 quests done, 1 skipped (/quest start a1 takes it up again)).",
    ]);
  });

  it("says nothing while the chapter has an open quest, or for a quest without a chapter", () => {
    const state = session({ ...emptyProgress(), completed: { a1: done, loose: done } });
    expect(chapterCompleteNote(state, A1, A2)).toEqual([]);
    expect(chapterCompleteNote(state, LOOSE, A2)).toEqual([]);
  });
});
