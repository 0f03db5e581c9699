import { describe, expect, it } from "vitest";
import { questHudState } from "../../src/extension/quest-hud-state.ts";
import { createQuestSessionState } from "../../src/extension/quest-session-state.ts";
import { emptyProgress, type Progress } from "../../src/runtime/progress.ts";
import { type Quest, QuestFileSchema } from "../../src/verifier/quest.ts";

function quest(id: string): Quest {
  const file = QuestFileSchema.parse({
    version: 1,
    id,
    title: `Quest ${id}`,
    goal: "g",
    checks: [{ id: "done", describe: "It is done", type: "event", match: { event: "input" } }],
  });
  const checks = file.checks.map((check) => ({ ...check, id: check.id ?? "done" }));
  return { ...file, checks, source: `/pack/${id}.yaml` };
}

const A = quest("a");
const B = quest("b");

function stateOf(pack: readonly Quest[], progress: Progress = emptyProgress()) {
  return createQuestSessionState({
    pack,
    progress,
    store: {
      file: "/memory/progress.json",
      load: async () => ({ kind: "fresh", progress }),
      save: async () => {},
    },
    events: {
      file: "/memory/events.jsonl",
      events: () => [],
      nextSeq: () => 0,
      record: (event) => ({ ...event, seq: 0 }),
      flush: async () => {},
    },
    now: () => new Date(0),
  });
}

describe("the HUD state", () => {
  it("with no quest active: how many are done, why none is active, and the integrity warning", () => {
    const state = stateOf([A, B], { ...emptyProgress(), completed: { a: { at: "t", definitionHash: "h" } } });
    state.waitWith('next: "b" needs an empty folder');
    expect(questHudState(state, { evaluating: false, integrity: "⚠ 1 altered record ignored" })).toEqual({
      kind: "idle",
      done: 1,
      total: 2,
      notice: 'next: "b" needs an empty folder',
      integrity: "⚠ 1 altered record ignored",
    });
    expect(questHudState(stateOf([A]), { evaluating: false, integrity: undefined })).toEqual({
      kind: "idle",
      done: 0,
      total: 1,
    });
  });

  it("with no quest active: how many are skipped, when some are", () => {
    const state = stateOf([A, B], { ...emptyProgress(), completed: { a: { at: "t", definitionHash: "h" } } });
    state.markSkipped(B);
    expect(questHudState(state, { evaluating: false, integrity: undefined })).toEqual({
      kind: "idle",
      done: 1,
      total: 2,
      skipped: 1,
    });
  });

  it("the active quest: its position, its checks unchecked before a result, and whether it is being checked", () => {
    const state = stateOf([A, B]);
    state.makeActive({ quest: B, record: state.newActiveRecord(B, {}) });
    expect(questHudState(state, { evaluating: true, integrity: undefined })).toEqual({
      kind: "active",
      title: "Quest b",
      position: 2,
      total: 2,
      checks: [{ describe: "It is done", status: "unchecked" }],
      evaluating: true,
    });
  });

  it("a pinned quest the pack no longer has is counted last", () => {
    const state = stateOf([A, B]);
    const gone = quest("gone");
    state.makeActive({ quest: gone, record: state.newActiveRecord(gone, {}) });
    expect(questHudState(state, { evaluating: false, integrity: undefined })).toMatchObject({ position: 2 });
  });
});
