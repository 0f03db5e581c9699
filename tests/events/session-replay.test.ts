/**
 * A saved session replayed: the same messages Pi ended live give the same events, with the turn
 * and run boundaries read from the messages (a file does not store them).
 */
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

  it("ends the run after an error or an abort even with tool calls, and closes a turn a `!` command follows", () => {
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
      ["turn_end", 1],
      ["agent_end", 1],
      ["input", "Again"],
      ["turn_end", 2],
      ["agent_end", 2],
      ["user_bash", "git status"],
    ]);
  });

  it("closes a session that ends mid-run with a turn_end and no agent_end", () => {
    const events = replaySession(HEADER, [assistant([toolCall("c1", "ls", {})]), toolResult("c1", "ls")]);
    expect(events.at(-1)).toEqual({ name: "turn_end", payload: { assistantTurns: 1 } });
  });
});
