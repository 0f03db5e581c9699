/** What the play controls pick, as a learner would in /tree and /resume. */
import { describe, expect, it } from "vitest";
import { sessionNamed, sessionNames, treeTarget } from "../../src/extension/play-control-targets.ts";

const user = (id: string, content: unknown) => ({ id, type: "message", message: { role: "user", content } });
const assistant = (id: string, text: string) => ({
  id,
  type: "message",
  message: {
    role: "assistant",
    content: [
      { type: "thinking", thinking: text },
      { type: "text", text },
    ],
  },
});

describe("treeTarget", () => {
  const entries = [
    user("u1", "Now add"),
    assistant("a1", "Added."),
    { id: "l1", type: "label", message: undefined },
    user("u2", [{ type: "text", text: "Now divide by two" }]),
    assistant("a2", "Added."),
    {
      id: "t1",
      type: "message",
      message: { role: "toolResult", content: [{ type: "text", text: "Added." }] },
    },
  ];

  it("takes the last user or assistant message whose text equals the target", () => {
    expect(treeTarget(entries, "Added.")).toEqual({
      id: "a2",
      role: "assistant",
      text: "Added.",
      matched: "equals",
    });
    expect(treeTarget(entries, " Now add ")).toMatchObject({ id: "u1", role: "user", matched: "equals" });
  });

  it("else the last one containing it, saying so; else nothing", () => {
    expect(treeTarget(entries, "divide")).toEqual({
      id: "u2",
      role: "user",
      text: "Now divide by two",
      matched: "contains",
    });
    expect(treeTarget(entries, "multiply")).toBeUndefined();
  });
});

describe("sessionNamed", () => {
  const at = (minutes: number) => new Date(Date.UTC(2026, 0, 1, 0, minutes));
  const sessions = [
    { path: "a.jsonl", name: "practice", modified: at(1) },
    { path: "b.jsonl", name: "practice", modified: at(3) },
    { path: "c.jsonl", name: "other", modified: at(5) },
    { path: "d.jsonl", modified: at(7) },
  ];

  it("picks the newest session of that name", () => {
    expect(sessionNamed(sessions, "practice")?.path).toBe("b.jsonl");
    expect(sessionNamed(sessions, "Practice")).toBeUndefined();
  });

  it("names what there was to pick from", () => {
    expect(sessionNames(sessions)).toBe('"practice", "other"');
    expect(sessionNames([{ path: "d.jsonl", modified: at(1) }])).toBe("none has a name");
  });
});
