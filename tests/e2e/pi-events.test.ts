/**
 * Every version 2 event (the contract: /work/shared/quest-format.md, "Recorded events (version
 * 2)") from one real `pi --mode rpc`: offline, with a session file, the two-model scripted model
 * (fixtures/pi/scripted-model.ts), pi-quests and the test controls (fixtures/pi/test-controls.ts:
 * nested tool calls, /tree navigation, labels and a blocker, which RPC has no command for).
 *
 * One scenario, driven in order: nested tool calls with AGENTS.md and a skill loaded; a model
 * set, a thinking level, a model cycled, a session name; a `!` command, which alone completes
 * the first quest of fixtures/packs/events-v2 (it triggers an evaluation); a slow turn steered
 * and given a follow-up; a label set and cleared; a summarized tree navigation; a compaction; an
 * aborted run; a blocked `rm -rf`; then a fork and a new session, which complete the pack.
 *
 * Then the recorded events, each with its payload, and parity: for each session, the live events
 * against the ones its session file gives (src/cli/session-file.ts), field by field, with the
 * fields and events only a live recording can know left out, and the two documented reading
 * differences asserted where they are: the file's extra agent_end before a follow-up, and a
 * fork's file that replays the history it copied.
 */
import { readFileSync, realpathSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SUMMARY_TEXT } from "../../fixtures/pi/scripted-model.ts";
import { BLOCK_REASON } from "../../fixtures/pi/test-controls.ts";
import { parseSessionFile } from "../../src/cli/session-file.ts";
import { readEventLog } from "../../src/events/log-reader.ts";
import type { VerifierEvent } from "../../src/events/schema.ts";
import { REPO } from "../support/cli.ts";
import { asFileGivesIt } from "../support/live-only.ts";
import {
  closeAllPis,
  command,
  dataFolderOf,
  type PiRpc,
  type RpcLine,
  type ScriptedTurn,
  startPiRpc,
  TEST_CONTROLS,
} from "../support/pi-rpc.ts";
import { agentSealer } from "../support/seal.ts";
import { makeWorkspace } from "../support/workspace.ts";

const PACK = join(REPO, "fixtures/packs/events-v2");
/** A bound for each wait on Pi: a step that should take a moment, with room for a slow machine. */
const STEP_MS = 15_000;

/** What the compaction is told to keep (`/compact <text>`): live only, so the file cannot give it. */
const COMPACT_INSTRUCTIONS = "Keep the file names";

const SAY = {
  nest: "Read the notes",
  template: "/greet Ada",
  slow: "Take your time",
  steer: "Steer: be quick",
  followUp: "Then say bye",
  abort: "Think forever",
  blocked: "Clean the build",
  fork: "Hello from the fork",
  fresh: "Hello again",
};

const SCRIPT: ScriptedTurn[] = [
  // SAY.nest: one tool that reads two files through the read tool.
  { tools: [{ name: "nest", arguments: { paths: ["notes.txt", "AGENTS.md"] } }] },
  { text: "I read both." },
  // SAY.template: a prompt template, expanded before the model sees it.
  { text: "Hello, Ada." },
  // SAY.slow: a slow tool call (the steer and the follow-up are sent meanwhile), the answer to
  // the steer (delivered after the tool), then the one to the follow-up (when it would stop).
  { delayMs: 2_000, tools: [{ name: "bash", arguments: { command: "echo slow" } }] },
  { text: "Steered." },
  { text: "Followed up." },
  // SAY.abort: never answers before the abort.
  { delayMs: 60_000, text: "Never said." },
  // SAY.blocked: test-controls blocks it.
  { tools: [{ name: "bash", arguments: { command: "rm -rf build" } }] },
  { text: "It was blocked." },
  { text: "Hi from the fork." },
  { text: "Hi from the new session." },
];

type Comparable = { name: string; payload: Record<string, unknown> };
type SessionState = { sessionFile: string; sessionId: string };
type Entry = { type: string; id: string; message?: { role: string; content?: unknown }; summary?: string };

