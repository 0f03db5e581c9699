import { describe, expect, it } from "vitest";
import type { EventLog } from "../../src/events/log-writer.ts";
import { QUEST_ACTIVATED_EVENT } from "../../src/events/names.ts";
import type { VerifierEvent } from "../../src/events/schema.ts";
import { createQuestSessionState } from "../../src/extension/quest-session-state.ts";
import { emptyProgress, type Progress, type ProgressStore } from "../../src/runtime/progress.ts";
import { type Quest, QuestFileSchema } from "../../src/verifier/quest.ts";

const NOW = new Date("2030-01-02T03:04:05.000Z");

function quest(id: string, fields: Record<string, unknown> = {}, sandboxDir?: string): Quest {
  const file = QuestFileSchema.parse({
    version: 1,
    id,
    title: id,
    goal: `Do ${id}.`,
    checks: [{ id: "done", type: "event", match: { event: "input" } }],
    ...fields,
  });
  const checks = file.checks.map((check) => ({ ...check, id: check.id ?? "done" }));
  return { ...file, checks, source: `/pack/${id}.yaml`, ...(sandboxDir ? { sandboxDir } : {}) };
}

const ALPHA = quest("alpha");
const BETA = quest("beta", { requires: ["alpha"] });
const SANDBOXED = quest("sandboxed", {}, "/pack/template");

/** An event log in memory: the state reads its events and its next seq, nothing else. */
function memoryLog(): EventLog {
  const kept: VerifierEvent[] = [];
  return {
    file: "/memory/events.jsonl",
    events: () => kept,
    nextSeq: () => kept.length,
    record(event, sessionId) {
      const recorded = {
        name: event.name,
        payload: event.payload,
        seq: kept.length,
        ...(sessionId ? { sessionId } : {}),
      };
      kept.push(recorded);
      return recorded;
    },
    flush: async () => {},
  };
}

function session(progress: Progress = emptyProgress(), pack: readonly Quest[] = [ALPHA, BETA]) {
  const saved: Progress[] = [];
  const store: ProgressStore = {
    file: "/memory/progress.json",
    load: async () => ({ kind: "loaded", progress }),
    save: async (written) => {
      saved.push(structuredClone(written));
    },
  };
  const events = memoryLog();
  const state = createQuestSessionState({ pack, progress, store, events, now: () => NOW });
  return { state, saved, events };
}

describe("quest session state", () => {
  it("a quest waits on its requirements; the next available is the first with none missing", () => {
    const { state } = session();
    expect(state.missingRequirements(BETA)).toEqual(["alpha"]);
    expect(state.nextAvailable()).toBe(ALPHA);
    state.makeActive({ quest: ALPHA, record: state.newActiveRecord(ALPHA, {}) });
    state.markCompleted(state.active ?? expect.unreachable());
    expect(state.isDone("alpha")).toBe(true);
    expect(state.progress.completed.alpha).toEqual({
      at: NOW.toISOString(),
      definitionHash: expect.any(String),
    });
    expect(state.active).toBeUndefined();
    expect(state.nextAvailable()).toBe(BETA);
  });

  it("a new active record starts at the next event, with only the pins it was given", () => {
    const { state, events } = session();
    events.record({ name: "input", payload: {} }, undefined);
    const record = state.newActiveRecord(ALPHA, { baseline: "b".repeat(40), oracleBaseline: undefined });
    expect(record).toMatchObject({ questId: "alpha", baseline: "b".repeat(40), fromSeq: 1, hintsShown: 0 });
    expect(record).not.toHaveProperty("oracleBaseline");
    expect(record).not.toHaveProperty("dependencies");
  });

  it("making a quest active clears the notice and the last result", () => {
    const { state } = session();
    state.waitWith('next: "alpha" needs an empty folder');
    expect(state.notice).toBe('next: "alpha" needs an empty folder');
    expect(state.progress.active).toBeUndefined();
    state.makeActive({ quest: ALPHA, record: state.newActiveRecord(ALPHA, {}) });
    expect(state.notice).toBeUndefined();
    expect(state.progress.active?.questId).toBe("alpha");
    expect(state.progress.lastResult).toBeUndefined();
  });

  it("a sandbox quest pinned without an oracle takes it from the sandbox record of its template", () => {
    const { state } = session(emptyProgress(), [SANDBOXED]);
    state.recordSandbox("/pack/template", "a".repeat(40));
    const record = state.newActiveRecord(SANDBOXED, { baseline: "b".repeat(40) });
    expect(state.pinsOf({ quest: SANDBOXED, record })).toEqual({
      baseline: "b".repeat(40),
      oracleBaseline: "a".repeat(40),
    });
    expect(state.pinsOf({ quest: ALPHA, record: state.newActiveRecord(ALPHA, {}) })).toEqual({});
  });

  it("a quest sees its own events, and lifecycle events since the last reset", () => {
    const { state, events } = session();
    events.record({ name: "input", payload: {} });
    events.record({ name: QUEST_ACTIVATED_EVENT, payload: { quest: "alpha", baseline: null } });
    events.record({ name: "input", payload: {} });
    const record = { ...state.newActiveRecord(ALPHA, {}), fromSeq: 2 };
    expect(state.visibleEvents(record).map((event) => event.seq)).toEqual([1, 2]);
    events.record({ name: "input", payload: {} });
    state.startOver();
    expect(state.visibleEvents({ ...record, fromSeq: 4 }).map((event) => event.seq)).toEqual([]);
  });

  it("hints shown are counted up to the number of hints", () => {
    const { state } = session();
    const record = state.newActiveRecord(ALPHA, {});
    for (let shown = 0; shown < 4; shown++) state.recordHintShown(record, 2);
    expect(record.hintsShown).toBe(2);
  });

  it("a confirmation is kept per quest and check", () => {
    const { state } = session();
    state.recordConfirmation("alpha", "done", false);
    expect(state.confirmedFor("alpha")("done")).toBe(false);
    expect(state.confirmedFor("beta")("done")).toBeUndefined();
  });

  it("a pinned definition that no longer matches its hash is not restored, and progress forgets it", () => {
    const { state: first } = session();
    const record = { ...first.newActiveRecord(ALPHA, {}), definitionHash: "0".repeat(64) };
    const { state } = session({ ...emptyProgress(), active: record });
    expect(state.restorePinned()).toEqual({ kind: "unusable", problem: expect.any(String) });
    expect(state.progress.active).toBeUndefined();
    expect(state.active).toBeUndefined();
  });

  it("starting over keeps the sandbox record and hides earlier events", () => {
    const { state, events } = session();
    state.recordSandbox("/pack/template", "a".repeat(40));
    state.makeActive({ quest: ALPHA, record: state.newActiveRecord(ALPHA, {}) });
    events.record({ name: "input", payload: {} }, undefined);
    state.startOver();
    expect(state.active).toBeUndefined();
    expect(state.progress).toEqual({
      ...emptyProgress(),
      epochSeq: 1,
      sandbox: { template: "/pack/template", baseline: "a".repeat(40), at: NOW.toISOString() },
    });
  });
});

