/** The recorded events' table: each name with the payload it is recorded with. */
import { describe, expect, it } from "vitest";
import {
  agentEndEvent,
  contextLoadedEvent,
  EVALUATION_TRIGGERS,
  inputEvent,
  LIFECYCLE_EVENTS,
  labelEvent,
  messageText,
  modelSelectEvent,
  PI_EVENTS,
  QUEST_ACTIVATED_EVENT,
  QUEST_COMPLETED_EVENT,
  questActivatedEvent,
  questCompletedEvent,
  recordedEvent,
  sessionCompactEvent,
  sessionNameEvent,
  sessionStartEvent,
  sessionTreeEvent,
  turnEndEvent,
  userBashEvent,
} from "../../src/events/names.ts";

describe("payload builders", () => {
  it("adds turnIndex only when Pi gave one", () => {
    expect(turnEndEvent({ assistantTurns: 2 })).toEqual({ name: "turn_end", payload: { assistantTurns: 2 } });
    expect(turnEndEvent({ assistantTurns: 2, turnIndex: 0 })).toEqual({
      name: "turn_end",
      payload: { assistantTurns: 2, turnIndex: 0 },
    });
  });

  it("records a command without an exit code as null, and ! commands as kept in context", () => {
    expect(userBashEvent({ command: "sleep 9" })).toEqual({
      name: "user_bash",
      payload: { command: "sleep 9", exitCode: null, excludeFromContext: false },
    });
  });

  it("joins the text blocks of a message", () => {
    expect(messageText("plain")).toBe("plain");
    expect(
      messageText([
        { type: "text", text: "one" },
        { type: "image", data: "x", mimeType: "image/png" },
        { type: "text", text: "two" },
      ] as { type: string; text?: string }[]),
    ).toBe("one\ntwo");
  });

  it("records an activation's oracle baseline only when it has one", () => {
    expect(questActivatedEvent({ quest: "first-file", baseline: null })).toEqual({
      name: QUEST_ACTIVATED_EVENT,
      payload: { quest: "first-file", baseline: null },
    });
    expect(
      questActivatedEvent({ quest: "first-file", baseline: "a".repeat(40), oracleBaseline: "b" }),
    ).toEqual({
      name: QUEST_ACTIVATED_EVENT,
      payload: { quest: "first-file", baseline: "a".repeat(40), oracleBaseline: "b" },
    });
    expect(questCompletedEvent({ quest: "first-file" })).toEqual({
      name: QUEST_COMPLETED_EVENT,
      payload: { quest: "first-file" },
    });
  });

  it("builds any event of the table by its name", () => {
    expect(recordedEvent("agent_end", { assistantTurns: 3 })).toEqual({
      name: "agent_end",
      payload: { assistantTurns: 3 },
    });
  });
});

describe("version 2 payloads", () => {
  it("leave out what the source does not know, never recording undefined", () => {
    expect(sessionStartEvent({ sessionId: "s", cwd: "/w" }).payload).toStrictEqual({
      sessionId: "s",
      cwd: "/w",
    });
    expect(
      sessionStartEvent({ sessionId: "s", cwd: "/w", reason: "fork", parentSession: "/a/b.jsonl" }).payload,
    ).toStrictEqual({ sessionId: "s", cwd: "/w", reason: "fork", parentSession: "/a/b.jsonl" });
    expect(inputEvent({ content: "hi", rawText: "hi", source: "rpc" }).payload).toStrictEqual({
      text: "hi",
      rawText: "hi",
      source: "rpc",
    });
    expect(agentEndEvent({ assistantTurns: 1 }).payload).toStrictEqual({ assistantTurns: 1 });
    expect(agentEndEvent({ assistantTurns: 1, aborted: false }).payload).toStrictEqual({
      assistantTurns: 1,
      aborted: false,
    });
    expect(modelSelectEvent({ provider: "p", modelId: "m" }).payload).toStrictEqual({
      provider: "p",
      modelId: "m",
    });
    expect(sessionCompactEvent({ summary: "S" }).payload).toStrictEqual({ summary: "S" });
  });

  it("say summarized only with a summary", () => {
    expect(sessionTreeEvent({}).payload).toStrictEqual({ summarized: false });
    expect(sessionTreeEvent({ summary: "went back" }).payload).toStrictEqual({
      summarized: true,
      summary: "went back",
    });
  });

  it("record a cleared name or label as null, as Pi treats an empty one", () => {
    expect(sessionNameEvent({ name: undefined }).payload).toEqual({ name: null });
    expect(sessionNameEvent({ name: "  " }).payload).toEqual({ name: null });
    expect(sessionNameEvent({ name: "refactor" }).payload).toEqual({ name: "refactor" });
    expect(labelEvent({ label: "", entryId: "e1" }).payload).toEqual({ label: null, entryId: "e1" });
    expect(labelEvent({ label: "start", entryId: "e1" }).payload).toEqual({ label: "start", entryId: "e1" });
  });

  it("keep the context's paths and skill names as plain lists", () => {
    expect(contextLoadedEvent({ contextFiles: ["/w/AGENTS.md"], skills: ["deploy"] }).payload).toEqual({
      contextFiles: ["/w/AGENTS.md"],
      skills: ["deploy"],
    });
  });
});

describe("evaluation triggers", () => {
  it("are the events that change what a quest can see without a turn", () => {
    expect([...EVALUATION_TRIGGERS].sort()).toEqual([
      "agent_end",
      "label",
      "model_select",
      "session_compact",
      "session_name",
      "session_tree",
      "thinking_level_select",
      "turn_end",
      "user_bash",
    ]);
  });
});

describe("names", () => {
  it("are the contract's recorded events (version 2)", () => {
    expect(Object.values(PI_EVENTS).sort()).toEqual([
      "agent_end",
      "context_loaded",
      "input",
      "label",
      "model_select",
      "session_compact",
      "session_name",
      "session_start",
      "session_tree",
      "thinking_level_select",
      "tool_blocked",
      "tool_result",
      "turn_end",
      "user_bash",
    ]);
    expect([QUEST_ACTIVATED_EVENT, QUEST_COMPLETED_EVENT]).toEqual(["quest_activated", "quest_completed"]);
    expect([...LIFECYCLE_EVENTS].sort()).toEqual([QUEST_ACTIVATED_EVENT, QUEST_COMPLETED_EVENT]);
  });
});