/** What the scenario leaves for the assertions. */
type Run = {
  workspace: string;
  events: VerifierEvent[];
  sessions: { first: SessionState; fork: SessionState; fresh: SessionState };
  labelledEntry: string;
  compactSummary: string;
  /** Each quest's completion: whether it came right after the step that should complete it. */
  completed: { byBash: boolean; byBlocked: boolean; byNewSession: boolean };
  notCompleteBeforeBash: boolean;
  hudAfterBash: string[] | undefined;
  hudAtEnd: string[] | undefined;
};

const isNotification = (line: RpcLine, text: string) =>
  line.type === "extension_ui_request" && line.method === "notify" && String(line.message).startsWith(text);

/** Whether a notification starting with `text` comes (from index `from` on) within STEP_MS. */
const notified = (pi: PiRpc, text: string, from: number) =>
  pi
    .waitFor((line) => isNotification(line, text), from, STEP_MS)
    .then(
      () => true,
      () => false,
    );

async function state(pi: PiRpc): Promise<SessionState> {
  return (await pi.request({ type: "get_state" })).data as SessionState;
}

/** Sends a prompt that starts a slow run and waits until its first turn has started. */
async function startSlowRun(pi: PiRpc, message: string): Promise<number> {
  const from = pi.lines.length;
  const response = await pi.request({ type: "prompt", message });
  expect(response.data).toEqual({ disposition: "started" });
  await pi.waitFor((line) => line.type === "turn_start", from, STEP_MS);
  return from;
}

const messageText = (entry: Entry) => {
  const content = entry.message?.content;
  if (typeof content === "string") return content;
  return Array.isArray(content) ? content.map((block: { text?: string }) => block.text ?? "").join("") : "";
};

