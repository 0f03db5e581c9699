import { readdirSync, readFileSync, statSync } from "node:fs";
import { mkdir, readFile, writeFile } from "node:fs/promises";
import { join, relative } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { readEventLog } from "../../src/events/log-reader.ts";
import { createEventLog, type EventLog } from "../../src/events/log-writer.ts";
import {
  agentEndEvent,
  inputEvent,
  QUEST_ACTIVATED_EVENT,
  QUEST_COMPLETED_EVENT,
  toolResultEvent,
  turnEndEvent,
} from "../../src/events/names.ts";
import type { VerifierEvent } from "../../src/events/schema.ts";
import {
  type QuestController,
  type QuestControllerDeps,
  startQuestController,
} from "../../src/extension/controller.ts";
import { hudLines } from "../../src/extension/hud.ts";
import { pinQuest } from "../../src/extension/pinned-quest.ts";
import { questStartOf } from "../../src/extension/quest-activation.ts";
import { questHelp } from "../../src/extension/quest-command.ts";
import type { QuestPins } from "../../src/extension/quest-session-state.ts";
import { QUEST_SUBCOMMANDS } from "../../src/extension/quest-subcommands.ts";
import { openCarryOverStore } from "../../src/runtime/carry-over.ts";
import { openProgressStore, type Progress } from "../../src/runtime/progress.ts";
import {
  createQuestEvaluator,
  type EvaluationInput,
  type QuestEvaluator,
} from "../../src/runtime/quest-evaluator.ts";
import { prepareSandbox, type SandboxOutcome } from "../../src/runtime/sandbox.ts";
import { type Quest, QuestFileSchema } from "../../src/verifier/quest.ts";
import { formatQuestResult } from "../../src/verifier/report.ts";
import type { QuestResult } from "../../src/verifier/results.ts";
import { type FakeQuestUi, fakeQuestUi } from "../support/fake-quest-ui.ts";
import { sealedJson, testSealer } from "../support/seal.ts";
import { git, makeWorkspace, removeWorkspaces } from "../support/workspace.ts";

const NOW = new Date("2030-01-02T03:04:05.000Z");
const BASELINE = "c".repeat(40);
const SESSION = "session-1";

// ---------------------------------------------------------------------------------------------
// Quests, results and fake ports
// ---------------------------------------------------------------------------------------------

type QuestInput = Record<string, unknown> & { id: string; sandboxDir?: string };

/** A quest as the loader makes it: the file parsed (defaults applied), check ids, a source. */
function quest({ sandboxDir, ...fields }: QuestInput): Quest {
  const file = QuestFileSchema.parse({
    version: 1,
    title: fields.id,
    goal: `Do ${fields.id}.`,
    checks: [{ id: "done", describe: `${fields.id} done`, type: "event", match: { event: "input" } }],
    ...fields,
  });
  const checks = file.checks.map((check, index) => ({ ...check, id: check.id ?? `check-${index + 1}` }));
  return { ...file, checks, source: `/pack/${fields.id}.yaml`, ...(sandboxDir ? { sandboxDir } : {}) };
}

const ALPHA = quest({
  id: "alpha",
  title: "Alpha",
  goal: "Say hello to Pi.\n",
  hints: ["Type a message.", "Press Enter."],
  checks: [
    { id: "asked", describe: "You asked", type: "event", match: { event: "input" } },
    { id: "answered", describe: "Pi answered", type: "event", match: { event: "agent_end" } },
  ],
});
const BETA = quest({
  id: "beta",
  title: "Beta",
  goal: "Write a file.",
  requires: ["alpha"],
  checks: [{ id: "wrote", describe: "Pi wrote it", type: "event", match: { event: "tool_result" } }],
});
const SOLO = quest({ id: "solo", title: "Solo", goal: "Anything." });
const PACK = [ALPHA, BETA, SOLO];

/** The same quest id as ALPHA, edited after it was activated: a different title, goal, hints and check. */
const ALPHA_EDITED = quest({
  id: "alpha",
  title: "Alpha, edited",
  goal: "Something else.",
  hints: ["A new hint."],
  checks: [{ id: "never", describe: "Never happens", type: "event", match: { event: "never_happens" } }],
});

/** The notifications besides a quest's announcement of its goal when it starts by itself. */
const otherNotes = (ui: FakeQuestUi) => ui.notes().filter((note) => !/^Quest \d+\/\d+: /.test(note.message));

/** A result in which every check of `of` has `status`. */
function result(of: Quest, status: "pass" | "fail", summary?: string): QuestResult {
  const checks = of.checks.map((check) => ({
    id: check.id,
    type: check.type,
    status,
    ...(check.describe ? { describe: check.describe } : {}),
    evidence: {
      kind: "event" as const,
      summary: summary ?? (status === "pass" ? "matching event at seq 1" : "no matching event"),
      matched: status === "pass" ? 1 : 0,
      scanned: 1,
    },
  }));
  const count = (wanted: string) => checks.filter((check) => check.status === wanted).length;
  return {
    quest: of.id,
    status,
    counts: { passed: count("pass"), failed: count("fail"), pending: 0 },
    checks,
  };
}

type Run = { quest: string; events: VerifierEvent[]; sessionId?: string; signal?: AbortSignal };
type Created = {
  quest: Quest;
  baseline: string | undefined;
  confirmed: (checkId: string) => boolean | undefined;
};

function deferred<T>() {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((done) => {
    resolve = done;
  });
  return { promise, resolve };
}

/**
 * Evaluators that answer from a script: a quest's verdict (fail unless set), or a whole result;
 * `hold` keeps the next evaluation of a quest open until the test finishes it.
 */
function scriptedEvaluators() {
  const verdicts = new Map<string, "pass" | "fail">();
  const results = new Map<string, QuestResult>();
  const held = new Map<string, { started: (input: EvaluationInput) => void; finish: Promise<QuestResult> }>();
  const created: Created[] = [];
  const runs: Run[] = [];
  const createEvaluator: QuestControllerDeps["createEvaluator"] = async (of, { baseline }, confirmed) => {
    created.push({ quest: of, baseline, confirmed });
    const evaluator: QuestEvaluator = async (input) => {
      runs.push({
        quest: of.id,
        events: [...input.events],
        ...(input.sessionId ? { sessionId: input.sessionId } : {}),
        ...(input.signal ? { signal: input.signal } : {}),
      });
      const hold = held.get(of.id);
      if (hold) {
        held.delete(of.id);
        hold.started(input);
        return hold.finish;
      }
      return results.get(of.id) ?? result(of, verdicts.get(of.id) ?? "fail");
    };
    return evaluator;
  };
  return {
    created,
    runs,
    createEvaluator,
    verdict: (questId: string, status: "pass" | "fail") => verdicts.set(questId, status),
    respond: (questId: string, answer: QuestResult) => results.set(questId, answer),
    /** The next evaluation of `questId` waits: `started` resolves with its input, `finish` ends it. */
    hold(questId: string) {
      const started = deferred<EvaluationInput>();
      const finish = deferred<QuestResult>();
      held.set(questId, { started: started.resolve, finish: finish.promise });
      return { started: started.promise, finish: finish.resolve };
    },
  };
}
type Evaluators = ReturnType<typeof scriptedEvaluators>;

/** The real engine (src/runtime/quest-evaluator.ts) over a temp workspace, recording `confirmed`. */
function realEvaluators(workspace: string) {
  const created: Created[] = [];
  const createEvaluator: QuestControllerDeps["createEvaluator"] = (of, { baseline }, confirmed) => {
    created.push({ quest: of, baseline, confirmed });
    return createQuestEvaluator({
      quest: of,
      workspace,
      ...(baseline ? { baseline } : {}),
      dataDir: join(workspace, ".data"),
      writer: "pi",
      agentDir: join(workspace, ".agent"),
      home: workspace,
      env: {},
      confirmed,
    });
  };
  return { created, createEvaluator };
}

// ---------------------------------------------------------------------------------------------
// Starting a controller over real progress and event files in a temp folder
// ---------------------------------------------------------------------------------------------

const opened: QuestController[] = [];
afterEach(async () => {
  for (const controller of opened.splice(0)) await controller.dispose();
  removeWorkspaces();
});

/** The event log as the extension opens it: what the file holds, numbered on from its last seq. */
async function openEvents(file: string, maxEvents?: number): Promise<EventLog> {
  const { events } = await readEventLog(file, EVENTS_SEALER, "lenient");
  const firstSeq = events.reduce((next, event) => Math.max(next, event.seq + 1), 0);
  return createEventLog(file, events, firstSeq, {
    sealer: EVENTS_SEALER,
    ...(maxEvents ? { maxEvents } : {}),
  });
}

/** The keys of this file's records, as one data dir's would be. */
const EVENTS_SEALER = testSealer();
const PROGRESS_SEALER = testSealer();

type StartOptions = {
  dir?: string;
  pack?: Quest[];
  ui?: FakeQuestUi;
  evaluators?: Evaluators;
  createEvaluator?: QuestControllerDeps["createEvaluator"];
  prepareSandbox?: QuestControllerDeps["prepareSandbox"];
  headCommit?: () => Promise<string | undefined>;
  pinDependencies?: QuestControllerDeps["pinDependencies"];
  start?: QuestControllerDeps["start"];
  workspace?: string;
  protectionText?: () => string;
  agentCode?: QuestControllerDeps["agentCode"];
  carryOver?: QuestControllerDeps["carryOver"];
};

async function start(options: StartOptions = {}) {
  const dir = options.dir ?? makeWorkspace();
  const progressFile = join(dir, "data", "progress.json");
  const eventsFile = join(dir, "data", "events.jsonl");
  const ui = options.ui ?? fakeQuestUi();
  const evaluators = options.evaluators ?? scriptedEvaluators();
  const log = await openEvents(eventsFile);
  const sandboxCalls: Quest[] = [];
  const controller = await startQuestController({
    pack: options.pack ?? PACK,
    progress: openProgressStore(progressFile, PROGRESS_SEALER, () => NOW),
    events: log,
    ui,
    createEvaluator: options.createEvaluator ?? evaluators.createEvaluator,
    prepareSandbox: async (of) => {
      sandboxCalls.push(of);
      if (!options.prepareSandbox) throw new Error("no sandbox in this test");
      return options.prepareSandbox(of);
    },
    headCommit: options.headCommit ?? (async () => BASELINE),
    ...(options.pinDependencies ? { pinDependencies: options.pinDependencies } : {}),
    sessionId: () => SESSION,
    now: () => NOW,
    debounceMs: 5,
    start: options.start,
    ...(options.workspace ? { workspace: options.workspace } : {}),
    ...(options.protectionText ? { protectionText: options.protectionText } : {}),
    ...(options.agentCode ? { agentCode: options.agentCode } : {}),
    ...(options.carryOver ? { carryOver: options.carryOver } : {}),
  });
  opened.push(controller);
  /** Progress as saved in the file. */
  const progress = async (): Promise<Progress> => {
    const loaded = await openProgressStore(progressFile, PROGRESS_SEALER).load();
    expect(loaded.kind).toBe("loaded");
    return loaded.progress;
  };
  const named = (name: string) => log.events().filter((event) => event.name === name);
  return { controller, ui, log, evaluators, dir, progressFile, eventsFile, progress, named, sandboxCalls };
}

