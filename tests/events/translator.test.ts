/**
 * The translator, one Pi event at a time: what Pi hands the extension, and the event pi-quests
 * records from it. The messages are Pi's own, whole and typed as Pi types them.
 */
import type { ToolCallEvent, UserBashEvent } from "@earendil-works/pi-coding-agent";
import { describe, expect, it } from "vitest";
import { createPiEventTranslator } from "../../src/events/translator.ts";
import {
  assistant,
  bashExecution,
  messageEntry,
  toolCall,
  toolResult,
  user,
} from "../support/pi-messages.ts";

const SESSION = { sessionId: "s-1", cwd: "/home/learner/project" };

/** A translator for a session that has just started, with nothing in it yet. */
function started() {
  const translator = createPiEventTranslator();
  translator.sessionStart(SESSION);
  return translator;
}

describe("session_start", () => {
  it("records the session's id and folder", () => {
    expect(createPiEventTranslator().sessionStart(SESSION)).toEqual({
      name: "session_start",
      payload: { sessionId: "s-1", cwd: "/home/learner/project" },
    });
  });
});

describe("message_end", () => {
  it("of a user message records its text as input", () => {
    expect(started().messageEnd(user("Create hello.txt"))).toEqual({
      name: "input",
      payload: { text: "Create hello.txt" },
    });
  });

  it("of a user message with blocks records the text blocks joined by new lines, images left out", () => {
    const message = user([
      { type: "text", text: "Fix this," },
      { type: "image", data: "iVBORw0KGgo=", mimeType: "image/png" },
      { type: "text", text: "see the screenshot." },
    ]);
    expect(started().messageEnd(message)).toEqual({
      name: "input",
      payload: { text: "Fix this,\nsee the screenshot." },
    });
  });

  it("of an assistant message records nothing: its tool calls wait for their results", () => {
    const message = assistant([
      { type: "thinking", thinking: "A file, then." },
      { type: "text", text: "Writing it." },
      toolCall("call-1", "write", { path: "hello.txt", content: "hi\n" }),
    ]);
    expect(started().messageEnd(message)).toBeUndefined();
  });

  it("of an assistant message without content (another extension's rewrite) still counts the turn", () => {
    const translator = started();
    const rewritten = { ...assistant([]), content: undefined } as unknown as Parameters<
      typeof translator.messageEnd
    >[0];
    expect(translator.messageEnd(rewritten)).toBeUndefined();
    expect(translator.turnEnd({ turnIndex: 0 }).payload).toMatchObject({ assistantTurns: 1 });
  });

  it("of a tool result records the result with the arguments of its call", () => {
    const translator = started();
    translator.messageEnd(
      assistant([
        toolCall("call-1", "write", { path: "hello.txt", content: "hi\n" }),
        toolCall("call-2", "bash", { command: "npm test" }),
      ]),
    );
    expect(translator.messageEnd(toolResult("call-2", "bash", true))).toEqual({
      name: "tool_result",
      payload: { toolName: "bash", toolCallId: "call-2", isError: true, input: { command: "npm test" } },
    });
    expect(translator.messageEnd(toolResult("call-1", "write"))).toEqual({
      name: "tool_result",
      payload: {
        toolName: "write",
        toolCallId: "call-1",
        isError: false,
        input: { path: "hello.txt", content: "hi\n" },
      },
    });
  });

  it("of a tool result whose call it never saw records the input as {}", () => {
    expect(started().messageEnd(toolResult("call-9", "ls"))).toEqual({
      name: "tool_result",
      payload: { toolName: "ls", toolCallId: "call-9", isError: false, input: {} },
    });
  });

  it("of a tool result gives its call's arguments once: a second result with that id has none", () => {
    const translator = started();
    translator.messageEnd(assistant([toolCall("call-1", "read", { path: "a.txt" })]));
    translator.messageEnd(toolResult("call-1", "read"));
    expect(translator.messageEnd(toolResult("call-1", "read"))?.payload.input).toEqual({});
  });

  it("of any other message records nothing", () => {
    const translator = started();
    expect(
      translator.messageEnd({
        role: "custom",
        customType: "note",
        content: "x",
        display: true,
        timestamp: 1,
      }),
    ).toBe(undefined);
    expect(
      translator.messageEnd({ role: "compactionSummary", summary: "...", tokensBefore: 9, timestamp: 1 }),
    ).toBe(undefined);
    // Pi ends no message for a `!` command; its event comes from user_bash.
    expect(translator.messageEnd(bashExecution("ls", 0))).toBeUndefined();
  });
});

