import { readFile } from "node:fs/promises";
import { describe, expect, it } from "vitest";
import { parseSessionFile } from "../../src/cli/session-file.ts";

const fixture = async (name: string) => {
  const file = `fixtures/sessions/${name}`;
  return { file, text: await readFile(new URL(`../../${file}`, import.meta.url), "utf8") };
};

const header = (id = "s-1") =>
  JSON.stringify({ type: "session", version: 3, id, timestamp: "2026-03-14T09:30:00.000Z", cwd: "/p" });
const message = (body: Record<string, unknown>) =>
  JSON.stringify({
    type: "message",
    id: "e1",
    parentId: null,
    timestamp: "2026-03-14T09:30:01.000Z",
    message: body,
  });

describe("parseSessionFile: sessions Pi wrote", () => {
  it("turns a write that worked, a failing bash call, user input and ! commands into events", async () => {
    const { file, text } = await fixture("write-then-failing-test.jsonl");
    const sessionId = "0197a8e4-5c2b-7f3a-9d41-6b2e8c1f0a57";
    const events = [
      ["session_start", { sessionId, cwd: "/home/learner/hello-project" }],
      ["input", { text: "Create hello.txt containing hi, then run the tests." }],
      [
        "tool_result",
        {
          toolName: "write",
          toolCallId: "toolu_01A",
          isError: false,
          input: { path: "hello.txt", content: "hi\n" },
        },
      ],
      ["turn_end", { assistantTurns: 1 }],
      [
        "tool_result",
        { toolName: "bash", toolCallId: "toolu_01B", isError: true, input: { command: "npm test" } },
      ],
      ["turn_end", { assistantTurns: 2 }],
      ["turn_end", { assistantTurns: 3 }],
      ["agent_end", { assistantTurns: 3 }],
      ["user_bash", { command: "git status --short", exitCode: 0, excludeFromContext: false }],
      ["user_bash", { command: "cat missing.txt", exitCode: 1, excludeFromContext: true }],
      ["input", { text: "Thanks, that's all." }],
      ["turn_end", { assistantTurns: 4 }],
      ["agent_end", { assistantTurns: 4 }],
    ] as const;
    expect(parseSessionFile(text, file)).toEqual({
      ok: true,
      sessionId,
      events: events.map(([name, payload], seq) => ({ name, sessionId, seq, payload })),
    });
  });

  it("ends the run after an error or an abort, and keeps blocked calls and cancelled commands", async () => {
    const { file, text } = await fixture("retry-blocked-abort.jsonl");
    const sessionId = "0197a8f0-1d22-7c55-8e10-3f9a2b7c4d68";
    const edits = [{ oldText: "hi", newText: "hello" }];
    const events = [
      ["session_start", { sessionId, cwd: "/home/learner/hello-project" }],
      // The image block carries no text.
      ["input", { text: "Fix the greeting in hello.txt, see the screenshot." }],
      // The overloaded request, then Pi's retry: a new run.
      ["turn_end", { assistantTurns: 1 }],
      ["agent_end", { assistantTurns: 1 }],
      [
        "tool_result",
        { toolName: "read", toolCallId: "toolu_02A", isError: false, input: { path: "hello.txt" } },
      ],
      [
        "tool_result",
        { toolName: "edit", toolCallId: "toolu_02B", isError: true, input: { path: "hello.txt", edits } },
      ],
      ["turn_end", { assistantTurns: 2 }],
      ["turn_end", { assistantTurns: 3 }],
      ["agent_end", { assistantTurns: 3 }],
      ["user_bash", { command: "sleep 60", exitCode: null, excludeFromContext: false }],
    ] as const;
    expect(parseSessionFile(text, file)).toEqual({
      ok: true,
      sessionId,
      events: events.map(([name, payload], seq) => ({ name, sessionId, seq, payload })),
    });
  });
});

