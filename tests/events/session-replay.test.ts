/**
 * A saved session replayed: the same messages and entries Pi wrote live give the same events,
 * with the turn and run boundaries read from the messages (a file does not store them), and the
 * entries Pi wrote without an event (the setup before the first message, repeats) skipped.
 */
import type { NestedToolCallRecord } from "@earendil-works/pi-ai";
import { describe, expect, it } from "vitest";
import type { PiEvent } from "../../src/events/names.ts";
import { replaySession } from "../../src/events/session-replay.ts";
import { createPiEventTranslator } from "../../src/events/translator.ts";
import { assistant, bashExecution, toolCall, toolResult, user } from "../support/pi-messages.ts";

const HEADER = { sessionId: "s-1", cwd: "/p" };

describe("replaySession", () => {
  it("gives the events the live extension recorded for the same messages, less Pi's turn index", () => {
    const prompt = user("Create hello.txt");
    const writes = assistant([toolCall("c1", "write", { path: "hello.txt", content: "hi\n" })]);
    const written = toolResult("c1", "write");
    const done = assistant([{ type: "text", text: "Done." }]);

    // Live: Pi's events in the order Pi emits them.
    const live = createPiEventTranslator();
    const recorded: (PiEvent | undefined)[] = [
      live.sessionStart(HEADER),
      live.messageEnd(prompt),
      live.messageEnd(writes),
      live.messageEnd(written),
      live.turnEnd({ turnIndex: 0 }),
      live.messageEnd(done),
      live.turnEnd({ turnIndex: 1 }),
      live.agentEnd(),
    ];
    const withoutTurnIndex = recorded
      .filter((event) => event !== undefined)
      .map(({ name, payload: { turnIndex: _, ...payload } }) => ({ name, payload }));

    expect(replaySession(HEADER, [prompt, writes, written, done])).toEqual(withoutTurnIndex);
    expect(withoutTurnIndex.map((event) => event.name)).toEqual([
      "session_start",
      "input",
      "tool_result",
      "turn_end",
      "turn_end",
      "agent_end",
    ]);
  });

  it("ends the run after an error or an abort even with tool calls (a failed reply counts as no answer; an aborted one does), and closes a turn a `!` command follows", () => {
    const events = replaySession(HEADER, [
      user("Go"),
      assistant([toolCall("c1", "ls", {})], "error"),
      user("Again"),
      assistant([toolCall("c2", "ls", {})], "aborted"),
      bashExecution("git status", 0),
    ]);
    expect(
      events.map(({ name, payload }) => [name, payload.assistantTurns ?? payload.text ?? payload.command]),
    ).toEqual([
      ["session_start", undefined],
      ["input", "Go"],
      ["turn_end", 0],
      ["agent_end", 0],
      ["input", "Again"],
      ["turn_end", 1],
      ["agent_end", 1],
      ["user_bash", "git status"],
    ]);
  });

  it("closes a session that ends mid-run with a turn_end and no agent_end", () => {
    const events = replaySession(HEADER, [assistant([toolCall("c1", "ls", {})]), toolResult("c1", "ls")]);
    expect(events.at(-1)).toEqual({ name: "turn_end", payload: { assistantTurns: 1 } });
  });
});

const modelChange = (provider: string, modelId: string) =>
  ({ type: "model_change", provider, modelId }) as const;
const thinking = (thinkingLevel: string) => ({ type: "thinking_level_change", thinkingLevel }) as const;
const named = (name?: string) => ({ type: "session_info", ...(name === undefined ? {} : { name }) }) as const;
/** What Pi writes before a new session's first message: its model and thinking level. */
const SETUP = [modelChange("anthropic", "claude-a"), thinking("off")] as const;
const hello = [user("Hi"), assistant([{ type: "text", text: "Hello." }])] as const;

const names = (events: readonly PiEvent[]) => events.map((event) => event.name);
const without = (events: readonly PiEvent[], ...skip: string[]) =>
  events.filter((event) => !skip.includes(event.name));

describe("replaySession: the session's header", () => {
  it("gives session_start the parent session a fork's header names, and no reason", () => {
    const [start] = replaySession({ ...HEADER, parentSession: "/sessions/parent.jsonl" }, []);
    expect(start).toEqual({
      name: "session_start",
      payload: { sessionId: "s-1", cwd: "/p", parentSession: "/sessions/parent.jsonl" },
    });
  });
});

