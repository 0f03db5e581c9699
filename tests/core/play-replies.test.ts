import { describe, expect, it } from "vitest";
import {
  isToolReply,
  parsePlayReplies,
  playRepliesJson,
  type Reply,
  UNREADABLE_REPLIES,
  unreadableReplies,
} from "../../src/core/play-replies.ts";

const RUNS: Reply[][] = [
  [{ tool: "write", args: { path: "a.txt", content: "a\n" } }, { text: "Done." }],
  [],
  [{ tool: "ls", args: {} }],
];

describe("the replies file", () => {
  it("reads back what playRepliesJson wrote", () => {
    const text = playRepliesJson(RUNS);
    expect(JSON.parse(text)).toEqual({ version: 1, runs: RUNS });
    expect(parsePlayReplies(text)).toEqual({ ok: true, value: { version: 1, runs: RUNS } });
  });

  it.each([
    ["not json", /^not JSON \(/],
    ["[]", /^expected \{"version": 1, "runs"/],
    ['{"version": 2, "runs": []}', /^expected \{"version": 1/],
    ['{"version": 1, "runs": [{}]}', /^runs\[0\] is not a list of replies$/],
    ['{"version": 1, "runs": [[{"text": "a"}, 5]]}', /^runs\[0\]\[1\] is not an object$/],
    ['{"version": 1, "runs": [[{"text": 5}]]}', /^runs\[0\]\[0\] has a text that is not a string$/],
    ['{"version": 1, "runs": [[{"tool": "ls"}]]}', /^runs\[0\]\[0\] is neither \{tool, args\} nor \{text\}$/],
    [
      '{"version": 1, "runs": [[{"tool": "", "args": {}}]]}',
      /^runs\[0\]\[0\] has a tool that is not a name$/,
    ],
    [
      '{"version": 1, "runs": [[{"tool": "ls", "args": []}]]}',
      /^runs\[0\]\[0\] has args that are not an object$/,
    ],
    ['{"version": 1, "runs": [[{"text": "a", "tool": "ls"}]]}', /^runs\[0\]\[0\] is neither/],
  ])("refuses %s, saying where", (text, problem) => {
    const parsed = parsePlayReplies(text);
    expect(parsed.ok).toBe(false);
    if (!parsed.ok) expect(parsed.problem).toMatch(problem);
  });

  it("tells a tool reply from a text reply", () => {
    expect(isToolReply({ tool: "ls", args: {} })).toBe(true);
    expect(isToolReply({ text: "hi" })).toBe(false);
  });

  it("words an unusable file as text that starts the same way every time", () => {
    expect(unreadableReplies("why")).toBe("(the play's replies could not be read: why)");
    expect(unreadableReplies("why").startsWith(UNREADABLE_REPLIES)).toBe(true);
  });
});