/** Progress written before the controller starts, as an earlier session left it. */
async function seedProgress(dir: string, progress: Partial<Progress>): Promise<void> {
  await openProgressStore(join(dir, "data", "progress.json"), PROGRESS_SEALER).save({
    version: 1,
    completed: {},
    confirmations: {},
    epochSeq: 0,
    ...progress,
  });
}

const DONE = { at: "2030-01-01T00:00:00.000Z", definitionHash: "d".repeat(64) };

// ---------------------------------------------------------------------------------------------

describe("starting", () => {
  it("activates the first available quest: pinned, from the next event, with HEAD as its baseline", async () => {
    const h = await start();
    await h.controller.idle();
    expect((await h.progress()).active).toEqual({
      questId: "alpha",
      ...pinQuest(ALPHA),
      baseline: BASELINE,
      activatedAt: NOW.toISOString(),
      fromSeq: 0,
      hintsShown: 0,
    });
    expect(h.log.events()).toEqual([
      {
        name: QUEST_ACTIVATED_EVENT,
        sessionId: SESSION,
        seq: 0,
        payload: { quest: "alpha", baseline: BASELINE },
      },
    ]);
    expect(h.evaluators.created.map((c) => [c.quest, c.baseline])).toEqual([[ALPHA, BASELINE]]);
  });

  it("tells the learner the goal of a quest that starts by itself", async () => {
    const h = await start();
    await h.controller.idle();
    expect(h.ui.notes()).toEqual([
      { message: "Quest 1/3: Alpha\nSay hello to Pi.\n(/quest hint if you are stuck)", level: "info" },
    ]);
  });

  it("evaluates the activated quest at once, showing checking… meanwhile", async () => {
    const h = await start();
    await h.controller.idle();
    expect(h.evaluators.runs.map((run) => run.quest)).toEqual(["alpha"]);
    expect(h.evaluators.runs[0]?.sessionId).toBe(SESSION);
    const huds = h.ui.huds();
    expect(huds[0]).toEqual({
      kind: "active",
      title: "Alpha",
      position: 1,
      total: 3,
      checks: [
        { describe: "You asked", status: "unchecked" },
        { describe: "Pi answered", status: "unchecked" },
      ],
      evaluating: false,
    });
    expect(huds.some((state) => state.kind === "active" && state.evaluating)).toBe(true);
    expect(h.ui.lastHud()).toMatchObject({ kind: "active", evaluating: false });
  });

  it("skips quests whose requirements are not done", async () => {
    const h = await start({ pack: [BETA, ALPHA, SOLO] });
    await h.controller.idle();
    expect((await h.progress()).active?.questId).toBe("alpha");
    expect(h.ui.lastHud()).toMatchObject({ kind: "active", title: "Alpha", position: 2, total: 3 });
  });

  it("outside git the quest has no baseline", async () => {
    const h = await start({ headCommit: async () => undefined });
    await h.controller.idle();
    expect((await h.progress()).active).not.toHaveProperty("baseline");
    expect(h.named(QUEST_ACTIVATED_EVENT)[0]?.payload).toEqual({ quest: "alpha", baseline: null });
    expect(h.evaluators.created[0]?.baseline).toBeUndefined();
  });

  it("with every quest done, activates nothing and the HUD says all done", async () => {
    const dir = makeWorkspace();
    await seedProgress(dir, { completed: { alpha: DONE, beta: DONE, solo: DONE } });
    const h = await start({ dir });
    await h.controller.idle();
    expect(h.ui.lastHud()).toEqual({ kind: "idle", done: 3, total: 3 });
    expect(h.log.events()).toEqual([]);
    expect(h.evaluators.created).toEqual([]);
    expect(h.ui.notes()).toEqual([]);
  });
});

describe("what a call changed (changedPaths)", () => {
  const CREATED_HELLO = quest({
    id: "hello",
    checks: [
      {
        id: "created",
        describe: "Pi created hello.txt",
        type: "event",
        match: { event: "tool_result", fields: { "changedPaths.*": { ends_with: "hello.txt" } } },
      },
    ],
  });

  it("is read only while the active quest has a check that reads it", async () => {
    const h = await start({ pack: [CREATED_HELLO, SOLO] });
    await h.controller.idle();
    expect(h.controller.readsChangedPaths()).toBe(true);
    await h.controller.command("start solo");
    expect(h.controller.readsChangedPaths()).toBe(false);
  });

  it("follows the active quest's pinned definition, not the quest file as it is now", async () => {
    const dir = makeWorkspace();
    const first = await start({ dir, pack: [CREATED_HELLO] });
    await first.controller.dispose();
    // The author removed the check since: the learner's active quest still has it.
    const edited = quest({ id: "hello", checks: [{ type: "event", match: { event: "input" } }] });
    const again = await start({ dir, pack: [edited] });
    expect(again.controller.readsChangedPaths()).toBe(true);
  });

  it("is not read with no active quest", async () => {
    const h = await start({ pack: [CREATED_HELLO], start: "off" });
    expect(h.controller.readsChangedPaths()).toBe(false);
  });
});

describe("recorded events", () => {
  it("go to the event log with the session id, and reach the file", async () => {
    const h = await start();
    h.controller.record(inputEvent({ content: "hello" }));
    expect(h.log.events().at(-1)).toEqual({
      name: "input",
      sessionId: SESSION,
      seq: 1,
      payload: { text: "hello" },
    });
    await h.controller.dispose();
    expect((await readEventLog(h.eventsFile, EVENTS_SEALER, "lenient")).events).toEqual(h.log.events());
  });

  it("a turn end schedules an evaluation after the debounce; record returns at once", async () => {
    const h = await start();
    await h.controller.idle();
    expect(h.evaluators.runs).toHaveLength(1);
    h.controller.record(turnEndEvent({ assistantTurns: 1 }));
    expect(h.evaluators.runs).toHaveLength(1);
    await h.controller.idle();
    expect(h.evaluators.runs).toHaveLength(2);
    expect(h.evaluators.runs[1]?.events.at(-1)).toMatchObject({ name: "turn_end", seq: 1 });
  });

  it("so does an agent end", async () => {
    const h = await start();
    await h.controller.idle();
    h.controller.record(agentEndEvent({ assistantTurns: 1 }));
    await h.controller.idle();
    expect(h.evaluators.runs).toHaveLength(2);
  });

  it("a burst of turn and agent ends is one evaluation", async () => {
    const h = await start();
    await h.controller.idle();
    for (let turn = 1; turn <= 5; turn++) {
      h.controller.record(turnEndEvent({ assistantTurns: turn }));
      h.controller.record(agentEndEvent({ assistantTurns: turn }));
    }
    await h.controller.idle();
    expect(h.evaluators.runs).toHaveLength(2);
    expect(h.evaluators.runs[1]?.events).toHaveLength(11);
  });

  it("other events schedule nothing", async () => {
    const h = await start();
    await h.controller.idle();
    h.controller.record(inputEvent({ content: "hi" }));
    h.controller.record(toolResultEvent({ toolName: "read", toolCallId: "c1", isError: false, input: {} }));
    await h.controller.idle();
    expect(h.evaluators.runs).toHaveLength(1);
  });

  it("a quest sees its own events and the lifecycle events, not the events of the quest before it", async () => {
    const h = await start();
    await h.controller.idle();
    h.evaluators.verdict("alpha", "pass");
    h.controller.record(inputEvent({ content: "hello" })); // seq 1
    h.controller.record(agentEndEvent({ assistantTurns: 1 })); // seq 2, then alpha passes
    await h.controller.idle();
    const betaRun = h.evaluators.runs.find((run) => run.quest === "beta");
    expect(betaRun?.events.map((event) => [event.seq, event.name, event.payload.quest])).toEqual([
      [0, QUEST_ACTIVATED_EVENT, "alpha"],
      [3, QUEST_COMPLETED_EVENT, "alpha"],
      [4, QUEST_ACTIVATED_EVENT, "beta"],
    ]);
  });
});

describe("a passing result", () => {
  it("completes the quest, records quest_completed, tells the learner and activates the next available quest", async () => {
    const h = await start();
    await h.controller.idle();
    h.evaluators.verdict("alpha", "pass");
    h.controller.record(turnEndEvent({ assistantTurns: 1 }));
    await h.controller.idle();
    const progress = await h.progress();
    expect(progress.completed).toEqual({
      alpha: { at: NOW.toISOString(), definitionHash: pinQuest(ALPHA).definitionHash },
    });
    expect(h.named(QUEST_COMPLETED_EVENT)).toEqual([
      { name: QUEST_COMPLETED_EVENT, sessionId: SESSION, seq: 2, payload: { quest: "alpha" } },
    ]);
    expect(h.ui.notes()).toContainEqual({
      message: expect.stringMatching(/^Quest complete: Alpha ✓/),
      level: "info",
    });
    expect(progress.active).toMatchObject({ questId: "beta", fromSeq: 3 });
    expect(h.named(QUEST_ACTIVATED_EVENT).map((event) => [event.seq, event.payload.quest])).toEqual([
      [0, "alpha"],
      [3, "beta"],
    ]);
    expect(h.evaluators.runs.at(-1)?.quest).toBe("beta");
    expect(h.ui.lastHud()).toMatchObject({ kind: "active", title: "Beta", position: 2, total: 3 });
  });

  it("on the last quest, nothing is active after it and the HUD says all done", async () => {
    const h = await start({ pack: [ALPHA] });
    await h.controller.idle();
    h.evaluators.verdict("alpha", "pass");
    await h.controller.command("check");
    const progress = await h.progress();
    expect(progress.active).toBeUndefined();
    expect(Object.keys(progress.completed)).toEqual(["alpha"]);
    expect(progress.lastResult).toEqual(result(ALPHA, "pass"));
    expect(h.ui.lastHud()).toEqual({ kind: "idle", done: 1, total: 1 });
  });
});