async function runScenario(): Promise<Run> {
  const workspace = makeWorkspace({
    "AGENTS.md": "# House rules\n\nKeep answers short.\n",
    ".pi/skills/greeter/SKILL.md":
      "---\nname: greeter\ndescription: Greets the learner.\n---\n\nSay hello.\n",
    "notes.txt": "Some notes.\n",
    ".pi/prompts/greet.md": "---\ndescription: Greet someone\n---\nSay hello to $1 politely.\n",
  });
  // keepRecentTokens 1: a small session can be compacted. Project trust "always": RPC cannot ask,
  // and the skill in .pi/skills loads only in a trusted project.
  const agentDir = makeWorkspace({
    "settings.json": JSON.stringify({ compaction: { keepRecentTokens: 1 }, defaultProjectTrust: "always" }),
  });
  const pi = startPiRpc({
    workspace,
    agentDir,
    pack: PACK,
    session: true,
    extensions: [TEST_CONTROLS],
    script: SCRIPT,
  });
  await pi.settled();
  await pi.request({ type: "set_auto_retry", enabled: false });
  const first = await state(pi);

  // Nested tool calls; AGENTS.md and the skill are in the run's context.
  await pi.prompt(SAY.nest);
  // A prompt template: the model gets its expansion, the learner typed the command.
  await pi.prompt(SAY.template);
  // Models and thinking: scripted-2 reasons; cycling back to scripted-1 turns thinking off.
  await pi.request({ type: "set_model", provider: "scripted", modelId: "scripted-2" });
  await pi.request({ type: "set_thinking_level", level: "high" });
  const cycled = await pi.request({ type: "cycle_model" });
  expect(cycled.data).toMatchObject({ model: { id: "scripted-1" }, thinkingLevel: "off" });
  await pi.request({ type: "set_session_name", name: "events run" });
  await pi.settled();
  const notCompleteBeforeBash = !pi.notifications().some((text) => text.startsWith("Quest complete:"));

  // A `!` command, and nothing after it: the first quest needs only its user_bash now.
  let from = pi.lines.length;
  await pi.request({ type: "bash", command: "echo hi" });
  const byBash = await notified(pi, "Quest complete: Change how Pi works ✓", from);
  await pi.settled();
  const hudAfterBash = pi.hud().widget;

  // A slow turn, steered and given a follow-up while it runs.
  from = await startSlowRun(pi, SAY.slow);
  expect((await pi.request({ type: "steer", message: SAY.steer })).data).toEqual({ disposition: "queued" });
  expect((await pi.request({ type: "follow_up", message: SAY.followUp })).data).toEqual({
    disposition: "queued",
  });
  await pi.waitFor((line) => line.type === "agent_settled", from, STEP_MS);

  // A label on the last assistant entry, set and cleared.
  const [labelled = ""] = await command(pi, "/test-label x");
  const labelledEntry = /^test-controls: labelled (\S+)$/.exec(labelled)?.[1] ?? "";
  expect(labelledEntry).not.toBe("");
  expect(await command(pi, "/test-unlabel")).toEqual([`test-controls: unlabelled ${labelledEntry}`]);

  // Back to the end of the first run, with a summary of what is left behind.
  const { entries } = (await pi.request({ type: "get_entries" })).data as { entries: Entry[] };
  const target = entries.find(
    (entry) => entry.message?.role === "assistant" && messageText(entry) === "I read both.",
  );
  expect(target).toBeDefined();
  expect(await command(pi, `/test-tree ${target?.id} summarize`)).toEqual([
    `test-controls: tree ${target?.id} done`,
  ]);

  const compacted = await pi.request({ type: "compact", customInstructions: COMPACT_INSTRUCTIONS });
  const compactSummary = (compacted.data as { summary: string }).summary;

  // A run stopped while the model is still answering.
  from = await startSlowRun(pi, SAY.abort);
  await pi.request({ type: "abort" });
  await pi.waitFor((line) => line.type === "agent_settled", from, STEP_MS);

  // test-controls blocks `rm -rf`; the run goes on without it.
  from = pi.lines.length;
  await pi.prompt(SAY.blocked);
  const byBlocked = await notified(pi, "Quest complete: Steer a run and manage the session ✓", from);

  // A fork before the blocked prompt: a new session file that copies the history up to there.
  const forkable = (await pi.request({ type: "get_fork_messages" })).data as {
    messages: { entryId: string; text: string }[];
  };
  const forkAt = forkable.messages.find((message) => message.text === SAY.blocked);
  expect(forkAt).toBeDefined();
  expect((await pi.request({ type: "fork", entryId: forkAt?.entryId })).data).toEqual({
    text: SAY.blocked,
    cancelled: false,
  });
  const fork = await state(pi);
  await pi.prompt(SAY.fork);

  from = pi.lines.length;
  expect((await pi.request({ type: "new_session" })).data).toEqual({ cancelled: false });
  const byNewSession = await notified(pi, "Quest complete: Fork and start over ✓", from);
  const fresh = await state(pi);
  await pi.prompt(SAY.fresh);
  await pi.settled();
  const hudAtEnd = pi.hud().widget;
  expect(await pi.close()).toBe(0);

  const read = await readEventLog(
    join(dataFolderOf(agentDir, workspace), "events.jsonl"),
    agentSealer(agentDir, "events", workspace),
    "strict",
  );
  if (!read.ok) throw new Error(JSON.stringify(read.diagnostics));
  expect(read.warnings).toEqual([]);
  return {
    workspace: realpathSync(workspace),
    events: read.events,
    sessions: { first, fork, fresh },
    labelledEntry,
    compactSummary,
    completed: { byBash, byBlocked, byNewSession },
    notCompleteBeforeBash,
    hudAfterBash,
    hudAtEnd,
  };
}

let run: Run;
beforeAll(async () => {
  run = await runScenario();
}, 120_000);
afterAll(closeAllPis);

const ofSession = (id: string) => run.events.filter((event) => event.sessionId === id);
const payloads = (events: readonly Comparable[], name: string) =>
  events.filter((event) => event.name === name).map((event) => event.payload);

/** A live event as a session file can give it: no seq, no live-only field. */
const comparable = (events: VerifierEvent[]): Comparable[] => asFileGivesIt(events);

/** The events parseSessionFile reads from `text`, without seq; all of them of session `sessionId`. */
function fromFile(text: string, file: string, sessionId: string): Comparable[] {
  const parsed = parseSessionFile(text, file);
  if (!parsed.ok) throw new Error(`${file}: ${JSON.stringify(parsed.errors)}`);
  expect(parsed.sessionId).toBe(sessionId);
  expect(parsed.events.every((event) => event.sessionId === sessionId)).toBe(true);
  return parsed.events.map(({ name, payload }) => ({ name, payload }));
}