describe("replaySession: the entries Pi writes before a session starts", () => {
  it("are not events: the model and thinking level a new session starts with", () => {
    expect(names(replaySession(HEADER, [...SETUP, ...hello]))).toEqual([
      "session_start",
      "input",
      "turn_end",
      "agent_end",
    ]);
  });

  it("nor the name `pi --name` gives the session, written before them", () => {
    expect(names(replaySession(HEADER, [named("My run"), ...SETUP, ...hello]))).toEqual([
      "session_start",
      "input",
      "turn_end",
      "agent_end",
    ]);
  });

  it("but a model, level or name set before the first message is an event", () => {
    const events = replaySession(HEADER, [
      named("My run"),
      ...SETUP,
      modelChange("anthropic", "claude-b"),
      thinking("high"),
      named("Renamed"),
      ...hello,
    ]);
    expect(without(events, "turn_end", "agent_end")).toEqual([
      { name: "session_start", payload: HEADER },
      { name: "model_select", payload: { provider: "anthropic", modelId: "claude-b" } },
      { name: "thinking_level_select", payload: { level: "high" } },
      { name: "session_name", payload: { name: "Renamed" } },
      { name: "input", payload: { text: "Hi" } },
    ]);
  });

  it("a session without a model at its start has only the thinking level before its first message", () => {
    const events = replaySession(HEADER, [thinking("off"), modelChange("openai", "gpt-x"), ...hello]);
    expect(events[1]).toEqual({ name: "model_select", payload: { provider: "openai", modelId: "gpt-x" } });
  });

  it("nor the level Pi adds when it resumes an older Pi's session that had none", () => {
    const events = replaySession(HEADER, [...hello, thinking("medium"), thinking("high")]);
    expect(without(events, "turn_end", "agent_end", "input")).toEqual([
      { name: "session_start", payload: HEADER },
      { name: "thinking_level_select", payload: { level: "high" } },
    ]);
  });

  it("only before the first message: a file that starts with a message has no setup to skip", () => {
    const events = replaySession(HEADER, [
      { type: "message" },
      modelChange("anthropic", "claude-a"),
      ...hello,
    ]);
    expect(names(events).slice(0, 2)).toEqual(["session_start", "model_select"]);
  });
});

describe("replaySession: a model or thinking level Pi wrote again without announcing it", () => {
  it("is skipped: equal to the previous one of its kind, the setup's included", () => {
    const events = replaySession(HEADER, [
      ...SETUP,
      ...hello,
      // set_model to the model already selected: Pi writes it, and announces nothing.
      modelChange("anthropic", "claude-a"),
      modelChange("anthropic", "claude-b"),
      // Pi re-recording the branch's model at a run's start.
      modelChange("anthropic", "claude-b"),
      thinking("off"),
      thinking("high"),
      thinking("high"),
      // The same model id from another provider is another model.
      modelChange("bedrock", "claude-b"),
      modelChange("anthropic", "claude-a"),
    ]);
    expect(without(events, "session_start", "input", "turn_end", "agent_end")).toEqual([
      { name: "model_select", payload: { provider: "anthropic", modelId: "claude-b" } },
      { name: "thinking_level_select", payload: { level: "high" } },
      { name: "model_select", payload: { provider: "bedrock", modelId: "claude-b" } },
      { name: "model_select", payload: { provider: "anthropic", modelId: "claude-a" } },
    ]);
  });

  it("a model switch that changes the level reads model, then level, as live", () => {
    const live = createPiEventTranslator();
    live.sessionStart({ ...HEADER, model: { provider: "anthropic", id: "claude-a" } });
    // Pi announces the level first, while its model is already the new one.
    const held = live.thinkingLevelSelect("high", { provider: "anthropic", id: "claude-b" });
    const recorded = [held, ...live.modelSelect({ provider: "anthropic", id: "claude-b", source: "set" })]
      .filter((event) => event !== undefined)
      .map(({ name, payload: { source: _, ...payload } }) => ({ name, payload }));

    const replayed = replaySession(HEADER, [
      ...SETUP,
      modelChange("anthropic", "claude-b"),
      thinking("high"),
    ]);
    expect(replayed.slice(1)).toEqual(recorded);
  });
});