describe("a result that is not a pass", () => {
  it("does not complete the quest: it is saved, and the HUD shows each check with its reason", async () => {
    const evaluators = scriptedEvaluators();
    evaluators.respond("alpha", result(ALPHA, "fail", "no matching input event (1 event recorded)"));
    const h = await start({ evaluators });
    await h.controller.idle();
    const progress = await h.progress();
    expect(progress.completed).toEqual({});
    expect(progress.active?.questId).toBe("alpha");
    expect(progress.lastResult).toEqual(result(ALPHA, "fail", "no matching input event (1 event recorded)"));
    expect(h.named(QUEST_COMPLETED_EVENT)).toEqual([]);
    expect(otherNotes(h.ui)).toEqual([]);
    // Before the learner has done anything in the quest, nothing is red.
    const unmet = { status: "unchecked", reason: "not yet" } as const;
    expect(h.ui.lastHud()).toEqual({
      kind: "active",
      title: "Alpha",
      position: 1,
      total: 3,
      checks: [
        { describe: "You asked", ...unmet },
        { describe: "Pi answered", ...unmet },
      ],
      evaluating: false,
    });
    // Their first turn: while it is being checked, the result from before it turns nothing red.
    const run = h.evaluators.hold("alpha");
    h.controller.record(inputEvent({ content: "hello" }));
    h.controller.record(turnEndEvent({ assistantTurns: 1 }));
    await run.started;
    expect(h.ui.lastHud()).toMatchObject({
      checks: [
        { describe: "You asked", ...unmet },
        { describe: "Pi answered", ...unmet },
      ],
      evaluating: true,
    });
    // Once checked: each unmet check is ✗, with its reason in words.
    run.finish(result(ALPHA, "fail"));
    await h.controller.idle();
    expect(h.ui.lastHud()).toMatchObject({
      checks: [
        { describe: "You asked", status: "fail", reason: "not yet" },
        { describe: "Pi answered", status: "fail", reason: "not yet" },
      ],
    });
  });

  it("an evaluation that throws is told as an error and changes nothing: never a pass", async () => {
    const evaluators = scriptedEvaluators();
    const h = await start({
      evaluators,
      createEvaluator: async () => async () => {
        throw new Error("the task verifier is gone");
      },
    });
    await h.controller.idle();
    expect(otherNotes(h.ui)).toEqual([
      { message: "pi-quests could not check the quest: the task verifier is gone", level: "error" },
    ]);
    const progress = await h.progress();
    expect(progress.lastResult).toBeUndefined();
    expect(progress.completed).toEqual({});
    expect(h.ui.lastHud()).toMatchObject({
      kind: "active",
      evaluating: false,
      checks: [{ status: "unchecked" }, { status: "unchecked" }],
    });
  });

  it("an evaluator that could not be made is tried again on the next check", async () => {
    // A failure to build the evaluator (task verifier, receipts) may be passing; caching the
    // rejected promise would make the quest uncheckable until Pi restarts.
    const evaluators = scriptedEvaluators();
    let attempts = 0;
    const h = await start({
      evaluators,
      createEvaluator: async (...args) => {
        attempts++;
        if (attempts === 1) throw new Error("the data folder is locked");
        return evaluators.createEvaluator(...args);
      },
    });
    await h.controller.idle();
    expect(otherNotes(h.ui)).toEqual([
      { message: "pi-quests could not check the quest: the data folder is locked", level: "error" },
    ]);
    await h.controller.command("check");
    expect(attempts).toBe(2);
    expect((await h.progress()).lastResult).toEqual(result(ALPHA, "fail"));
    expect(h.ui.lastSaid()).toBe("Alpha: 0 of 2 checks pass, 2 not yet.");
  });
});

describe("a result whose quest was replaced while it ran", () => {
  it("is not published: the replaced quest is not completed, and the new quest is evaluated next", async () => {
    const evaluators = scriptedEvaluators();
    const alphaRun = evaluators.hold("alpha");
    const h = await start({ evaluators });
    await alphaRun.started;
    const command = h.controller.command("start solo");
    await h.ui.waitFor((call) => call.kind === "say" && call.text.startsWith("Quest started: Solo"));
    alphaRun.finish(result(ALPHA, "pass"));
    await command;
    await h.controller.idle();
    const progress = await h.progress();
    expect(progress.completed).toEqual({});
    expect(h.named(QUEST_COMPLETED_EVENT)).toEqual([]);
    expect(otherNotes(h.ui)).toEqual([]);
    expect(progress.active?.questId).toBe("solo");
    expect(progress.lastResult).toEqual(result(SOLO, "fail"));
    expect(evaluators.runs.map((run) => run.quest)).toEqual(["alpha", "solo"]);
    expect(h.ui.lastHud()).toMatchObject({ kind: "active", title: "Solo", evaluating: false });
  });
});

describe("/quest list", () => {
  it("lists every quest with where the learner stands", async () => {
    const h = await start();
    await h.controller.idle();
    await h.controller.command("list");
    expect(h.ui.lastSaid()).toBe(
      [
        "Quests: 0/3 done",
        "1. alpha: Alpha (▶ active)",
        "2. beta: Beta (locked: needs alpha)",
        "3. solo: Solo (○ available)",
        "Start one with /quest start ID; /quest skip skips the active one.",
      ].join("\n"),
    );
  });

  it("marks done quests, and unlocks what they opened", async () => {
    const h = await start();
    await h.controller.idle();
    h.evaluators.verdict("alpha", "pass");
    await h.controller.command("check");
    await h.controller.command("list");
    expect(h.ui.lastSaid()?.split("\n").slice(1, 4)).toEqual([
      "1. alpha: Alpha (✓ done)",
      "2. beta: Beta (▶ active)",
      "3. solo: Solo (○ available)",
    ]);
  });
});

describe("/quest start", () => {
  it("without an id asks which, naming the quests", async () => {
    const h = await start();
    await h.controller.command("start");
    expect(h.ui.lastSaid()).toBe("Which quest? /quest start ID, one of: alpha, beta, solo");
  });

  it("an unknown id lists the valid ids, and nothing changes", async () => {
    const h = await start();
    await h.controller.idle();
    await h.controller.command("start nope");
    expect(h.ui.lastSaid()).toBe('No quest "nope". The quests are: alpha, beta, solo');
    expect((await h.progress()).active?.questId).toBe("alpha");
    expect(h.named(QUEST_ACTIVATED_EVENT)).toHaveLength(1);
  });

  it("a locked quest names what it needs, and nothing changes", async () => {
    const h = await start();
    await h.controller.idle();
    await h.controller.command("start beta");
    expect(h.ui.lastSaid()).toBe('"Beta" needs alpha first (/quest start alpha).');
    expect((await h.progress()).active?.questId).toBe("alpha");
    expect(h.named(QUEST_ACTIVATED_EVENT)).toHaveLength(1);
  });

  it("an available quest becomes the active one, is shown with its goal, and is evaluated before the command returns", async () => {
    const h = await start();
    await h.controller.idle();
    await h.controller.command("start solo");
    expect(h.ui.lastSaid()).toBe("Quest started: Solo\n\nAnything.");
    const progress = await h.progress();
    expect(progress.active).toMatchObject({ questId: "solo", fromSeq: 1, ...pinQuest(SOLO) });
    expect(h.named(QUEST_ACTIVATED_EVENT).map((event) => event.payload.quest)).toEqual(["alpha", "solo"]);
    expect(h.evaluators.runs.map((run) => run.quest)).toEqual(["alpha", "solo"]);
    expect(progress.lastResult).toEqual(result(SOLO, "fail"));
    expect(h.ui.lastHud()).toMatchObject({ kind: "active", title: "Solo", position: 3 });
  });

  it("the active quest is checked again instead", async () => {
    const h = await start();
    await h.controller.idle();
    await h.controller.command("start alpha");
    expect(h.ui.lastSaid()).toBe('"Alpha" is already the active quest; checking it now.');
    expect(h.evaluators.runs).toHaveLength(2);
    expect(h.named(QUEST_ACTIVATED_EVENT)).toHaveLength(1);
  });
});

describe("/quest check", () => {
  it("evaluates now and says the counts", async () => {
    const h = await start();
    await h.controller.idle();
    await h.controller.command("check");
    expect(h.evaluators.runs).toHaveLength(2);
    expect(h.ui.lastSaid()).toBe("Alpha: 0 of 2 checks pass, 2 not yet.");
  });

  it("typed while an evaluation completes the quest, checks the one that comes next, not 'no active quest'", async () => {
    const evaluators = scriptedEvaluators();
    const alphaRun = evaluators.hold("alpha");
    const h = await start({ evaluators });
    await alphaRun.started;
    const check = h.controller.command("check");
    alphaRun.finish(result(ALPHA, "pass"));
    await check;
    await h.controller.idle();
    expect(h.ui.lastSaid()).toBe("Beta: 0 of 1 check passes, 1 not yet.");
    expect((await h.progress()).completed).toHaveProperty("alpha");
  });

  it("with no active quest says so", async () => {
    const dir = makeWorkspace();
    await seedProgress(dir, { completed: { alpha: DONE, beta: DONE, solo: DONE } });
    const h = await start({ dir });
    await h.controller.command("check");
    expect(h.ui.lastSaid()).toBe("No active quest. See /quest list, then /quest start ID.");
  });
});

describe("/quest check with confirm checks", () => {
  const READY = quest({
    id: "ready",
    title: "Ready",
    checks: [
      { id: "read-it", describe: "You read the guide", type: "confirm", prompt: "Did you read the guide?" },
      { id: "asked", describe: "You asked Pi", type: "event", match: { event: "input" } },
    ],
  });

  it("asks only on /quest check, never on its own", async () => {
    const dir = makeWorkspace();
    const h = await start({ dir, pack: [READY, SOLO], createEvaluator: realEvaluators(dir).createEvaluator });
    await h.controller.idle();
    // The learner's `!` command: an act, so the unmet event check is ✗, and nothing is asked.
    h.controller.record({ name: "user_bash", payload: { command: "ls", excludeFromContext: false } });
    await h.controller.idle();
    expect(h.ui.confirms()).toEqual([]);
    expect(h.ui.lastHud()).toMatchObject({ checks: [{ status: "pending" }, { status: "fail" }] });
  });

  it("a yes is saved in progress, passed to the evaluator's `confirmed`, and not asked again", async () => {
    const dir = makeWorkspace();
    const engine = realEvaluators(dir);
    const h = await start({ dir, pack: [READY, SOLO], createEvaluator: engine.createEvaluator });
    await h.controller.idle();
    h.ui.answer(true);
    await h.controller.command("check");
    expect(h.ui.confirms()).toEqual([{ title: "Ready", message: "Did you read the guide?" }]);
    expect((await h.progress()).confirmations).toEqual({
      ready: { "read-it": { answer: true, at: NOW.toISOString() } },
    });
    expect(engine.created[0]?.confirmed("read-it")).toBe(true);
    // The confirm check passes in the real engine; the event check still waits for a message.
    expect(h.ui.lastSaid()).toBe("Ready: 1 of 2 checks pass, 1 not yet.");

    await h.controller.command("check");
    expect(h.ui.confirms()).toHaveLength(1);

    h.controller.record(inputEvent({ content: "hi Pi" }));
    h.controller.record(agentEndEvent({ assistantTurns: 1 }));
    await h.controller.idle();
    expect(h.ui.notes()).toContainEqual({
      message: expect.stringMatching(/^Quest complete: Ready ✓/),
      level: "info",
    });
    expect((await h.progress()).active?.questId).toBe("solo");
  });

  it("a no is saved, the check stays pending, and the next /quest check asks again", async () => {
    const dir = makeWorkspace();
    const engine = realEvaluators(dir);
    const h = await start({ dir, pack: [READY, SOLO], createEvaluator: engine.createEvaluator });
    await h.controller.idle();
    h.ui.answer(false);
    await h.controller.command("check");
    expect((await h.progress()).confirmations).toEqual({
      ready: { "read-it": { answer: false, at: NOW.toISOString() } },
    });
    expect(h.ui.lastSaid()).toBe("Ready: 0 of 2 checks pass; /quest status says what is missing.");
    h.ui.answer(true);
    await h.controller.command("check");
    expect(h.ui.confirms()).toHaveLength(2);
    expect((await h.progress()).confirmations.ready?.["read-it"]?.answer).toBe(true);
  });

  it("a no reaches the evaluator's `confirmed` as false (the engine then says it was answered no)", async () => {
    const evaluators = scriptedEvaluators();
    const h = await start({ pack: [READY, SOLO], evaluators });
    await h.controller.idle();
    h.ui.answer(false);
    await h.controller.command("check");
    expect(evaluators.created[0]?.confirmed("read-it")).toBe(false);
  });

  it("with no one to answer (no UI), nothing is saved and the check stays pending", async () => {
    const dir = makeWorkspace();
    const h = await start({ dir, pack: [READY, SOLO], createEvaluator: realEvaluators(dir).createEvaluator });
    await h.controller.idle();
    await h.controller.command("check");
    expect(h.ui.confirms()).toHaveLength(1);
    expect((await h.progress()).confirmations).toEqual({});
    expect(h.ui.lastSaid()).toBe("Ready: 0 of 2 checks pass; /quest status says what is missing.");
  });
});

