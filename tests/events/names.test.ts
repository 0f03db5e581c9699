/** The recorded events' table: each name with the payload it is recorded with. */
import { describe, expect, it } from "vitest";
import {
  LIFECYCLE_EVENTS,
  messageText,
  PI_EVENTS,
  QUEST_ACTIVATED_EVENT,
  QUEST_COMPLETED_EVENT,
  questActivatedEvent,
  questCompletedEvent,
  recordedEvent,
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

describe("names", () => {
  it("are the ones pi-quests has always recorded", () => {
    expect(Object.values(PI_EVENTS).sort()).toEqual([
      "agent_end",
      "input",
      "session_start",
      "tool_blocked",
      "tool_result",
      "turn_end",
      "user_bash",
    ]);
    expect([QUEST_ACTIVATED_EVENT, QUEST_COMPLETED_EVENT]).toEqual(["quest_activated", "quest_completed"]);
    expect([...LIFECYCLE_EVENTS].sort()).toEqual([QUEST_ACTIVATED_EVENT, QUEST_COMPLETED_EVENT]);
  });
});