describe("replaySession: compaction, /tree, labels and the session's name", () => {
  it("reads each entry as the event Pi announced for it", () => {
    const events = replaySession(HEADER, [
      ...SETUP,
      ...hello,
      { type: "compaction", summary: "The user said hi." },
      { type: "branch_summary", summary: "Tried another greeting." },
      { type: "label", targetId: "e7", label: "checkpoint" },
      { type: "label", targetId: "e7" },
      named("Greetings"),
      named(),
      named("   "),
    ]);
    expect(events.slice(4)).toEqual([
      { name: "session_compact", payload: { summary: "The user said hi." } },
      { name: "session_tree", payload: { summarized: true, summary: "Tried another greeting." } },
      { name: "label", payload: { label: "checkpoint", entryId: "e7" } },
      // Cleared: Pi writes no label, or no name (or a blank one).
      { name: "label", payload: { label: null, entryId: "e7" } },
      { name: "session_name", payload: { name: "Greetings" } },
      { name: "session_name", payload: { name: null } },
      { name: "session_name", payload: { name: null } },
    ]);
  });

  it("gives the same payloads as live, less what only live knows", () => {
    const live = createPiEventTranslator();
    const recorded = [
      live.sessionCompact({ summary: "S", reason: "manual" }),
      live.sessionTree({ summary: "B" }),
      live.sessionName("N"),
      ...live.labels([{ type: "label", targetId: "e1", label: "L" } as never]),
    ].map(({ name, payload: { reason: _, ...payload } }) => ({ name, payload }));
    const replayed = replaySession(HEADER, [
      { type: "compaction", summary: "S" },
      { type: "branch_summary", summary: "B" },
      named("N"),
      { type: "label", targetId: "e1", label: "L" },
    ]);
    expect(replayed.slice(1)).toEqual(recorded);
  });

  it("an entry between turns comes after the turn's end, as live (Pi was idle, or at the boundary)", () => {
    const events = replaySession(HEADER, [
      user("Go"),
      assistant([toolCall("c1", "ls", {})]),
      toolResult("c1", "ls"),
      { type: "compaction", summary: "S" },
      assistant([{ type: "text", text: "Done." }]),
      modelChange("anthropic", "claude-b"),
    ]);
    expect(names(events)).toEqual([
      "session_start",
      "input",
      "tool_result",
      "turn_end",
      "session_compact",
      "turn_end",
      "agent_end",
      "model_select",
    ]);
  });

  it("one a tool wrote while it ran comes before the tool's result and the turn's end, as live", () => {
    const events = replaySession(HEADER, [
      user("Go"),
      assistant([toolCall("c1", "bookmark", {}), toolCall("c2", "ls", {})]),
      toolResult("c1", "bookmark"),
      { type: "label", targetId: "e1", label: "here" },
      toolResult("c2", "ls"),
      assistant([{ type: "text", text: "Done." }]),
    ]);
    expect(names(events)).toEqual([
      "session_start",
      "input",
      "tool_result",
      "label",
      "tool_result",
      "turn_end",
      "turn_end",
      "agent_end",
    ]);
  });
});

describe("replaySession: nested tool calls", () => {
  const nested = (calls: NestedToolCallRecord[]) => ({
    ...toolResult("c1", "codemode"),
    nestedCalls: { calls, complete: calls.every((call) => call.status !== "unfinished") },
  });

  it("reads each call a tool made, before the tool's own result, with its caller", () => {
    const events = replaySession(HEADER, [
      assistant([toolCall("c1", "codemode", { script: "…" })]),
      nested([
        { id: "c1/1", name: "read", arguments: { path: "a.txt" }, status: "ok", durationMs: 2 },
        // Made by the nested read: deeper id, the nested call as its caller.
        { id: "c1/1/1", name: "ls", arguments: {}, status: "error", error: "boom" },
        // Arguments over Pi's size limit: left out, with their size.
        { id: "c1/2", name: "write", argumentsBytes: 9000, status: "ok" },
        // Never finished: no outcome.
        { id: "c1/3", name: "bash", arguments: { command: "sleep 9" }, status: "unfinished" },
      ]),
    ]);
    expect(events.slice(1, 6).map((event) => event.payload)).toStrictEqual([
      {
        toolName: "read",
        toolCallId: "c1/1",
        isError: false,
        input: { path: "a.txt" },
        parentToolCallId: "c1",
      },
      { toolName: "ls", toolCallId: "c1/1/1", isError: true, input: {}, parentToolCallId: "c1/1" },
      { toolName: "write", toolCallId: "c1/2", isError: false, parentToolCallId: "c1" },
      { toolName: "bash", toolCallId: "c1/3", input: { command: "sleep 9" }, parentToolCallId: "c1" },
      { toolName: "codemode", toolCallId: "c1", isError: false, input: { script: "…" } },
    ]);
  });

  it("gives the events live recording gave for the same calls", () => {
    const calling = assistant([toolCall("c1", "codemode", { script: "…" })]);
    const live = createPiEventTranslator();
    live.sessionStart(HEADER);
    live.messageEnd(calling);
    live.toolExecutionStart({ toolCallId: "c1", args: { script: "…" } });
    live.toolExecutionStart({ toolCallId: "c1/1", args: { path: "a.txt" } });
    const recorded = [
      ...live.toolExecutionEnd({
        toolCallId: "c1/1",
        toolName: "read",
        isError: false,
        durationMs: 2,
        parentToolCallId: "c1",
      }),
      ...live.toolExecutionEnd({ toolCallId: "c1", toolName: "codemode", isError: false, durationMs: 5 }),
      live.messageEnd(toolResult("c1", "codemode")),
      live.turnEnd({}),
    ];
    const replayed = replaySession(HEADER, [
      calling,
      nested([{ id: "c1/1", name: "read", arguments: { path: "a.txt" }, status: "ok", durationMs: 2 }]),
    ]);
    expect(replayed.slice(1)).toEqual(recorded);
  });
});