describe("/quest hint", () => {
  it("gives one hint at a time, then stays on the last, and remembers where it is", async () => {
    const h = await start();
    await h.controller.idle();
    for (let i = 0; i < 3; i++) await h.controller.command("hint");
    expect(h.ui.said()).toEqual([
      "Hint 1/2: Type a message.",
      "Hint 2/2 (the last one): Press Enter.",
      "Hint 2/2 (the last one): Press Enter.",
    ]);
    expect((await h.progress()).active?.hintsShown).toBe(2);
  });

  it("a quest without hints gives its goal", async () => {
    const h = await start({ pack: [SOLO] });
    await h.controller.command("hint");
    expect(h.ui.lastSaid()).toBe('"Solo" has no hints. Its goal:\nAnything.');
  });

  it("with no active quest says so", async () => {
    const dir = makeWorkspace();
    await seedProgress(dir, { completed: { alpha: DONE, beta: DONE, solo: DONE } });
    const h = await start({ dir });
    await h.controller.command("hint");
    expect(h.ui.lastSaid()).toBe("No active quest. See /quest list, then /quest start ID.");
  });
});

describe("/quest status", () => {
  it("before any result: not checked yet, and the goal", async () => {
    const h = await start({
      createEvaluator: async () => async () => {
        throw new Error("no engine");
      },
    });
    await h.controller.idle();
    await h.controller.command("status");
    expect(h.ui.lastSaid()).toBe(
      "Alpha\n  ○ You asked\n  ○ Pi answered\nNot checked yet. The checker's own detail: /quest status --details\n\nGoal:\nSay hello to Pi.",
    );
    await h.controller.command("status --details");
    expect(h.ui.lastSaid()).toBe("Alpha: not checked yet\n\nGoal:\nSay hello to Pi.");
  });

  it("reports the last result with its evidence, including a failing command's last output lines", async () => {
    const failing: QuestResult = {
      quest: "alpha",
      status: "fail",
      counts: { passed: 1, failed: 1, pending: 0 },
      checks: [
        {
          id: "asked",
          type: "event",
          status: "pass",
          describe: "You asked",
          evidence: { kind: "event", summary: "matching input event at seq 1", matched: 1, scanned: 2 },
        },
        {
          id: "answered",
          type: "command",
          status: "fail",
          describe: "Pi answered",
          evidence: {
            kind: "command",
            summary: "exit code 1, expected = 0",
            script: "npm test",
            cwd: ".",
            isolation: "worktree",
            exitCode: 1,
            output: "first line\nAssertionError: expected 2 to be 3\n",
          },
        },
      ],
    };
    const evaluators = scriptedEvaluators();
    evaluators.respond("alpha", failing);
    const h = await start({ evaluators });
    await h.controller.idle();
    // The learner's view: each check with its reason in words, ✗ once they have acted.
    await h.controller.command("status");
    expect(h.ui.lastSaid()?.split("\n").slice(0, 4)).toEqual([
      "Alpha",
      "  ✓ You asked",
      "  ○ Pi answered: not yet",
      "1 of 2 checks pass. The checker's own detail: /quest status --details",
    ]);
    h.controller.record(inputEvent({ content: "hello" }));
    h.controller.record(turnEndEvent({ assistantTurns: 1 }));
    await h.controller.idle();
    await h.controller.command("status");
    expect(h.ui.lastSaid()?.split("\n").slice(0, 3)).toEqual([
      "Alpha",
      "  ✓ You asked",
      "  ✗ Pi answered: AssertionError: expected 2 to be 3",
    ]);
    expect(h.ui.lastSaid()).not.toMatch(/\[FAIL\]|exit code|answered \(/);
    // The author's: ids, tags, the exit code and the output.
    await h.controller.command("status --details");
    const said = h.ui.lastSaid() ?? "";
    expect(said).toBe(`${formatQuestResult(failing, "Alpha")}\nGoal:\nSay hello to Pi.`);
    expect(said.split("\n")).toEqual([
      "alpha: Alpha",
      "  [pass] asked (You asked): matching input event at seq 1",
      "  [FAIL] answered (Pi answered): exit code 1, expected = 0",
      "      last 2 line(s) of output:",
      "      | first line",
      "      | AssertionError: expected 2 to be 3",
      "FAIL: 1 passed, 1 failed, 0 pending",
      "",
      "Goal:",
      "Say hello to Pi.",
    ]);
  });

  it("with no active quest says why, when something is waiting", async () => {
    const dir = makeWorkspace();
    await seedProgress(dir, { completed: { alpha: DONE, beta: DONE, solo: DONE } });
    const h = await start({ dir });
    await h.controller.command("status");
    expect(h.ui.lastSaid()).toBe("No active quest. See /quest list, then /quest start ID.");
  });

  it("says how the agent's bash is kept from the records, as it stands when asked", async () => {
    let protection = "Agent's bash: pi-quests is still finding out how to keep it from its records.";
    const h = await start({
      protectionText: () => protection,
      createEvaluator: async () => async () => {
        throw new Error("no engine");
      },
    });
    await h.controller.idle();
    protection =
      "Agent's bash: its commands run where pi-quests' records (/a/quests) look like an empty, read-only folder; they cannot read or change them.";
    await h.controller.command("status --details");
    expect(h.ui.lastSaid()).toBe(`Alpha: not checked yet\n\nGoal:\nSay hello to Pi.\n\n${protection}`);
    const dir = makeWorkspace();
    await seedProgress(dir, { completed: { alpha: DONE, beta: DONE, solo: DONE } });
    const none = await start({ dir, protectionText: () => protection });
    await none.controller.command("status");
    expect(none.ui.lastSaid()).toBe(
      `No active quest. See /quest list, then /quest start ID.\n\n${protection}`,
    );
  });
});

describe("code Pi wrote, running inside Pi", () => {
  it("is the HUD's last line and a paragraph of /quest status, and blocks nothing", async () => {
    const agentCode = {
      hudLine: "⚠ Code Pi wrote is running inside Pi: x.ts — /quest status",
      statusText: "Code Pi wrote…",
    };
    const h = await start({ agentCode });
    await h.controller.idle();
    expect(h.ui.lastHud()).toMatchObject({ kind: "active", agentCode: agentCode.hudLine });
    await h.controller.command("status");
    expect(h.ui.lastSaid()).toMatch(/\nGoal:\nSay hello to Pi\.\n\nCode Pi wrote…$/);
    h.evaluators.verdict("alpha", "pass");
    h.controller.record(agentEndEvent({ assistantTurns: 1 }));
    await h.controller.idle();
    expect(h.named(QUEST_COMPLETED_EVENT)).toHaveLength(1);
  });
});

describe("/quest reset", () => {
  const SANDBOX = { template: "/pack/sandboxes/first-file", baseline: "b".repeat(40), at: DONE.at };

  /** A learner who finished alpha and works on beta, in a folder made from a sandbox. */
  async function midway() {
    const dir = makeWorkspace();
    await seedProgress(dir, { sandbox: SANDBOX });
    const h = await start({ dir });
    await h.controller.idle();
    h.evaluators.verdict("alpha", "pass");
    await h.controller.command("check");
    h.evaluators.verdict("alpha", "fail");
    expect((await h.progress()).active?.questId).toBe("beta");
    return h;
  }

  it("asks first; a no changes nothing", async () => {
    const h = await midway();
    const before = await readFile(h.progressFile);
    const events = h.log.events().length;
    h.ui.answer(false);
    await h.controller.command("reset");
    expect(h.ui.confirms()).toEqual([
      {
        title: "Reset quest progress?",
        message: "Every quest in this folder starts over. Your files are kept.",
        options: { defaultAnswer: false },
      },
    ]);
    expect(h.ui.lastSaid()).toBe("Reset cancelled.");
    expect(await readFile(h.progressFile)).toEqual(before);
    expect(h.log.events()).toHaveLength(events);
  });

  it("without a UI to confirm, changes nothing either", async () => {
    const h = await midway();
    const before = await readFile(h.progressFile);
    await h.controller.command("reset");
    expect(h.ui.lastSaid()).toBe("Reset needs Pi's interactive UI to confirm.");
    expect(await readFile(h.progressFile)).toEqual(before);
  });

  it("a yes starts over from the first quest, keeps the sandbox record, and hides earlier lifecycle events", async () => {
    const h = await midway();
    const resetAt = h.log.nextSeq();
    h.ui.answer(true);
    await h.controller.command("reset");
    expect(h.ui.said()).toContain("Quest progress reset.");
    const progress = await h.progress();
    expect(progress.completed).toEqual({});
    expect(progress.sandbox).toEqual(SANDBOX);
    expect(progress.epochSeq).toBe(resetAt);
    expect(progress.active).toMatchObject({ questId: "alpha", fromSeq: resetAt, hintsShown: 0 });
    // The new attempt sees none of what came before the reset, not even alpha's completion.
    const last = h.evaluators.runs.at(-1);
    expect(last?.quest).toBe("alpha");
    expect(last?.events.map((event) => [event.seq, event.name])).toEqual([[resetAt, QUEST_ACTIVATED_EVENT]]);
    expect(h.ui.lastHud()).toMatchObject({ kind: "active", title: "Alpha", position: 1 });
  });
});

describe("/quest help and unknown subcommands", () => {
  it("no subcommand, or help, shows the help", async () => {
    const h = await start();
    await h.controller.command("");
    await h.controller.command("help");
    expect(h.ui.said()).toEqual([questHelp(), questHelp()]);
  });

  it("an unknown subcommand is named, followed by the valid ones", async () => {
    const h = await start();
    await h.controller.command("frobnicate now");
    const said = h.ui.lastSaid() ?? "";
    expect(said).toBe(`Unknown /quest command "frobnicate".\n${questHelp()}`);
    for (const { name } of QUEST_SUBCOMMANDS) expect(said).toContain(`/quest ${name}`);
  });

  it("quests() gives the ids, titles and standings for completion", async () => {
    const h = await start();
    await h.controller.idle();
    expect(h.controller.quests()).toEqual([
      { id: "alpha", title: "Alpha", standing: "active", debrief: false },
      { id: "beta", title: "Beta", standing: "locked", needs: ["alpha"], debrief: false },
      { id: "solo", title: "Solo", standing: "available", debrief: false },
    ]);
  });
});

describe("a restart over the same progress and event log", () => {
  it("continues the same active quest from its pinned definition, even if the quest file was edited", async () => {
    const dir = makeWorkspace();
    const first = await start({ dir });
    await first.controller.idle();
    first.controller.record(inputEvent({ content: "hello" })); // seq 1, before the restart
    await first.controller.command("hint");
    const pinned = (await first.progress()).active;
    await first.controller.dispose();

    const second = await start({ dir, pack: [ALPHA_EDITED, BETA, SOLO] });
    await second.controller.idle();
    expect((await second.progress()).active).toEqual(pinned);
    expect(second.named(QUEST_ACTIVATED_EVENT)).toHaveLength(1);
    // What is evaluated is the quest as activated, not the edited file.
    expect(second.evaluators.created.map((created) => created.quest)).toEqual([ALPHA]);
    expect(second.evaluators.runs[0]?.events.map((event) => event.name)).toEqual([
      QUEST_ACTIVATED_EVENT,
      "input",
    ]);
    expect(second.ui.lastHud()).toMatchObject({
      kind: "active",
      title: "Alpha",
      checks: [{ describe: "You asked" }, { describe: "Pi answered" }],
    });
    await second.controller.command("hint");
    expect(second.ui.lastSaid()).toBe("Hint 2/2 (the last one): Press Enter.");
    expect(second.ui.notes()).toEqual([]);
  });

  it("with the real engine, the edited check does not decide: the pinned checks pass and complete the quest", async () => {
    const dir = makeWorkspace();
    const first = await start({ dir, createEvaluator: realEvaluators(dir).createEvaluator });
    await first.controller.idle();
    first.controller.record(inputEvent({ content: "hello" }));
    await first.controller.dispose();

    const second = await start({
      dir,
      pack: [ALPHA_EDITED, BETA, SOLO],
      createEvaluator: realEvaluators(dir).createEvaluator,
    });
    await second.controller.idle();
    second.controller.record(agentEndEvent({ assistantTurns: 1 }));
    await second.controller.idle();
    const progress = await second.progress();
    expect(progress.completed.alpha?.definitionHash).toBe(pinQuest(ALPHA).definitionHash);
    expect(progress.active?.questId).toBe("beta");
  });

  it("shows the last result at once, before evaluating again", async () => {
    const dir = makeWorkspace();
    const first = await start({ dir });
    first.controller.record(inputEvent({ content: "hello" }));
    first.controller.record(turnEndEvent({ assistantTurns: 1 }));
    await first.controller.idle();
    await first.controller.dispose();
    const second = await start({ dir });
    // The learner acted in the quest in the earlier session: its failed checks are ✗ at once.
    expect(second.ui.huds()[0]).toMatchObject({
      kind: "active",
      checks: [{ status: "fail", reason: "not yet" }, { status: "fail" }],
    });
  });

  it("numbers new events after the old ones", async () => {
    const dir = makeWorkspace();
    const first = await start({ dir });
    first.controller.record(inputEvent({ content: "one" }));
    await first.controller.dispose();
    const second = await start({ dir });
    second.controller.record(inputEvent({ content: "two" }));
    await second.controller.dispose();
    const { events } = await readEventLog(second.eventsFile, EVENTS_SEALER, "lenient");
    expect(events.map((event) => [event.seq, event.name])).toEqual([
      [0, QUEST_ACTIVATED_EVENT],
      [1, "input"],
      [2, "input"],
    ]);
  });

  it("a pinned definition that was tampered with is not used: the learner is told, and a quest is activated afresh", async () => {
    const dir = makeWorkspace();
    const first = await start({ dir });
    await first.controller.idle();
    await first.controller.dispose();
    const saved = JSON.parse(await readFile(first.progressFile, "utf8"));
    saved.active.definition.title = "Hacked";
    // Sealed again, as a bug of pi-quests itself would leave it: the hash still catches it.
    await writeFile(first.progressFile, sealedJson(PROGRESS_SEALER, saved));

    const second = await start({ dir });
    await second.controller.idle();
    expect(otherNotes(second.ui)).toEqual([
      {
        message:
          "pi-quests: the active quest could not be restored (the pinned definition does not match its hash); choose one with /quest list",
        level: "warning",
      },
    ]);
    const progress = await second.progress();
    expect(progress.active).toMatchObject({ questId: "alpha", fromSeq: 1, ...pinQuest(ALPHA) });
    expect(second.named(QUEST_ACTIVATED_EVENT)).toHaveLength(2);
    expect(second.ui.lastHud()).toMatchObject({ title: "Alpha" });
  });
});

describe("a progress file that cannot be read", () => {
  it("is kept as a backup, the learner is warned with its name, and the controller starts over", async () => {
    const dir = makeWorkspace();
    await mkdir(join(dir, "data"));
    await writeFile(join(dir, "data", "progress.json"), "{ this is not json");
    const h = await start({ dir });
    await h.controller.idle();
    const backup = `${h.progressFile}.corrupt-2030-01-02T03-04-05.000Z`;
    const [note, ...others] = otherNotes(h.ui);
    expect(others).toEqual([]);
    expect(note?.level).toBe("warning");
    expect(note?.message).toMatch(/^pi-quests: your progress file could not be read \(not JSON/);
    expect(note?.message).toContain(`It was kept as ${backup}; progress starts over.`);
    expect(await readFile(backup, "utf8")).toBe("{ this is not json");
    expect((await h.progress()).active?.questId).toBe("alpha");
    expect(h.ui.lastHud()).toMatchObject({ kind: "active", title: "Alpha" });
  });
});

describe("dispose", () => {
  it("aborts a running evaluation, and nothing is published after it", async () => {
    const evaluators = scriptedEvaluators();
    const alphaRun = evaluators.hold("alpha");
    const h = await start({ evaluators });
    const input = await alphaRun.started;
    // An evaluator that, stopped, still answers: a pass that must not count.
    input.signal?.addEventListener("abort", () => alphaRun.finish(result(ALPHA, "pass")));
    const hudsBefore = h.ui.huds().length;
    await h.controller.dispose();
    expect(input.signal?.aborted).toBe(true);
    const progress = await h.progress();
    expect(progress.completed).toEqual({});
    expect(progress.lastResult).toBeUndefined();
    expect(progress.active?.questId).toBe("alpha");
    expect(h.named(QUEST_COMPLETED_EVENT)).toEqual([]);
    expect(otherNotes(h.ui)).toEqual([]);
    expect(h.ui.huds()).toHaveLength(hudsBefore);
  });

  it("writes every recorded event to the file", async () => {
    const h = await start();
    for (let i = 0; i < 20; i++) h.controller.record(inputEvent({ content: `message ${i}` }));
    await h.controller.dispose();
    expect((await readEventLog(h.eventsFile, EVENTS_SEALER, "lenient")).events).toEqual(h.log.events());
  });

  it("after it, turn ends schedule nothing", async () => {
    const h = await start();
    await h.controller.idle();
    await h.controller.dispose();
    h.controller.record(turnEndEvent({ assistantTurns: 1 }));
    await h.controller.idle();
    expect(h.evaluators.runs).toHaveLength(1);
  });
});

describe("sandbox quests", () => {
  /** Every file under `dir` and its bytes. */
  function snapshot(dir: string): Record<string, string> {
    const entries: Record<string, string> = {};
    const walk = (folder: string) => {
      for (const name of readdirSync(folder)) {
        const path = join(folder, name);
        if (statSync(path).isDirectory()) walk(path);
        else entries[relative(dir, path)] = readFileSync(path).toString("base64");
      }
    };
    walk(dir);
    return entries;
  }

  function gitEnv(): Record<string, string> {
    const home = makeWorkspace({ ".gitconfig": "" });
    return {
      PATH: process.env.PATH ?? "/usr/bin:/bin",
      HOME: home,
      GIT_CONFIG_GLOBAL: join(home, ".gitconfig"),
      GIT_CONFIG_NOSYSTEM: "1",
    };
  }

  it("in a folder that is not empty is not activated: the HUD shows why and the folder is untouched", async () => {
    const template = makeWorkspace({ "README.md": "# Practice\n" });
    const workspace = makeWorkspace({ "mine.txt": "my notes\n" });
    const before = snapshot(workspace);
    const practice = quest({ id: "practice", title: "Practice", sandboxDir: template });
    const h = await start({
      pack: [practice],
      prepareSandbox: (of) =>
        prepareSandbox({ template: of.sandboxDir, workspace, questId: of.id, env: gitEnv() }),
    });
    await h.controller.idle();
    const notice = 'next: "Practice" needs an empty folder (/quest start practice)';
    expect(h.ui.lastHud()).toEqual({ kind: "idle", done: 0, total: 1, notice });
    expect(hudLines({ kind: "idle", done: 0, total: 1, notice })[0]?.text).toBe(`Quests 0/1 · ${notice}`);
    const [note] = h.ui.notes();
    expect(note?.level).toBe("warning");
    expect(note?.message).toMatch(
      /^"practice" sets up a practice folder, and this folder is not empty \(mine\.txt\)/,
    );
    expect((await h.progress()).active).toBeUndefined();
    expect(h.log.events()).toEqual([]);
    expect(h.evaluators.created).toEqual([]);
    expect(snapshot(workspace)).toEqual(before);

    await h.controller.command("check");
    expect(h.ui.lastSaid()).toBe(`No active quest: ${notice}.`);
  });

  it("a setup that fails says it could not be set up", async () => {
    const practice = quest({ id: "practice", title: "Practice", sandboxDir: "/pack/sandboxes/practice" });
    const outcome: SandboxOutcome = { ok: false, kind: "failed", message: "git is not installed" };
    const h = await start({ pack: [practice], prepareSandbox: async () => outcome });
    expect(h.ui.lastHud()).toEqual({
      kind: "idle",
      done: 0,
      total: 1,
      notice: 'next: "Practice" could not be set up (/quest start practice)',
    });
    expect(h.ui.notes()).toEqual([{ message: "git is not installed", level: "warning" }]);
  });

  it("an empty folder is set up once, recorded in progress, and a later quest with the same template reuses it", async () => {
    const template = "/pack/sandboxes/shared";
    const first = quest({ id: "first", title: "First", sandboxDir: template });
    const second = quest({ id: "second", title: "Second", requires: ["first"], sandboxDir: template });
    const sandboxBaseline = "b".repeat(40);
    let head: string | undefined;
    const h = await start({
      pack: [first, second],
      prepareSandbox: async () => {
        head = sandboxBaseline;
        return { ok: true, baseline: sandboxBaseline };
      },
      headCommit: async () => head,
    });
    await h.controller.idle();
    let progress = await h.progress();
    expect(progress.sandbox).toEqual({ template, baseline: sandboxBaseline, at: NOW.toISOString() });
    expect(progress.active).toMatchObject({ questId: "first", baseline: sandboxBaseline });
    expect(h.sandboxCalls.map((of) => of.id)).toEqual(["first"]);

    h.evaluators.verdict("first", "pass");
    await h.controller.command("check");
    progress = await h.progress();
    expect(progress.active?.questId).toBe("second");
    expect(h.sandboxCalls.map((of) => of.id)).toEqual(["first"]);
  });

  it("a /quest start that cannot set up its sandbox leaves the active quest as it was", async () => {
    const practice = quest({ id: "practice", title: "Practice", sandboxDir: "/pack/sandboxes/practice" });
    const message = '"practice" sets up a practice folder, and this folder is not empty (mine.txt), …';
    const h = await start({
      pack: [ALPHA, BETA, SOLO, practice],
      prepareSandbox: async () => ({ ok: false, kind: "not_empty", message }),
    });
    await h.controller.idle();
    await h.controller.command("hint");
    const before = await h.progress();
    await h.controller.command("start practice");
    expect(h.ui.lastSaid()).toBe(
      `${message} Start Pi in an empty folder, for example: mkdir -p ~/pi-quests-practice && cd ~/pi-quests-practice && pi, then /quest start practice.`,
    );
    await h.controller.idle();
    expect((await h.progress()).active).toEqual(before.active);
    expect(h.ui.lastHud()).toMatchObject({ kind: "active", title: "Alpha" });
  });

  it("one that needs an empty folder leaves what was done here for it: there, once the learner agrees, it starts by itself and the quests done here count", async () => {
    const practice = quest({
      id: "practice",
      title: "Practice",
      requires: ["alpha"],
      sandboxDir: "/pack/sandboxes/practice",
    });
    const pack = [ALPHA, practice];
    const dataDir = makeWorkspace();
    const [here, there] = [makeWorkspace({ "mine.txt": "mine\n" }), makeWorkspace()];
    const notEmpty =
      '"practice" sets up a practice folder, and this folder is not empty (mine.txt), so nothing was copied or changed.';
    const first = await start({
      pack,
      prepareSandbox: async () => ({ ok: false, kind: "not_empty", message: notEmpty }),
      carryOver: openCarryOverStore(dataDir, here),
    });
    await first.controller.idle();
    first.evaluators.verdict("alpha", "pass");
    await first.controller.command("check");
    await first.controller.idle();
    expect(first.ui.notes().map((note) => note.message)).toContain(
      `${notEmpty} Start Pi in an empty folder, for example: mkdir -p ~/pi-quests-practice && cd ~/pi-quests-practice && pi. "Practice" starts there by itself, and the quests you did here count there too.`,
    );

    // Pi started in the empty folder, as advised: no progress of its own yet. The learner is asked.
    const ui = fakeQuestUi();
    ui.answer(true);
    const second = await start({
      pack,
      ui,
      prepareSandbox: async () => ({ ok: true, baseline: BASELINE }),
      carryOver: openCarryOverStore(dataDir, there),
    });
    await second.controller.idle();
    expect(ui.confirms()).toEqual([
      {
        title: `Carry on from ${here}?`,
        message:
          'The 1 quest done there counts here, and "Practice" starts here: its practice files are set up in this folder. No starts this folder from the first quest.',
      },
    ]);
    expect(ui.notes().map((note) => note.message)).toContain(
      `Carried on from ${here}: 1 quest done there counts here. That folder keeps its own progress.`,
    );
    const progress = await second.progress();
    expect(Object.keys(progress.completed)).toEqual(["alpha"]);
    expect(progress.active?.questId).toBe("practice");
    // Taken once: a third new folder is not asked.
    expect(await openCarryOverStore(dataDir, makeWorkspace()).peek()).toBeUndefined();
  });

  it("a new folder whose learner says No, or that has no UI to ask, starts from the first quest and leaves the carry-over", async () => {
    const dataDir = makeWorkspace();
    const from = makeWorkspace({ "mine.txt": "mine\n" });
    await openCarryOverStore(dataDir, from).leave({ quest: "beta", completed: {}, skipped: {} });
    for (const ui of [fakeQuestUi(), fakeQuestUi({ hasUI: false })]) {
      ui.answer(false);
      const h = await start({ ui, carryOver: openCarryOverStore(dataDir, makeWorkspace()) });
      await h.controller.idle();
      expect((await h.progress()).active?.questId).toBe("alpha");
      expect(
        ui
          .notes()
          .map((note) => note.message)
          .join("\n"),
      ).not.toContain("Carried on");
    }
    expect(await openCarryOverStore(dataDir, makeWorkspace()).peek()).toMatchObject({ quest: "beta" });
  });

  it("a carried quest that cannot start here (the pack changed) counts what was done, and the next available quest starts", async () => {
    const dataDir = makeWorkspace();
    const from = makeWorkspace({ "mine.txt": "mine\n" });
    const done = { alpha: { at: NOW.toISOString(), definitionHash: "h".repeat(64) } };
    await openCarryOverStore(dataDir, from).leave({ quest: "gone", completed: done, skipped: {} });
    const ui = fakeQuestUi();
    ui.answer(true);
    const h = await start({ ui, carryOver: openCarryOverStore(dataDir, makeWorkspace()) });
    await h.controller.idle();
    const progress = await h.progress();
    expect(Object.keys(progress.completed)).toEqual(["alpha"]);
    expect(progress.active?.questId).toBe("beta");
    expect(
      ui
        .notes()
        .map((note) => note.message)
        .join("\n"),
    ).not.toContain("PI_QUESTS_START");
  });

  it("a later quest on a shared sandbox pins HEAD as its progress baseline and the template's commit as its oracle", async () => {
    const template = makeWorkspace({ "test.sh": "grep -q hello greeting.txt\n" });
    const workspace = makeWorkspace();
    const env = gitEnv();
    const first = quest({ id: "first", title: "First", sandboxDir: template });
    const second = quest({ id: "second", title: "Second", requires: ["first"], sandboxDir: template });
    const oracles: Array<string | undefined> = [];
    const evaluators = scriptedEvaluators();
    const h = await start({
      pack: [first, second],
      prepareSandbox: (of) => prepareSandbox({ template: of.sandboxDir, workspace, questId: of.id, env }),
      headCommit: async () => git(workspace, "rev-parse", "HEAD").trim(),
      createEvaluator: (of, pins, confirmed) => {
        oracles.push(pins.oracleBaseline);
        return evaluators.createEvaluator(of, pins, confirmed);
      },
    });
    await h.controller.idle();
    const sandboxCommit = (await h.progress()).sandbox?.baseline ?? "";
    expect(sandboxCommit).toMatch(/^[0-9a-f]{40}$/);
    expect((await h.progress()).active).toMatchObject({
      baseline: sandboxCommit,
      oracleBaseline: sandboxCommit,
    });

    // A commit during the first quest (here: the test rewritten) moves HEAD, not the oracle.
    await writeFile(join(workspace, "test.sh"), "exit 0\n");
    git(workspace, "commit", "-q", "-am", "Simplify the test");
    const later = git(workspace, "rev-parse", "HEAD").trim();
    evaluators.verdict("first", "pass");
    await h.controller.command("check");
    expect((await h.progress()).active).toMatchObject({
      questId: "second",
      baseline: later,
      oracleBaseline: sandboxCommit,
    });
    expect(h.named(QUEST_ACTIVATED_EVENT).map((event) => event.payload)).toEqual([
      { quest: "first", baseline: sandboxCommit, oracleBaseline: sandboxCommit },
      { quest: "second", baseline: later, oracleBaseline: sandboxCommit },
    ]);
    await h.controller.idle();
    expect(evaluators.created.map((c) => [c.quest.id, c.baseline])).toEqual([
      ["first", sandboxCommit],
      ["second", later],
    ]);
    expect(oracles).toEqual([sandboxCommit, sandboxCommit]);
  });

  it("a quest without a sandbox records no oracle baseline: its oracle is HEAD at activation", async () => {
    const oracles: Array<string | undefined> = [];
    const evaluators = scriptedEvaluators();
    const h = await start({
      createEvaluator: (of, pins, confirmed) => {
        oracles.push(pins.oracleBaseline);
        return evaluators.createEvaluator(of, pins, confirmed);
      },
    });
    await h.controller.idle();
    expect((await h.progress()).active).not.toHaveProperty("oracleBaseline");
    expect(h.named(QUEST_ACTIVATED_EVENT)[0]?.payload).toEqual({ quest: "alpha", baseline: BASELINE });
    expect(oracles).toEqual([undefined]);
  });

  it("a sandbox quest pinned before oracles were recorded takes its oracle from the sandbox record", async () => {
    const dir = makeWorkspace();
    const template = "/pack/sandboxes/shared";
    const second = quest({ id: "second", title: "Second", sandboxDir: template });
    const sandbox = { template, baseline: "b".repeat(40), at: NOW.toISOString() };
    await seedProgress(dir, {
      sandbox,
      active: {
        questId: "second",
        ...pinQuest(second),
        baseline: BASELINE,
        activatedAt: NOW.toISOString(),
        fromSeq: 0,
        hintsShown: 0,
      },
    });
    const oracles: Array<string | undefined> = [];
    const evaluators = scriptedEvaluators();
    const h = await start({
      dir,
      pack: [second],
      createEvaluator: (of, pins, confirmed) => {
        oracles.push(pins.oracleBaseline);
        return evaluators.createEvaluator(of, pins, confirmed);
      },
    });
    await h.controller.idle();
    expect(oracles).toEqual([sandbox.baseline]);
    expect(evaluators.created[0]?.baseline).toBe(BASELINE);
  });
});

describe("dependencies pinned at activation", () => {
  const PIN = {
    kind: "pinned" as const,
    version: 1 as const,
    takenAt: NOW.toISOString(),
    folders: ["node_modules"],
    entries: 2,
    units: { "node_modules/left-pad": "a".repeat(64) },
  };
  const TESTED = quest({
    id: "tested",
    checks: [{ id: "tests", describe: "the tests pass", type: "command", run: "npm test" }],
  });

  it("a quest with a command check in the task verifier pins node_modules once, keeps the pin in progress and hands it to its evaluator", async () => {
    const pins: Array<QuestPins> = [];
    let pinned = 0;
    const evaluators = scriptedEvaluators();
    const h = await start({
      pack: [TESTED],
      pinDependencies: async () => {
        pinned++;
        return PIN;
      },
      createEvaluator: (of, given, confirmed) => {
        pins.push(given);
        return evaluators.createEvaluator(of, given, confirmed);
      },
    });
    await h.controller.idle();
    expect(pinned).toBe(1);
    expect((await h.progress()).active?.dependencies).toEqual(PIN);
    expect(pins).toEqual([{ baseline: BASELINE, dependencies: PIN }]);
  });

  it("a quest without such a check pins nothing", async () => {
    let pinned = 0;
    const h = await start({
      pack: [SOLO],
      pinDependencies: async () => {
        pinned++;
        return PIN;
      },
    });
    await h.controller.idle();
    expect(pinned).toBe(0);
    expect((await h.progress()).active).not.toHaveProperty("dependencies");
  });
});

describe("PI_QUESTS_START", () => {
  it("is read as: unset or empty, today's rule; off, none; anything else, a quest id", () => {
    expect(questStartOf(undefined)).toBeUndefined();
    expect(questStartOf("")).toBeUndefined();
    expect(questStartOf("  ")).toBeUndefined();
    expect(questStartOf("off")).toBe("off");
    expect(questStartOf(" beta ")).toEqual({ quest: "beta" });
  });

  it("off: nothing activates at open; the HUD counts the quests and nothing is recorded or evaluated", async () => {
    const h = await start({ start: "off" });
    await h.controller.idle();
    expect(h.ui.lastHud()).toEqual({ kind: "idle", done: 0, total: 3 });
    expect(h.log.events()).toEqual([]);
    expect(h.evaluators.created).toEqual([]);
    expect(h.ui.notes()).toEqual([]);
    await h.controller.dispose();
    expect((await h.progress()).active).toBeUndefined();
  });

  it("off: a quest pinned by an earlier session still resumes (it was started, not starting by itself)", async () => {
    const dir = makeWorkspace();
    const first = await start({ dir });
    await first.controller.idle();
    await first.controller.dispose();
    const second = await start({ dir, start: "off" });
    await second.controller.idle();
    expect((await second.progress()).active?.questId).toBe("alpha");
    expect(second.named(QUEST_ACTIVATED_EVENT)).toHaveLength(1);
    expect(second.evaluators.runs.map((run) => run.quest)).toEqual(["alpha"]);
  });

  it("off: after a pass nothing activates, the completed quest's result stays the last one, and the next is named", async () => {
    const h = await start({ start: "off" });
    await h.controller.command("start alpha");
    h.evaluators.verdict("alpha", "pass");
    await h.controller.command("check");
    await h.controller.idle();
    const progress = await h.progress();
    expect(Object.keys(progress.completed)).toEqual(["alpha"]);
    expect(progress.active).toBeUndefined();
    expect(progress.lastResult).toEqual(result(ALPHA, "pass"));
    expect(h.named(QUEST_ACTIVATED_EVENT).map((event) => event.payload.quest)).toEqual(["alpha"]);
    expect(h.named(QUEST_COMPLETED_EVENT).map((event) => event.payload.quest)).toEqual(["alpha"]);
    expect(h.ui.notes().at(-1)).toEqual({
      message: "Quest complete: Alpha ✓\nNext: /quest start beta",
      level: "info",
    });
    expect(h.ui.lastHud()).toEqual({ kind: "idle", done: 1, total: 3 });
    await h.controller.command("start beta");
    expect((await h.progress()).active?.questId).toBe("beta");
  });

  it("off: the last quest's completion still says every quest is done", async () => {
    const h = await start({ start: "off", pack: [ALPHA] });
    await h.controller.command("start alpha");
    h.evaluators.verdict("alpha", "pass");
    await h.controller.command("check");
    expect(h.ui.notes().at(-1)?.message).toBe("Quest complete: Alpha ✓\nEvery quest is done. Well played!");
  });

  it("an id: that quest activates at open instead of the first available one, announced with its goal", async () => {
    const h = await start({ start: { quest: "solo" } });
    await h.controller.idle();
    expect((await h.progress()).active?.questId).toBe("solo");
    expect(h.named(QUEST_ACTIVATED_EVENT).map((event) => event.payload.quest)).toEqual(["solo"]);
    expect(h.ui.notes()).toEqual([
      { message: "Quest 3/3: Solo\nAnything.\n(/quest hint if you are stuck)", level: "info" },
    ]);
    expect(h.evaluators.runs.map((run) => run.quest)).toEqual(["solo"]);
  });

  it("an id: after its completion the next available quest activates, as without it", async () => {
    const h = await start({ start: { quest: "solo" } });
    await h.controller.idle();
    h.evaluators.verdict("solo", "pass");
    await h.controller.command("check");
    await h.controller.idle();
    expect((await h.progress()).active?.questId).toBe("alpha");
  });

  it("an id replaces a quest pinned by an earlier session; the pinned one named again just resumes", async () => {
    const dir = makeWorkspace();
    const first = await start({ dir });
    await first.controller.idle();
    await first.controller.dispose();
    const again = await start({ dir, start: { quest: "alpha" } });
    await again.controller.idle();
    expect(again.named(QUEST_ACTIVATED_EVENT)).toHaveLength(1);
    expect(again.ui.notes()).toEqual([]);
    await again.controller.dispose();
    const other = await start({ dir, start: { quest: "solo" } });
    await other.controller.idle();
    expect((await other.progress()).active?.questId).toBe("solo");
    expect(other.named(QUEST_ACTIVATED_EVENT).map((event) => event.payload.quest)).toEqual(["alpha", "solo"]);
  });

  it("an id that is locked or unknown is a warning, and no quest activates by itself", async () => {
    const locked = await start({ start: { quest: "beta" } });
    await locked.controller.idle();
    expect(locked.ui.notes()).toEqual([
      {
        message: 'pi-quests: PI_QUESTS_START asks for "Beta", which needs alpha first (/quest start alpha).',
        level: "warning",
      },
    ]);
    expect(locked.log.events()).toEqual([]);
    expect(locked.ui.lastHud()).toEqual({ kind: "idle", done: 0, total: 3 });

    const unknown = await start({ start: { quest: "gamma" } });
    await unknown.controller.idle();
    expect(unknown.ui.notes()).toEqual([
      {
        message: 'pi-quests: PI_QUESTS_START names no quest "gamma". The quests are: alpha, beta, solo',
        level: "warning",
      },
    ]);
    expect(unknown.log.events()).toEqual([]);
  });
});

// ---------------------------------------------------------------------------------------------
// Version 2: chapters, minutes, skipping, debriefs, goals as Markdown
// ---------------------------------------------------------------------------------------------

const HELLO = quest({
  version: 2,
  id: "hello",
  title: "Say hello",
  chapter: "Talk to Pi",
  minutes: 2,
  goal: "Send Pi a **message**:\n\n- anything\n- then press `Enter`\n",
  debrief: "You talked to Pi: every message starts a *run*.\n",
});
const STEER = quest({
  version: 2,
  id: "steer",
  title: "Steer a run",
  chapter: "Talk to Pi",
  minutes: 3,
  requires: ["hello"],
  debrief: "Steering queues a message.\n",
});
const COMMIT = quest({
  version: 2,
  id: "commit",
  title: "Commit it",
  chapter: "Save your work",
  minutes: 5,
  requires: ["steer"],
});
const NOTES = quest({ version: 2, id: "notes", title: "Take notes", chapter: "Save your work" });
const LOOSE = quest({ version: 2, id: "loose", title: "Anything", minutes: 1 });
const CHAPTERS = [HELLO, STEER, COMMIT, NOTES, LOOSE];

/** A learner of the chapter pack who has done hello and now has steer active. */
async function helloDone(options: StartOptions = {}) {
  const h = await start({ pack: CHAPTERS, ...options });
  await h.controller.idle();
  h.evaluators.verdict("hello", "pass");
  await h.controller.command("check");
  h.evaluators.verdict("hello", "fail");
  return h;
}

describe("/quest list with chapters", () => {
  it("groups the quests by chapter in pack order, each with where it stands and its minutes; minutes left per chapter and in all", async () => {
    const h = await start({ pack: CHAPTERS });
    await h.controller.idle();
    await h.controller.command("list");
    expect(h.ui.lastSaid()?.split("\n")).toEqual([
      "Quests: 0/5 done · 11+ min left",
      "Talk to Pi · 0/2 done · 5 min left",
      "  1. hello: Say hello (▶ active · 2 min)",
      "  2. steer: Steer a run (locked: needs hello · 3 min)",
      "Save your work · 0/2 done · 5+ min left",
      "  3. commit: Commit it (locked: needs steer · 5 min)",
      "  4. notes: Take notes (○ available)",
      "Other quests · 0/1 done · 1 min left",
      "  5. loose: Anything (○ available · 1 min)",
      "Start one with /quest start ID; /quest skip skips the active one.",
    ]);
  });

  it("done quests leave the minutes left; a skipped one is marked and still counted; what needs it opens", async () => {
    const h = await helloDone();
    await h.controller.command("skip");
    await h.controller.command("list");
    expect(h.ui.lastSaid()?.split("\n").slice(0, 5)).toEqual([
      "Quests: 1/5 done · 9+ min left",
      "Talk to Pi · 1/2 done · 3 min left",
      "  1. hello: Say hello (✓ done · 2 min)",
      "  2. steer: Steer a run (↷ skipped · 3 min)",
      "Save your work · 0/2 done · 5+ min left",
    ]);
    expect(h.ui.lastSaid()?.split("\n")[5]).toBe("  3. commit: Commit it (▶ active · 5 min)");
  });

  it("a chapter whose quests are apart in the pack is shown once, where it first appears", async () => {
    const a1 = quest({ version: 2, id: "a1", chapter: "A" });
    const b1 = quest({ version: 2, id: "b1", chapter: "B" });
    const a2 = quest({ version: 2, id: "a2", chapter: "A" });
    const h = await start({ pack: [a1, b1, a2], start: "off" });
    await h.controller.command("list");
    expect(h.ui.lastSaid()?.split("\n")).toEqual([
      "Quests: 0/3 done",
      "A · 0/2 done",
      "  1. a1: a1 (○ available)",
      "  3. a2: a2 (○ available)",
      "B · 0/1 done",
      "  2. b1: b1 (○ available)",
      "Start one with /quest start ID.",
    ]);
  });
});

describe("/quest skip", () => {
  it("marks the active quest skipped (not done) and starts the next available one, which may need it", async () => {
    const h = await helloDone();
    expect((await h.progress()).active?.questId).toBe("steer");
    await h.controller.command("skip");
    const progress = await h.progress();
    expect(progress.skipped).toEqual({ steer: { at: NOW.toISOString() } });
    expect(Object.keys(progress.completed)).toEqual(["hello"]);
    expect(h.named(QUEST_COMPLETED_EVENT).map((event) => event.payload.quest)).toEqual(["hello"]);
    // commit needs steer, which is skipped: it opens, and says what to do first.
    expect(progress.active?.questId).toBe("commit");
    expect(h.ui.lastSaid()).toBe(
      [
        `Skipped: Steer a run. ${"It is not done, but quests that build on it open now and say what they need from it;"} /quest start steer takes it up again.`,
        "",
        "Quest 3/5: Commit it",
        "Do commit.",
        'This quest builds on "Steer a run", which you skipped: what it left behind may be missing here. If you get stuck, do it first (/quest start steer), then /quest start commit again.',
        "(/quest hint if you are stuck)",
      ].join("\n"),
    );
    expect(h.evaluators.runs.at(-1)?.quest).toBe("commit");
    expect(h.ui.lastHud()).toMatchObject({ kind: "active", title: "Commit it", position: 3 });
  });

  it("a quest that requires a skipped one can be started, and says what to do first", async () => {
    const h = await helloDone();
    await h.controller.command("skip");
    await h.controller.command("start notes");
    await h.controller.command("start commit");
    expect(h.ui.lastSaid()).toBe(
      [
        "Quest started: Commit it",
        "",
        "Do commit.",
        'This quest builds on "Steer a run", which you skipped: what it left behind may be missing here. If you get stuck, do it first (/quest start steer), then /quest start commit again.',
      ].join("\n"),
    );
    expect((await h.progress()).active?.questId).toBe("commit");
    // Locked still means locked: a requirement neither done nor skipped.
    const fresh = await start({ pack: CHAPTERS, start: "off" });
    await fresh.controller.command("start commit");
    expect(fresh.ui.lastSaid()).toBe('"Commit it" needs steer first (/quest start steer).');
  });

  it("stops a check of the skipped quest that is running: its pass never completes it", async () => {
    const h = await helloDone();
    const run = h.evaluators.hold("steer");
    h.controller.record(turnEndEvent({ assistantTurns: 1 }));
    const started = await run.started;
    const skipping = h.controller.command("skip");
    run.finish(result(STEER, "pass"));
    await skipping;
    await h.controller.idle();
    expect(started.signal?.aborted).toBe(true);
    const progress = await h.progress();
    expect(progress.completed).not.toHaveProperty("steer");
    expect(progress.skipped).toHaveProperty("steer");
    expect(h.named(QUEST_COMPLETED_EVENT).map((event) => event.payload.quest)).toEqual(["hello"]);
  });

  it("skip ID marks another quest skipped and leaves the active one", async () => {
    const h = await helloDone();
    await h.controller.command("skip notes");
    expect(h.ui.lastSaid()).toBe(
      "Skipped: Take notes. It is not done, but quests that build on it open now and say what they need from it; /quest start notes takes it up again.",
    );
    const progress = await h.progress();
    expect(progress.active?.questId).toBe("steer");
    expect(progress.skipped).toEqual({ notes: { at: NOW.toISOString() } });
  });

  it("/quest start on a skipped quest starts it again, and it is no longer skipped", async () => {
    const h = await helloDone();
    await h.controller.command("skip");
    await h.controller.command("start steer");
    expect(h.ui.lastSaid()).toMatch(/^Quest started: Steer a run/);
    const progress = await h.progress();
    expect(progress.active?.questId).toBe("steer");
    expect(progress.skipped).toEqual({});
  });

  it("says why when there is nothing to skip: no active quest, a done, skipped or unknown quest", async () => {
    const h = await helloDone();
    await h.controller.command("skip hello");
    expect(h.ui.lastSaid()).toBe('"Say hello" is done already: there is nothing to skip.');
    await h.controller.command("skip nope");
    expect(h.ui.lastSaid()).toBe('No quest "nope". The quests are: hello, steer, commit, notes, loose');
    await h.controller.command("skip loose");
    await h.controller.command("skip loose");
    expect(h.ui.lastSaid()).toBe('"Anything" is skipped already (/quest start loose takes it up again).');
    const off = await start({ pack: CHAPTERS, start: "off" });
    await off.controller.command("skip");
    expect(off.ui.lastSaid()).toBe(
      "No active quest to skip. /quest skip ID skips another one (see /quest list).",
    );
  });

  it("with nothing else to start, none is active and the HUD counts the skipped quests", async () => {
    const h = await start({ pack: [HELLO, STEER] });
    await h.controller.idle();
    await h.controller.command("skip");
    expect(h.ui.lastSaid()).toBe(
      [
        "Skipped: Say hello. It is not done, but quests that build on it open now and say what they need from it; /quest start hello takes it up again.",
        "",
        "Quest 2/2: Steer a run",
        "Do steer.",
        'This quest builds on "Say hello", which you skipped: what it left behind may be missing here. If you get stuck, do it first (/quest start hello), then /quest start steer again.',
        "(/quest hint if you are stuck)",
      ].join("\n"),
    );
    await h.controller.command("skip");
    expect(h.ui.lastSaid()).toMatch(
      /\nNo other quest can be started now: \/quest list shows where you stand\.$/,
    );
    expect((await h.progress()).active).toBeUndefined();
    expect(h.ui.lastHud()).toEqual({ kind: "idle", done: 0, total: 2, skipped: 2 });
  });

  it("with PI_QUESTS_START=off, nothing starts by itself: the next one is named", async () => {
    const h = await start({ pack: CHAPTERS, start: "off" });
    await h.controller.command("start hello");
    await h.controller.command("skip");
    // steer needs hello, which is skipped: it opens, and is next.
    expect(h.ui.lastSaid()).toMatch(/\nNext: \/quest start steer$/);
    expect((await h.progress()).active).toBeUndefined();
  });

  it("is kept across a restart: the skipped quest does not start by itself again", async () => {
    const first = await helloDone();
    await first.controller.command("skip");
    await first.controller.command("skip");
    await first.controller.dispose();
    const again = await start({ dir: first.dir, pack: CHAPTERS });
    await again.controller.idle();
    expect((await again.progress()).skipped).toEqual({
      steer: { at: NOW.toISOString() },
      commit: { at: NOW.toISOString() },
    });
    expect((await again.progress()).active?.questId).toBe("notes");
  });
});

describe("debriefs", () => {
  it("a completion shows the quest's debrief as Markdown, then the next quest's goal", async () => {
    const h = await helloDone();
    const [completed] = h.ui.calls.filter(
      (call) => call.kind === "notify" && call.message.startsWith("Quest complete: Say hello ✓"),
    );
    expect(completed).toEqual({
      kind: "notify",
      level: "info",
      message: [
        "Quest complete: Say hello ✓",
        "",
        "You talked to Pi: every message starts a *run*.",
        "",
        "Quest 2/5: Steer a run",
        "Do steer.",
        "(/quest hint if you are stuck)",
      ].join("\n"),
      parts: [
        { title: "Quest complete: Say hello ✓" },
        "",
        { markdown: "You talked to Pi: every message starts a *run*.\n" },
        "",
        { title: "Quest 2/5: Steer a run" },
        { markdown: "Do steer." },
        "(/quest hint if you are stuck)",
      ],
    });
  });

  it("the last quest's debrief comes before the congratulation, after a blank line", async () => {
    const h = await start({ pack: [HELLO] });
    await h.controller.idle();
    h.evaluators.verdict("hello", "pass");
    await h.controller.command("check");
    expect(h.ui.notes().at(-1)?.message).toBe(
      "Quest complete: Say hello ✓\n\nYou talked to Pi: every message starts a *run*.\n\nChapter 1 complete: Talk to Pi ✓ (1 of 1 quest done).\nEvery quest is done. Well played!",
    );
  });

  it("a quest without a debrief completes as before", async () => {
    const h = await start({ pack: [NOTES, LOOSE] });
    await h.controller.idle();
    h.evaluators.verdict("notes", "pass");
    await h.controller.command("check");
    expect(h.ui.notes().at(-1)?.message).toMatch(
      /^Quest complete: Take notes ✓\n\nChapter 1 complete: Save your work ✓ \(1 of 1 quest done\)\.\nNext: "Anything"\.\n\nQuest 2\/2: Anything\n/,
    );
  });

  it("/quest debrief ID shows a done quest's debrief again; without ID, the last done quest's", async () => {
    const h = await helloDone();
    await h.controller.command("debrief hello");
    expect(h.ui.lastSaid()).toBe("Debrief: Say hello\n\nYou talked to Pi: every message starts a *run*.");
    expect(h.ui.lastMessage()).toEqual([
      { title: "Debrief: Say hello" },
      "",
      { markdown: "You talked to Pi: every message starts a *run*.\n" },
    ]);
    h.evaluators.verdict("steer", "pass");
    await h.controller.command("check");
    await h.controller.command("debrief");
    expect(h.ui.lastSaid()).toBe("Debrief: Steer a run\n\nSteering queues a message.");
  });

  it("/quest debrief says when a quest is not done, has no debrief, or none is done", async () => {
    const none = await start({ pack: CHAPTERS });
    await none.controller.command("debrief");
    expect(none.ui.lastSaid()).toBe("No quest is done yet: a quest's debrief comes when you complete it.");
    const h = await helloDone();
    await h.controller.command("debrief steer");
    expect(h.ui.lastSaid()).toBe('"Steer a run" is not done yet: its debrief comes when you complete it.');
    await h.controller.command("debrief nope");
    expect(h.ui.lastSaid()).toBe('No quest "nope". The quests are: hello, steer, commit, notes, loose');
    await h.controller.command("start loose");
    h.evaluators.verdict("loose", "pass");
    await h.controller.command("check");
    await h.controller.command("debrief loose");
    expect(h.ui.lastSaid()).toBe('"Anything" has no debrief.');
  });
});

describe("goals as Markdown", () => {
  it("a quest's goal goes to the UI as a Markdown part: when it starts by itself, on /quest start, status and hint", async () => {
    const h = await start({ pack: CHAPTERS });
    await h.controller.idle();
    const goal = { markdown: HELLO.goal };
    expect(h.ui.calls.find((call) => call.kind === "notify")).toMatchObject({
      parts: [{ title: "Quest 1/5: Say hello" }, goal, "(/quest hint if you are stuck)"],
    });
    await h.controller.command("status");
    expect(h.ui.lastMessage()?.slice(1)).toEqual(["", "Goal:", goal]);
    await h.controller.command("hint");
    expect(h.ui.lastMessage()).toEqual(['"Say hello" has no hints. Its goal:', goal]);
    await h.controller.command("start loose");
    expect(h.ui.lastMessage()).toEqual([{ title: "Quest started: Anything" }, "", { markdown: "Do loose." }]);
  });
});

describe("/quest status in the learner's paths", () => {
  it("shows the verifier's worktree paths in a check's summary and output as the workspace's own files", async () => {
    const worktree = "/agent/quests/workspaces/0123456789abcdef/worktrees/".concat("f".repeat(32));
    const failing: QuestResult = {
      quest: "alpha",
      status: "fail",
      counts: { passed: 0, failed: 1, pending: 0 },
      checks: [
        {
          id: "asked",
          type: "command",
          status: "fail",
          describe: "You asked",
          evidence: {
            kind: "command",
            summary: "exit code 1, expected = 0",
            script: "alpha/asked",
            cwd: "/work/project",
            isolation: "worktree",
            exitCode: 1,
            output: `AssertionError: 1 == 2\n    at (${worktree}/test/add.test.js:4:3)\n`,
            verification: {
              runDir: "/agent/quests/workspaces/0123456789abcdef/runs/r1",
              worktree,
              repository: "/work/project",
              baseline: BASELINE,
              head: BASELINE,
              patchSha256: "0".repeat(64),
              patchBytes: 0,
              restored: [],
              manifestsMerged: [],
              removedConfigs: [],
              cleanup: { ok: true },
            },
          },
        },
      ],
    };
    const evaluators = scriptedEvaluators();
    evaluators.respond("alpha", failing);
    const h = await start({ evaluators, workspace: "/work/project" });
    await h.controller.idle();
    await h.controller.command("status --details");
    const said = h.ui.lastSaid() ?? "";
    expect(said).toContain("      |     at (test/add.test.js:4:3)");
    expect(said).not.toContain("/worktrees/");
    // What is kept is what the run printed.
    expect(JSON.stringify((await h.progress()).lastResult)).toContain(`${worktree}/test/add.test.js`);
  });
});
