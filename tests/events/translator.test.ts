/**
 * The translator, one Pi event at a time: what Pi hands the extension, and the event pi-quests
 * records from it. The messages are Pi's own, whole and typed as Pi types them.
 */

import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { ToolCallEvent, UserBashEvent } from "@earendil-works/pi-coding-agent";
import { describe, expect, it } from "vitest";
import { createPiEventTranslator } from "../../src/events/translator.ts";
import { REPO } from "../support/cli.ts";
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

  it("says resumed when a saved session is opened again: /resume, or a start with messages (pi --continue)", () => {
    const saved = [
      messageEntry("e1", user("Hi")),
      messageEntry("e2", assistant([{ type: "text", text: "Hello!" }])),
    ];
    const start = (reason: "startup" | "new" | "resume" | "fork" | "reload", entries = saved) =>
      createPiEventTranslator().sessionStart({ ...SESSION, reason, entries }).payload.resumed;
    expect(start("resume")).toBe(true);
    expect(start("startup")).toBe(true);
    expect(start("startup", [])).toBeUndefined();
    expect(start("new", [])).toBeUndefined();
    expect(start("fork")).toBeUndefined();
    expect(start("reload")).toBeUndefined();
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

  it("a reply that failed (no provider, no key: stopReason error) is no answer, live or in a resumed session", () => {
    const failed = {
      ...assistant([{ type: "text", text: "" }], "error"),
      errorMessage: "No API provider registered",
    };
    const translator = started();
    translator.messageEnd(failed);
    expect(translator.agentEnd()).toEqual({ name: "agent_end", payload: { assistantTurns: 0 } });
    const resumed = createPiEventTranslator();
    resumed.sessionStart({
      ...SESSION,
      entries: [messageEntry("e1", user("Hi")), messageEntry("e2", failed)],
    });
    resumed.messageEnd(assistant([{ type: "text", text: "Hello!" }]));
    expect(resumed.agentEnd()).toEqual({ name: "agent_end", payload: { assistantTurns: 1 } });
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

describe("session_start (version 2)", () => {
  it("records why the session started and its parent session, when Pi says", () => {
    expect(
      createPiEventTranslator().sessionStart({
        ...SESSION,
        reason: "fork",
        parentSession: "/s/parent.jsonl",
      }),
    ).toEqual({
      name: "session_start",
      payload: { ...SESSION, reason: "fork", parentSession: "/s/parent.jsonl" },
    });
  });
});

describe("input, joined to the user message it becomes", () => {
  it("records the raw text and source of an input Pi took while idle", () => {
    const translator = started();
    translator.input({ text: "Create hello.txt", source: "rpc" });
    expect(translator.messageEnd(user("Create hello.txt"))).toEqual({
      name: "input",
      payload: { text: "Create hello.txt", rawText: "Create hello.txt", source: "rpc" },
    });
  });

  it("keeps the text as typed when a template expanded it for the model", () => {
    const translator = started();
    translator.input({ text: "/review src/add.js", source: "interactive" });
    expect(translator.messageEnd(user("Review src/add.js for bugs."))?.payload).toEqual({
      text: "Review src/add.js for bugs.",
      rawText: "/review src/add.js",
      source: "interactive",
    });
  });

  it("pairs steers and follow-ups with their messages in the order Pi delivers them", () => {
    const translator = started();
    translator.input({ text: "Run the tests", source: "rpc" });
    translator.messageEnd(user("Run the tests"));
    translator.input({ text: "then commit", source: "rpc", streamingBehavior: "followUp" });
    translator.input({ text: "use npm, not yarn", source: "rpc", streamingBehavior: "steer" });
    // Pi delivers the steer first, after the running turn's tools; the follow-up when it would stop.
    expect(translator.messageEnd(user("use npm, not yarn"))?.payload).toEqual({
      text: "use npm, not yarn",
      rawText: "use npm, not yarn",
      source: "rpc",
      streamingBehavior: "steer",
    });
    expect(translator.messageEnd(user("then commit"))?.payload).toMatchObject({
      streamingBehavior: "followUp",
    });
  });

  it("forgets inputs that never became a message once the run is over", () => {
    const translator = started();
    translator.input({ text: "queued, then cleared", source: "rpc", streamingBehavior: "followUp" });
    translator.agentEnd({ aborted: true });
    expect(translator.messageEnd(user("next"))?.payload).toEqual({ text: "next" });
  });
});

describe("agent_end from agent_settled", () => {
  it("says whether the run was aborted", () => {
    expect(started().agentEnd({ aborted: true })).toEqual({
      name: "agent_end",
      payload: { assistantTurns: 0, aborted: true },
    });
    expect(started().agentEnd({ aborted: false }).payload).toEqual({ assistantTurns: 0, aborted: false });
  });
});

describe("nested tool calls", () => {
  it("records a call another tool made, with its arguments and its caller", () => {
    const translator = started();
    translator.toolExecutionStart({ toolCallId: "call-1/1", args: { path: "a.txt" } });
    expect(
      translator.toolExecutionEnd({
        toolCallId: "call-1/1",
        toolName: "read",
        isError: false,
        durationMs: 3,
        parentToolCallId: "call-1",
      }),
    ).toEqual([
      {
        name: "tool_result",
        payload: {
          toolName: "read",
          toolCallId: "call-1/1",
          isError: false,
          input: { path: "a.txt" },
          parentToolCallId: "call-1",
        },
      },
    ]);
  });

  it("records nothing at the end of a model's own call: its result message does", () => {
    const translator = started();
    translator.toolExecutionStart({ toolCallId: "call-1", args: { path: "a.txt" } });
    expect(
      translator.toolExecutionEnd({ toolCallId: "call-1", toolName: "read", isError: false, durationMs: 2 }),
    ).toEqual([]);
  });

  it("reads a session file's record of one: outcome and arguments only where the file has them", () => {
    const translator = started();
    expect(
      translator.nestedCall({ id: "c/2", name: "write", arguments: { path: "x" }, status: "error" }),
    ).toEqual({
      name: "tool_result",
      payload: {
        toolName: "write",
        toolCallId: "c/2",
        isError: true,
        input: { path: "x" },
        parentToolCallId: "c",
      },
    });
    expect(translator.nestedCall({ id: "odd", name: "read", status: "ok" }).payload).not.toHaveProperty(
      "parentToolCallId",
    );
    expect(translator.nestedCall({ id: "c/1/1", name: "read", status: "unfinished" }).payload).toStrictEqual({
      toolName: "read",
      toolCallId: "c/1/1",
      parentToolCallId: "c/1",
    });
  });
});

describe("a call an extension blocked", () => {
  const blocked = (text: string, extra: { parentToolCallId?: string } = {}) => ({
    toolCallId: "call-5",
    toolName: "bash",
    isError: true,
    result: { content: [{ type: "text", text }], details: {} },
    ...extra,
  });

  it("is recorded with the extension's reason, whichever extension blocked it", () => {
    const translator = started();
    translator.toolExecutionStart({ toolCallId: "call-5", args: { command: "rm -rf /" } });
    expect(translator.toolExecutionEnd(blocked("dangerous command"))).toEqual([
      {
        name: "tool_blocked",
        payload: { toolName: "bash", input: { command: "rm -rf /" }, reason: "dangerous command" },
      },
    ]);
  });

  it("is not a call Pi itself refused: aborted, unknown, or with invalid arguments", () => {
    for (const text of [
      "Operation aborted",
      "Tool nope not found",
      'Validation failed for tool "bash":\n  - command: required',
      'Invalid arguments for tool "bash": bad JSON',
    ]) {
      expect(started().toolExecutionEnd(blocked(text))).toEqual([]);
    }
  });

  it("is not a call that ran and failed (it took time)", () => {
    expect(started().toolExecutionEnd({ ...blocked("exit 1"), durationMs: 40 })).toEqual([]);
  });

  it("is recorded once when pi-quests' guard blocked it", () => {
    const translator = started();
    translator.toolBlocked({ toolCallId: "call-5", toolName: "bash", input: {} }, "pi-quests' records");
    expect(translator.toolExecutionEnd(blocked("pi-quests' records"))).toEqual([]);
  });

  describe("on a Pi newer than tested, whose refusal texts may have changed", () => {
    function untested() {
      const unread: [string, string][] = [];
      const translator = createPiEventTranslator({
        refusals: "untested",
        unread: (reading, detail) => unread.push([reading, detail]),
      });
      translator.sessionStart(SESSION);
      return { translator, unread };
    }

    it("a text that is none of Pi's refusals, on a call pi-quests never saw, is no block: it says the refusal could not be read", () => {
      const { translator, unread } = untested();
      translator.toolExecutionStart({ toolCallId: "call-5", args: { command: "ls" } });
      // Pi 1.6 says "Tool nope not found"; a newer Pi might say this.
      expect(translator.toolExecutionEnd(blocked("Unknown tool: nope"))).toEqual([]);
      expect(unread).toEqual([["refusals", 'a call not run, for: "Unknown tool: nope"']]);
    });

    it("a call pi-quests' tool_call handler saw passed Pi's own refusals: an extension after it blocked it", () => {
      const { translator, unread } = untested();
      translator.toolExecutionStart({ toolCallId: "call-5", args: { command: "rm -rf /" } });
      translator.toolCallSeen("call-5");
      expect(translator.toolExecutionEnd(blocked("dangerous command"))).toEqual([
        {
          name: "tool_blocked",
          payload: { toolName: "bash", input: { command: "rm -rf /" }, reason: "dangerous command" },
        },
      ]);
      expect(unread).toEqual([]);
    });

    it("Pi's known refusals are still no block, and say nothing", () => {
      const { translator, unread } = untested();
      expect(translator.toolExecutionEnd(blocked("Tool nope not found"))).toEqual([]);
      expect(unread).toEqual([]);
    });
  });

  it("the refusal texts it knows are the ones Pi 1.6 and Pi 1.5 write", () => {
    for (const pi of [
      "node_modules/@earendil-works/pi-agent-core",
      "node_modules/pi-previous/node_modules/@earendil-works/pi-agent-core",
    ]) {
      const loop = readFileSync(join(REPO, pi, "dist/agent-loop.js"), "utf8");
      for (const text of [
        '"Operation aborted"',
        `\`Tool $\{toolCall.name} not found\``,
        "was not executed: the response hit the output token limit",
      ])
        expect(loop, `${pi}: ${text}`).toContain(text);
    }
  });
});

describe("extensionFilesChanged: the code a call wrote where Pi loads extensions (live only)", () => {
  const ended = (toolCallId: string, parentToolCallId?: string) => ({
    toolCallId,
    toolName: "bash",
    isError: false,
    durationMs: 5,
    ...(parentToolCallId ? { parentToolCallId } : {}),
  });

  it("goes with the call's result, with or without changedPaths, and is absent when the call wrote none", () => {
    const translator = started();
    const code = ["/w/.pi/extensions/x.ts"];
    translator.toolExecutionEnd(ended("call-1"), undefined, code);
    translator.toolExecutionEnd(ended("call-2"), { paths: [".pi/extensions/y.ts"], truncated: false }, [
      "/w/.pi/extensions/y.ts",
    ]);
    translator.toolExecutionEnd(ended("call-3"), undefined, []);
    expect(translator.messageEnd(toolResult("call-1", "bash"))?.payload).toEqual({
      toolName: "bash",
      toolCallId: "call-1",
      isError: false,
      input: {},
      extensionFilesChanged: code,
    });
    expect(translator.messageEnd(toolResult("call-2", "bash"))?.payload).toMatchObject({
      changedPaths: [".pi/extensions/y.ts"],
      extensionFilesChanged: ["/w/.pi/extensions/y.ts"],
    });
    expect(translator.messageEnd(toolResult("call-3", "bash"))?.payload).not.toHaveProperty(
      "extensionFilesChanged",
    );
    const [nested] = translator.toolExecutionEnd(ended("call-4/1", "call-4"), undefined, code);
    expect(nested?.payload).toMatchObject({ parentToolCallId: "call-4", extensionFilesChanged: code });
  });
});

describe("changedPaths: what a call changed (live only)", () => {
  const wrote = { paths: ["hello.txt"], truncated: false };
  const removed = { paths: ["notes/old.md"], truncated: false };

  it("waits at a model's call's end for its result message, and goes with that result only", () => {
    const translator = started();
    translator.messageEnd(
      assistant([
        toolCall("call-1", "bash", { command: "cat > hello.txt <<EOF\nhello\nEOF" }),
        toolCall("call-2", "bash", { command: "rm notes/old.md" }),
      ]),
    );
    // Calls of one message run in parallel: Pi ends them as they finish, then sends the results in order.
    const ended = (toolCallId: string) => ({ toolCallId, toolName: "bash", isError: false, durationMs: 5 });
    expect(translator.toolExecutionEnd(ended("call-2"), removed)).toEqual([]);
    expect(translator.toolExecutionEnd(ended("call-1"), wrote)).toEqual([]);
    expect(translator.messageEnd(toolResult("call-1", "bash"))?.payload).toMatchObject({
      toolCallId: "call-1",
      changedPaths: ["hello.txt"],
    });
    expect(translator.messageEnd(toolResult("call-2", "bash"))?.payload).toMatchObject({
      toolCallId: "call-2",
      changedPaths: ["notes/old.md"],
    });
    // Given once: a second result with the same id has none.
    expect(translator.messageEnd(toolResult("call-1", "bash"))?.payload).not.toHaveProperty("changedPaths");
  });

  it("is an empty list when the looks saw no change, and absent when there was no look", () => {
    const translator = started();
    translator.toolExecutionEnd(
      { toolCallId: "looked", toolName: "read", isError: false, durationMs: 1 },
      {
        paths: [],
        truncated: false,
      },
    );
    translator.toolExecutionEnd({
      toolCallId: "not-looked",
      toolName: "read",
      isError: false,
      durationMs: 1,
    });
    expect(translator.messageEnd(toolResult("looked", "read"))?.payload).toEqual({
      toolName: "read",
      toolCallId: "looked",
      isError: false,
      input: {},
      changedPaths: [],
    });
    expect(translator.messageEnd(toolResult("not-looked", "read"))?.payload).toEqual({
      toolName: "read",
      toolCallId: "not-looked",
      isError: false,
      input: {},
    });
  });

  it("says changedPathsTruncated when the list was cut", () => {
    const translator = started();
    const cut = { paths: ["a.txt", "b.txt"], truncated: true };
    translator.toolExecutionEnd(
      { toolCallId: "call-1", toolName: "bash", isError: false, durationMs: 9 },
      cut,
    );
    expect(translator.messageEnd(toolResult("call-1", "bash"))?.payload).toMatchObject({
      changedPaths: ["a.txt", "b.txt"],
      changedPathsTruncated: true,
    });
  });

  it("goes with an aborted call's result too: what it changed until then", () => {
    const translator = started();
    translator.toolExecutionEnd(
      { toolCallId: "call-1", toolName: "bash", isError: true, durationMs: 300, result: { content: [] } },
      wrote,
    );
    expect(translator.messageEnd(toolResult("call-1", "bash", true))?.payload).toMatchObject({
      isError: true,
      changedPaths: ["hello.txt"],
    });
  });

  it("goes with a nested call's result at once: it has no message of its own", () => {
    const translator = started();
    translator.toolExecutionStart({ toolCallId: "call-1/1", args: { path: "hello.txt" } });
    const [result] = translator.toolExecutionEnd(
      {
        toolCallId: "call-1/1",
        toolName: "write",
        isError: false,
        durationMs: 2,
        parentToolCallId: "call-1",
      },
      wrote,
    );
    expect(result?.payload).toMatchObject({ parentToolCallId: "call-1", changedPaths: ["hello.txt"] });
  });

  it("goes with a ! command's event", () => {
    const command: UserBashEvent = {
      type: "user_bash",
      command: "touch a.txt",
      excludeFromContext: false,
      cwd: "/p",
    };
    expect(started().userBash(command, 0, { paths: ["a.txt"], truncated: false })).toEqual({
      name: "user_bash",
      payload: { command: "touch a.txt", exitCode: 0, excludeFromContext: false, changedPaths: ["a.txt"] },
    });
  });

  it("never comes from a session file", () => {
    const translator = started();
    expect(translator.bashExecution(bashExecution("touch a.txt", 0)).payload).not.toHaveProperty(
      "changedPaths",
    );
    expect(translator.nestedCall({ id: "c/1", name: "write", status: "ok" }).payload).not.toHaveProperty(
      "changedPaths",
    );
  });
});

describe("model and thinking level", () => {
  const one = { provider: "scripted", id: "scripted-1" };
  const two = { provider: "scripted", id: "scripted-2" };

  it("records a model switch and where it came from", () => {
    expect(started().modelSelect({ ...two, source: "cycle" })).toEqual([
      { name: "model_select", payload: { provider: "scripted", modelId: "scripted-2", source: "cycle" } },
    ]);
  });

  it("records a thinking level set on the current model at once", () => {
    const translator = createPiEventTranslator();
    translator.sessionStart({ ...SESSION, model: one });
    expect(translator.thinkingLevelSelect("high", one)).toEqual({
      name: "thinking_level_select",
      payload: { level: "high" },
    });
  });

  it("records who asked for a model or a level, live only, with the level a switch held", () => {
    const translator = createPiEventTranslator();
    translator.sessionStart({ ...SESSION, model: two });
    expect(translator.thinkingLevelSelect("off", one, "extension")).toBeUndefined();
    expect(translator.modelSelect({ ...one, source: "set", origin: "extension" })).toEqual([
      {
        name: "model_select",
        payload: { provider: "scripted", modelId: "scripted-1", source: "set", origin: "extension" },
      },
      { name: "thinking_level_select", payload: { level: "off", origin: "extension" } },
    ]);
    expect(translator.thinkingLevelSelect("high", one, "learner")?.payload).toEqual({
      level: "high",
      origin: "learner",
    });
    expect(translator.thinkingLevelSelect("low", one, "unknown")?.payload).toEqual({
      level: "low",
      origin: "unknown",
    });
  });

  it("records who named the session, live only", () => {
    expect(started().sessionName("review", "extension").payload).toEqual({
      name: "review",
      origin: "extension",
    });
    expect(started().sessionName(undefined).payload).toEqual({ name: null });
  });

  it("puts a level a model switch changed after the switch, as the session file has them", () => {
    const translator = createPiEventTranslator();
    translator.sessionStart({ ...SESSION, model: two });
    // Pi announces the clamped level first, with its model already the new one.
    expect(translator.thinkingLevelSelect("off", one)).toBeUndefined();
    expect(translator.modelSelect({ ...one, source: "cycle" }).map((event) => event.name)).toEqual([
      "model_select",
      "thinking_level_select",
    ]);
    expect(translator.thinkingLevelSelect("low", one)?.name).toBe("thinking_level_select");
  });
});

describe("compaction, /tree and the session's name", () => {
  it("records a compaction's reason and summary", () => {
    expect(started().sessionCompact({ summary: "Summary: hello.txt exists.", reason: "manual" })).toEqual({
      name: "session_compact",
      payload: { reason: "manual", summary: "Summary: hello.txt exists." },
    });
  });

  it("carries the instructions session_before_compact had to its compaction, live only, once", () => {
    const translator = started();
    translator.compactionStarts({ customInstructions: "Keep the file names" });
    expect(translator.sessionCompact({ summary: "S", reason: "manual" }).payload).toEqual({
      reason: "manual",
      summary: "S",
      instructions: "Keep the file names",
    });
    // The next compaction had none (an automatic one), and a failed one's are forgotten.
    translator.compactionStarts({});
    expect(translator.sessionCompact({ summary: "T", reason: "threshold" }).payload).toEqual({
      reason: "threshold",
      summary: "T",
    });
    translator.compactionStarts({ customInstructions: "Cancelled" });
    translator.compactionFailed();
    expect(translator.sessionCompact({ summary: "U" }).payload).toEqual({ summary: "U" });
    translator.compactionStarts({ customInstructions: "   " });
    expect(translator.sessionCompact({ summary: "V" }).payload).toEqual({ summary: "V" });
  });

  it("records a /tree navigation with or without a branch summary", () => {
    expect(started().sessionTree({ summary: "Tried a rewrite." }).payload).toEqual({
      summarized: true,
      summary: "Tried a rewrite.",
    });
    expect(started().sessionTree({}).payload).toEqual({ summarized: false });
  });

  it("records a new name, and a cleared one as null", () => {
    expect(started().sessionName("fix-add").payload).toEqual({ name: "fix-add" });
    expect(started().sessionName(undefined).payload).toEqual({ name: null });
  });
});

describe("labels, which Pi appends without an event", () => {
  const label = (id: string, targetId: string, text?: string) => ({
    type: "label" as const,
    id,
    parentId: null,
    timestamp: "2026-03-14T09:31:00.000Z",
    targetId,
    label: text,
  });

  it("records the label entries added since the last look, once each", () => {
    const translator = createPiEventTranslator();
    const history = [messageEntry("e1", user("Hi")), label("e2", "e1", "old")];
    translator.sessionStart({ ...SESSION, entries: history });
    const now = [
      ...history,
      messageEntry("e3", assistant([{ type: "text", text: "Hello" }])),
      label("e4", "e3", "good"),
    ];
    expect(translator.labels(now)).toEqual([{ name: "label", payload: { label: "good", entryId: "e3" } }]);
    expect(translator.labels(now)).toEqual([]);
    expect(translator.labels([...now, label("e5", "e3")])).toEqual([
      { name: "label", payload: { label: null, entryId: "e3" } },
    ]);
  });

  it("reads a session file's label entry the same way", () => {
    expect(started().label(label("e9", "e3", "checkpoint"))).toEqual({
      name: "label",
      payload: { label: "checkpoint", entryId: "e3" },
    });
  });
});

describe("context_loaded", () => {
  it("records the context files' paths and the skills' names, never their contents", () => {
    const event = started().contextLoaded({
      contextFiles: [{ path: "/w/AGENTS.md", content: "Always run npm test." } as { path: string }],
      skills: [{ name: "deploy", description: "Deploys" } as { name: string }],
    });
    expect(event).toEqual({
      name: "context_loaded",
      payload: { contextFiles: ["/w/AGENTS.md"], skills: ["deploy"] },
    });
    expect(JSON.stringify(event)).not.toContain("npm test");
  });
});