const sessionFileEntries = (file: string): Entry[] =>
  readFileSync(file, "utf8")
    .split("\n")
    .filter((line) => line.trim() !== "")
    .map((line) => JSON.parse(line) as Entry);

describe("the version 2 events of a real pi over RPC", () => {
  it("records each event with its payload", () => {
    const { first, fork, fresh } = run.sessions;
    const events = ofSession(first.sessionId);
    const cwd = run.workspace;

    expect(payloads(events, "session_start")).toEqual([
      { sessionId: first.sessionId, cwd, reason: "startup" },
    ]);
    const idle = (text: string) => ({ text, rawText: text, source: "rpc" });
    expect(payloads(events, "input")).toEqual([
      idle(SAY.nest),
      { text: "Say hello to Ada politely.", rawText: SAY.template, source: "rpc" },
      idle(SAY.slow),
      { ...idle(SAY.steer), streamingBehavior: "steer" },
      { ...idle(SAY.followUp), streamingBehavior: "followUp" },
      idle(SAY.abort),
      idle(SAY.blocked),
    ]);
    // Loaded for every run; the same files and skills each time.
    const loaded = payloads(events, "context_loaded");
    expect(loaded.length).toBeGreaterThan(0);
    for (const context of loaded) {
      expect(context).toEqual({ contextFiles: [join(cwd, "AGENTS.md")], skills: ["greeter"] });
    }

    // The nested reads come before the result of the tool that made them, with its id.
    const results = payloads(events, "tool_result");
    const nest = results.find((result) => result.toolName === "nest");
    const parent = String(nest?.toolCallId);
    expect(results).toEqual([
      {
        toolName: "read",
        toolCallId: `${parent}/1`,
        isError: false,
        input: { path: "notes.txt" },
        parentToolCallId: parent,
      },
      {
        toolName: "read",
        toolCallId: `${parent}/2`,
        isError: false,
        input: { path: "AGENTS.md" },
        parentToolCallId: parent,
      },
      { toolName: "nest", toolCallId: parent, isError: false, input: { paths: ["notes.txt", "AGENTS.md"] } },
      { toolName: "bash", toolCallId: expect.any(String), isError: false, input: { command: "echo slow" } },
      // The blocked call never ran: its result is the error Pi gives it.
      { toolName: "bash", toolCallId: expect.any(String), isError: true, input: { command: "rm -rf build" } },
    ]);
    expect(payloads(events, "tool_blocked")).toEqual([
      { toolName: "bash", input: { command: "rm -rf build" }, reason: BLOCK_REASON },
    ]);

    // Runs: the nested reads (2 assistant messages so far), the template (1), the steered one with
    // its follow-up (3 more), the aborted one (1), the blocked one (2).
    expect(payloads(events, "agent_end")).toEqual([
      { assistantTurns: 2, aborted: false },
      { assistantTurns: 3, aborted: false },
      { assistantTurns: 6, aborted: false },
      { assistantTurns: 7, aborted: true },
      { assistantTurns: 9, aborted: false },
    ]);

    // A model change, then the thinking level it brings, in the order the file has them; each
    // the learner's own (RPC's set_model, set_thinking_level, cycle_model).
    expect(
      events
        .filter((event) => event.name === "model_select" || event.name === "thinking_level_select")
        .map((event) => [event.name, event.payload]),
    ).toEqual([
      ["model_select", { provider: "scripted", modelId: "scripted-2", source: "set", origin: "learner" }],
      ["thinking_level_select", { level: "high", origin: "learner" }],
      ["model_select", { provider: "scripted", modelId: "scripted-1", source: "cycle", origin: "learner" }],
      ["thinking_level_select", { level: "off", origin: "learner" }],
    ]);
    expect(payloads(events, "session_name")).toEqual([{ name: "events run", origin: "learner" }]);
    expect(payloads(events, "user_bash")).toEqual([
      { command: "echo hi", exitCode: 0, excludeFromContext: false },
    ]);
    expect(payloads(events, "label")).toEqual([
      { label: "x", entryId: run.labelledEntry },
      { label: null, entryId: run.labelledEntry },
    ]);
    const branchSummary = sessionFileEntries(first.sessionFile).find(
      (entry) => entry.type === "branch_summary",
    );
    expect(branchSummary?.summary).toContain(SUMMARY_TEXT);
    expect(payloads(events, "session_tree")).toEqual([{ summarized: true, summary: branchSummary?.summary }]);
    expect(run.compactSummary).toContain(SUMMARY_TEXT);
    expect(payloads(events, "session_compact")).toEqual([
      { reason: "manual", summary: run.compactSummary, instructions: COMPACT_INSTRUCTIONS },
    ]);

    // The fork names the session it came from; a new session does not.
    expect(payloads(ofSession(fork.sessionId), "session_start")).toEqual([
      { sessionId: fork.sessionId, cwd, reason: "fork", parentSession: first.sessionFile },
    ]);
    expect(payloads(ofSession(fresh.sessionId), "session_start")).toEqual([
      { sessionId: fresh.sessionId, cwd, reason: "new" },
    ]);
    // Nothing was recorded under any other session id.
    expect(new Set(run.events.map((event) => event.sessionId))).toEqual(
      new Set([first.sessionId, fork.sessionId, fresh.sessionId]),
    );
  });

  it("a ! command alone completes a quest that needs it; the pack completes in the HUD", () => {
    expect(run.notCompleteBeforeBash).toBe(true);
    expect(run.completed.byBash).toBe(true);
    expect(run.hudAfterBash?.[0]).toBe("Quest 2/3: Steer a run and manage the session");
    expect(run.completed.byBlocked).toBe(true);
    expect(run.completed.byNewSession).toBe(true);
    expect(run.hudAtEnd).toEqual(["Quests 3/3 done. Well played!"]);
  });

  it("the first session's file gives its live events, with one more agent_end before the follow-up", () => {
    const { first } = run.sessions;
    const file = fromFile(readFileSync(first.sessionFile, "utf8"), first.sessionFile, first.sessionId);
    // The file cannot tell that the run went on with the follow-up: it reads an agent_end after
    // the answer to the steer (the 5th assistant message), which the live run never had.
    const followUp = file.findIndex((event) => event.name === "input" && event.payload.text === SAY.followUp);
    expect(followUp).toBeGreaterThan(0);
    expect(file[followUp - 1]).toEqual({ name: "agent_end", payload: { assistantTurns: 5 } });
    expect([...file.slice(0, followUp - 1), ...file.slice(followUp)]).toEqual(
      comparable(ofSession(first.sessionId)),
    );
  });

  it("the fork's file replays the history it copied, then gives the fork's live events", () => {
    const { first, fork } = run.sessions;
    const parentIds = new Set(sessionFileEntries(first.sessionFile).map((entry) => entry.id));
    const [header = "", ...lines] = readFileSync(fork.sessionFile, "utf8")
      .split("\n")
      .filter((line) => line.trim() !== "");
    // The entries Pi copied keep their ids; the fork's own come after them.
    const copied = lines.findIndex((line) => !parentIds.has((JSON.parse(line) as Entry).id));
    expect(copied).toBeGreaterThan(0);
    const history = fromFile([header, ...lines.slice(0, copied)].join("\n"), "copied", fork.sessionId);
    expect(payloads(history, "input")).toEqual([{ text: SAY.nest }, { text: SAY.abort }]);

    const file = fromFile(readFileSync(fork.sessionFile, "utf8"), fork.sessionFile, fork.sessionId);
    const [start, ...live] = comparable(ofSession(fork.sessionId));
    expect(live.map((event) => event.name)).toEqual(["input", "turn_end", "agent_end"]);
    expect(file).toEqual([start, ...history.slice(1), ...live]);
  });

  it("the new session's file gives exactly its live events", () => {
    const { fresh } = run.sessions;
    const file = fromFile(readFileSync(fresh.sessionFile, "utf8"), fresh.sessionFile, fresh.sessionId);
    expect(file).toEqual(comparable(ofSession(fresh.sessionId)));
  });
});