describe("turn_end and agent_end", () => {
  it("turn_end records the assistant messages so far and Pi's turn index", () => {
    const translator = started();
    translator.messageEnd(assistant([toolCall("call-1", "ls", {})]));
    translator.messageEnd(toolResult("call-1", "ls"));
    expect(translator.turnEnd({ turnIndex: 0 })).toEqual({
      name: "turn_end",
      payload: { assistantTurns: 1, turnIndex: 0 },
    });
    translator.messageEnd(assistant([{ type: "text", text: "Done." }]));
    expect(translator.turnEnd({ turnIndex: 1 })).toEqual({
      name: "turn_end",
      payload: { assistantTurns: 2, turnIndex: 1 },
    });
  });

  it("turn_end without a turn index (a session file has none) leaves it out", () => {
    expect(started().turnEnd({})).toEqual({ name: "turn_end", payload: { assistantTurns: 0 } });
  });

  it("agent_end records the assistant messages of the whole session", () => {
    const translator = started();
    translator.messageEnd(assistant([{ type: "text", text: "Hello!" }]));
    expect(translator.agentEnd()).toEqual({ name: "agent_end", payload: { assistantTurns: 1 } });
  });

  it("counts the assistant messages a resumed session already had, and only those", () => {
    const translator = createPiEventTranslator();
    translator.sessionStart({
      ...SESSION,
      entries: [
        messageEntry("e1", user("Hi")),
        messageEntry("e2", assistant([{ type: "text", text: "Hello!" }])),
        messageEntry("e3", user("Again")),
        messageEntry("e4", assistant([{ type: "text", text: "Hello again!" }])),
        {
          type: "label",
          id: "e5",
          parentId: "e4",
          timestamp: "2026-03-14T09:31:00.000Z",
          targetId: "e4",
          label: "x",
        },
      ],
    });
    translator.messageEnd(assistant([{ type: "text", text: "Still here." }]));
    expect(translator.turnEnd({ turnIndex: 0 })?.payload.assistantTurns).toBe(3);
  });

  it("starts counting again for the next session", () => {
    const translator = started();
    translator.messageEnd(assistant([{ type: "text", text: "One." }]));
    translator.sessionStart({ sessionId: "s-2", cwd: SESSION.cwd });
    expect(translator.agentEnd().payload.assistantTurns).toBe(0);
  });
});

describe("tool_call that pi-quests' guard blocks", () => {
  it("records the call and the reason it was blocked", () => {
    const call: ToolCallEvent = {
      type: "tool_call",
      toolCallId: "call-3",
      toolName: "write",
      input: { path: "/home/learner/.pi/agent/quests/progress.json", content: "{}" },
    };
    expect(started().toolBlocked(call, "pi-quests' own records")).toEqual({
      name: "tool_blocked",
      payload: {
        toolName: "write",
        input: { path: "/home/learner/.pi/agent/quests/progress.json", content: "{}" },
        reason: "pi-quests' own records",
      },
    });
  });
});

describe("user_bash, and a `!` command in a session file", () => {
  const typed: UserBashEvent = {
    type: "user_bash",
    command: "git status",
    excludeFromContext: false,
    cwd: "/p",
  };

  it("records the command with the exit code of the run the extension wrapped", () => {
    expect(started().userBash(typed, 0)).toEqual({
      name: "user_bash",
      payload: { command: "git status", exitCode: 0, excludeFromContext: false },
    });
  });

  it("records a cancelled command's exit code as null", () => {
    expect(started().userBash({ ...typed, excludeFromContext: true }, null)).toEqual({
      name: "user_bash",
      payload: { command: "git status", exitCode: null, excludeFromContext: true },
    });
  });

  it("records a bashExecution message the same way: no exit code is null, no flag is false", () => {
    const translator = started();
    expect(translator.bashExecution(bashExecution("cat missing.txt", 1, true))).toEqual({
      name: "user_bash",
      payload: { command: "cat missing.txt", exitCode: 1, excludeFromContext: true },
    });
    expect(translator.bashExecution(bashExecution("sleep 60", undefined))).toEqual({
      name: "user_bash",
      payload: { command: "sleep 60", exitCode: null, excludeFromContext: false },
    });
  });
});