describe("skipped quests", () => {
  const GAMMA = quest("gamma");
  const done = { at: "2030-01-01T00:00:00.000Z", definitionHash: "d".repeat(64) };

  it("a skipped quest is not done, but counts as done for requires: what needs it opens, naming it as skipped", () => {
    const { state } = session(emptyProgress(), [ALPHA, BETA, GAMMA]);
    expect(state.missingRequirements(BETA)).toEqual(["alpha"]);
    state.markSkipped(ALPHA);
    expect(state.isSkipped("alpha")).toBe(true);
    expect(state.isDone("alpha")).toBe(false);
    expect(state.progress.skipped).toEqual({ alpha: { at: NOW.toISOString() } });
    expect(state.missingRequirements(BETA)).toEqual([]);
    expect(state.skippedRequirements(BETA)).toEqual(["alpha"]);
    expect(state.standingOf(BETA)).toBe("available");
    expect(state.nextAvailable()).toBe(BETA);
  });

  it("each quest has one standing: done, active, skipped, locked or available", () => {
    const { state } = session({ ...emptyProgress(), completed: { gamma: done } }, [ALPHA, BETA, GAMMA]);
    expect([ALPHA, BETA, GAMMA].map((each) => state.standingOf(each))).toEqual([
      "available",
      "locked",
      "done",
    ]);
    state.makeActive({ quest: ALPHA, record: state.newActiveRecord(ALPHA, {}) });
    expect(state.standingOf(ALPHA)).toBe("active");
    state.markSkipped(BETA);
    expect(state.standingOf(BETA)).toBe("skipped");
  });

  it("skipping the active quest drops it and its last result; skipping another leaves the active one", () => {
    const { state } = session(emptyProgress(), [ALPHA, BETA, GAMMA]);
    state.makeActive({ quest: ALPHA, record: state.newActiveRecord(ALPHA, {}) });
    state.publish({
      quest: "alpha",
      status: "fail",
      counts: { passed: 0, failed: 1, pending: 0 },
      checks: [],
    });
    state.markSkipped(GAMMA);
    expect(state.active?.quest).toBe(ALPHA);
    state.markSkipped(ALPHA);
    expect(state.active).toBeUndefined();
    expect(state.progress.active).toBeUndefined();
    expect(state.progress.lastResult).toBeUndefined();
    expect(Object.keys(state.progress.skipped ?? {})).toEqual(["gamma", "alpha"]);
  });

  it("starting a skipped quest again, or completing it, clears the mark; starting over forgets every mark", () => {
    const { state } = session(emptyProgress(), [ALPHA, BETA, GAMMA]);
    state.markSkipped(ALPHA);
    state.markSkipped(GAMMA);
    const active = { quest: ALPHA, record: state.newActiveRecord(ALPHA, {}) };
    state.makeActive(active);
    expect(state.isSkipped("alpha")).toBe(false);
    state.markCompleted(active);
    expect(state.progress.skipped).toEqual({ gamma: { at: NOW.toISOString() } });
    state.startOver();
    expect(state.isSkipped("gamma")).toBe(false);
  });
});

describe("whether the learner has acted in the active quest", () => {
  it("not until a turn or a `!` command after its activation; an act in an earlier quest does not count", () => {
    const { state, events } = session();
    events.record({ name: "turn_end", payload: {} });
    const record = state.newActiveRecord(ALPHA, {});
    state.makeActive({ record, quest: ALPHA });
    events.record({ name: QUEST_ACTIVATED_EVENT, payload: { quest: "alpha", baseline: null } });
    events.record({ name: "session_start", payload: { sessionId: "s", cwd: "/w" } });
    // The end of the run that completed the quest before is no act in this one.
    events.record({ name: "agent_end", payload: {} });
    expect(state.learnerActed(record)).toBe(false);
    events.record({ name: "user_bash", payload: { command: "ls" } });
    expect(state.learnerActed(record)).toBe(true);

    const next = state.newActiveRecord(BETA, {});
    expect(state.learnerActed(next)).toBe(false);
    events.record({ name: "input", payload: { text: "hello" } });
    expect(state.learnerActed(next)).toBe(true);
  });
});