describe("parseSessionFile: files it refuses", () => {
  it("names the file and line of each malformed line", async () => {
    const { file, text } = await fixture("malformed-lines.jsonl");
    const result = parseSessionFile(text, file);
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.errors).toEqual([
      { file, line: 4, message: expect.stringMatching(/^not valid JSON \(.+\)$/) },
      {
        file,
        line: 5,
        message:
          "toolResult message: toolCallId: Invalid input: expected string, received undefined; " +
          "isError: Invalid input: expected boolean, received string",
      },
    ]);
  });

  it("refuses an empty file", async () => {
    const { file, text } = await fixture("empty.jsonl");
    expect(parseSessionFile(text, file)).toEqual({
      ok: false,
      errors: [
        { file, line: 1, message: "the file is empty; a Pi session file starts with a session header line" },
      ],
    });
    expect(parseSessionFile("\n  \n", file)).toMatchObject({ ok: false, errors: [{ line: 1 }] });
  });

  it("refuses a file without a session header, such as a recorded events file", async () => {
    const { file, text } = await fixture("not-a-session.jsonl");
    expect(parseSessionFile(text, file)).toEqual({
      ok: false,
      errors: [
        {
          file,
          line: 1,
          message:
            'not a Pi session file: the first line must be the session header, found a line without a "type" field',
        },
      ],
    });
    expect(parseSessionFile(`${message({ role: "user", content: "hi" })}\n`, "s.jsonl")).toEqual({
      ok: false,
      errors: [
        {
          file: "s.jsonl",
          line: 1,
          message:
            'not a Pi session file: the first line must be the session header, found a "message" entry',
        },
      ],
    });
    expect(parseSessionFile("# notes\n", "notes.md")).toMatchObject({
      ok: false,
      errors: [
        {
          line: 1,
          message: expect.stringMatching(/^not a Pi session file: the first line is not valid JSON/),
        },
      ],
    });
  });

  it("refuses a header without an id, a second header, and lines that are not entries", () => {
    const noId = JSON.stringify({ type: "session", version: 3, cwd: "/p" });
    expect(parseSessionFile(noId, "s.jsonl")).toEqual({
      ok: false,
      errors: [
        {
          file: "s.jsonl",
          line: 1,
          message: "session header: id: Invalid input: expected string, received undefined",
        },
      ],
    });
    const text = [header(), header("s-2"), "42", JSON.stringify({ type: "message" })].join("\n");
    expect(parseSessionFile(text, "s.jsonl")).toEqual({
      ok: false,
      errors: [
        { file: "s.jsonl", line: 2, message: "a second session header; only the first line may be one" },
        { file: "s.jsonl", line: 3, message: 'expected a JSON object with a "type" field' },
        {
          file: "s.jsonl",
          line: 4,
          message: "message entry: message: Invalid input: expected object, received undefined",
        },
      ],
    });
  });

  it("points at the broken block of an assistant message", () => {
    const broken = message({
      role: "assistant",
      content: [
        { type: "text", text: "Writing." },
        { type: "toolCall", name: "write", arguments: {} },
      ],
      stopReason: "toolUse",
    });
    expect(parseSessionFile(`${header()}\n${broken}\n`, "s.jsonl")).toEqual({
      ok: false,
      errors: [
        {
          file: "s.jsonl",
          line: 2,
          message: "assistant message: content.1.id: Invalid input: expected string, received undefined",
        },
      ],
    });
  });
});

describe("parseSessionFile: tolerance", () => {
  it("skips entry types, roles and blocks it does not use, and reads CRLF files with blank lines", () => {
    const lines = [
      header(),
      "",
      JSON.stringify({
        type: "some_future_entry",
        id: "f1",
        parentId: null,
        timestamp: "2026-03-14T09:30:00.500Z",
      }),
      message({ role: "system", content: "", sections: { preamble: "You are Pi." }, timestamp: 1 }),
      message({ role: "custom_role_from_an_extension", timestamp: 2 }),
      message({
        role: "assistant",
        content: [
          { type: "future_block", data: 1 },
          { type: "toolCall", id: "c1", name: "ls", arguments: {} },
        ],
        stopReason: "toolUse",
        timestamp: 3,
      }),
      JSON.stringify({
        type: "compaction",
        id: "k1",
        parentId: "e1",
        summary: "...",
        firstKeptEntryId: "e1",
      }),
      message({
        role: "toolResult",
        toolCallId: "c1",
        toolName: "ls",
        content: [],
        isError: false,
        timestamp: 4,
      }),
      // A result whose call the file does not hold: the input is unknown.
      message({
        role: "toolResult",
        toolCallId: "c9",
        toolName: "ls",
        content: [],
        isError: false,
        timestamp: 5,
      }),
    ];
    expect(parseSessionFile(`${lines.join("\r\n")}\r\n`, "s.jsonl")).toEqual({
      ok: true,
      sessionId: "s-1",
      events: [
        { name: "session_start", sessionId: "s-1", seq: 0, payload: { sessionId: "s-1", cwd: "/p" } },
        {
          name: "tool_result",
          sessionId: "s-1",
          seq: 1,
          payload: { toolName: "ls", toolCallId: "c1", isError: false, input: {} },
        },
        {
          name: "tool_result",
          sessionId: "s-1",
          seq: 2,
          payload: { toolName: "ls", toolCallId: "c9", isError: false, input: {} },
        },
        // A session that ends mid-run: the turn is closed, the run is not.
        { name: "turn_end", sessionId: "s-1", seq: 3, payload: { assistantTurns: 1 } },
      ],
    });
  });

  it("never throws, whatever the text", () => {
    for (const text of ["null", "[]", "\u0000", `${header()}\nnull`, `${header()}\n{"type":1}`, "}{"]) {
      expect(() => parseSessionFile(text, "x")).not.toThrow();
      expect(parseSessionFile(text, "x").ok).toBe(false);
    }
  });
});
