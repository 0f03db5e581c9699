/**
 * Pi session files read into events: what Pi wrote reads as the live extension recorded it;
 * a file from a newer Pi, or a damaged one, reads as far as it can, with one warning a line
 * that could not be read (file and line); only a file without its session header is refused.
 */
import { readFile } from "node:fs/promises";
import { describe, expect, it } from "vitest";
import { parseSessionFile } from "../../src/cli/session-file.ts";
import { MAX_STRING_CHARS } from "../../src/events/bounds.ts";
import { asFileGivesIt, liveOnlyEvent } from "../support/live-only.ts";

const fixture = async (name: string) => {
  const file = `fixtures/sessions/${name}`;
  return { file, text: await readFile(new URL(`../../${file}`, import.meta.url), "utf8") };
};

const header = (id = "s-1", extra: Record<string, unknown> = {}) =>
  JSON.stringify({
    type: "session",
    version: 3,
    id,
    timestamp: "2026-03-14T09:30:00.000Z",
    cwd: "/p",
    ...extra,
  });
let entryNumber = 0;
const entry = (type: string, fields: Record<string, unknown>) =>
  JSON.stringify({
    type,
    id: `e${++entryNumber}`,
    parentId: null,
    timestamp: "2026-03-14T09:30:01.000Z",
    ...fields,
  });
const message = (body: Record<string, unknown>) => entry("message", { message: body });
const assistantText = (text: string) =>
  message({ role: "assistant", content: [{ type: "text", text }], stopReason: "stop", timestamp: 2 });
/** The entries Pi writes before a new session's first message. */
const SETUP = [
  entry("model_change", { provider: "anthropic", modelId: "claude-a" }),
  entry("thinking_level_change", { thinkingLevel: "off" }),
];
const file = (...lines: string[]) => `${[header(), ...lines].join("\n")}\n`;
const numbered = (sessionId: string, events: readonly (readonly [string, Record<string, unknown>])[]) =>
  events.map(([name, payload], seq) => ({ name, sessionId, seq, payload }));
const eventsOf = (text: string) => {
  const read = parseSessionFile(text, "s.jsonl");
  if (!read.ok) throw new Error(JSON.stringify(read.errors));
  return read.events.map(({ name, payload }) => [name, payload] as const);
};

describe("parseSessionFile: sessions Pi wrote", () => {
  it("turns a write that worked, a failing bash call, user input and ! commands into events", async () => {
    const { file, text } = await fixture("write-then-failing-test.jsonl");
    const sessionId = "0197a8e4-5c2b-7f3a-9d41-6b2e8c1f0a57";
    // The model and thinking level Pi wrote before the first message are not events.
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
      ["session_name", { name: "Hello file" }],
      ["input", { text: "Thanks, that's all." }],
      ["turn_end", { assistantTurns: 4 }],
      ["agent_end", { assistantTurns: 4 }],
    ] as const;
    expect(parseSessionFile(text, file)).toEqual({
      ok: true,
      sessionId,
      events: numbered(sessionId, events),
      warnings: [],
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
      // The overloaded request (a reply that failed: no answer, so not counted), then Pi's retry: a new run.
      ["turn_end", { assistantTurns: 0 }],
      ["agent_end", { assistantTurns: 0 }],
      [
        "tool_result",
        { toolName: "read", toolCallId: "toolu_02A", isError: false, input: { path: "hello.txt" } },
      ],
      [
        "tool_result",
        { toolName: "edit", toolCallId: "toolu_02B", isError: true, input: { path: "hello.txt", edits } },
      ],
      ["turn_end", { assistantTurns: 1 }],
      ["turn_end", { assistantTurns: 2 }],
      ["agent_end", { assistantTurns: 2 }],
      ["label", { label: "before-edit", entryId: "20b40a0e" }],
      ["user_bash", { command: "sleep 60", exitCode: null, excludeFromContext: false }],
    ] as const;
    expect(parseSessionFile(text, file)).toEqual({
      ok: true,
      sessionId,
      events: numbered(sessionId, events),
      warnings: [],
    });
  });
});

describe("parseSessionFile: a session the real pi wrote, with what pi-quests recorded live", () => {
  // Made by the real pi 1.6 over RPC, offline, with a scripted model of two models and a test
  // extension (a tool that reads two files with ctx.executeTool, commands that set and clear a
  // label and navigate the tree with a summary), pi-quests loaded: `--name`, a prompt whose tool
  // nests two reads, set_model to the same model and to another, set_thinking_level, a new
  // name, a `!` command, a label set and cleared, a prompt that writes, compact, /tree with a
  // summary (after which Pi re-records the thinking level), a last prompt. The live file is the
  // event log pi-quests wrote in that run, its seals removed.
  it("gives the events recorded live, less what only a live session knows", async () => {
    const { file, text } = await fixture("real-pi-rpc.jsonl");
    const logged = (await fixture("real-pi-rpc.live-events.jsonl")).text
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line) as { name: string; payload: Record<string, unknown> });
    const live = asFileGivesIt(logged).map(({ name, payload }) => [name, payload] as const);
    const read = parseSessionFile(text, file);
    expect(read).toMatchObject({ ok: true, warnings: [] });
    expect(read.ok && read.events.map(({ name, payload }) => [name, payload])).toEqual(live);
    // Among them every kind of entry version 2 reads; the setup, the repeated model and the
    // thinking level re-recorded after /tree are not events.
    expect(live.map(([name]) => name)).toEqual([
      "session_start",
      "input",
      "tool_result",
      "tool_result",
      "tool_result",
      "turn_end",
      "turn_end",
      "agent_end",
      "model_select",
      "thinking_level_select",
      "session_name",
      "user_bash",
      "label",
      "label",
      "input",
      "tool_result",
      "turn_end",
      "turn_end",
      "agent_end",
      "session_compact",
      "session_tree",
      "input",
      "turn_end",
      "agent_end",
    ]);
  });
});

describe("parseSessionFile: where a file reads differently from live, with real files", () => {
  // The real pi over RPC, as above: a prompt whose bash call sleeps, a follow_up sent while it
  // runs, then a fork at that follow-up and a prompt in the fork (one live log for both
  // sessions); and two prompts with settings that compact automatically after each run.
  const liveEvents = async (sessionId: string, log = "real-pi-follow-up-and-fork.live-events.jsonl") =>
    (await fixture(log)).text
      .trim()
      .split("\n")
      .map(
        (line) => JSON.parse(line) as { name: string; sessionId: string; payload: Record<string, unknown> },
      )
      .filter((event) => event.sessionId === sessionId && !liveOnlyEvent(event))
      .map(({ name }) => name);
  const readWhole = async (name: string) => {
    const { file, text } = await fixture(name);
    const read = parseSessionFile(text, file);
    if (!read.ok) throw new Error(JSON.stringify(read.errors));
    expect(read.warnings).toEqual([]);
    return { sessionId: read.sessionId, events: read.events };
  };

  it("a follow-up: the file has a run end before it, since it does not say the run went on", async () => {
    const { sessionId, events } = await readWhole("real-pi-follow-up.jsonl");
    const live = await liveEvents(sessionId);
    const file = events.map((event) => event.name);
    const followUp = file.lastIndexOf("input");
    expect(file.slice(followUp - 1, followUp + 1)).toEqual(["agent_end", "input"]);
    // That agent_end is the only difference.
    expect([...file.slice(0, followUp - 1), ...file.slice(followUp)]).toEqual(live);
  });

  it("an automatic compaction at a run's end: live before the run's agent_end, from the file after it", async () => {
    // Settings that compact after every run (reserveTokens near the context window). In the
    // file it is a compaction after the run's last message, as a /compact typed after the run
    // is, which live comes after the agent_end: the file reads both that way.
    const { sessionId, events } = await readWhole("real-pi-auto-compaction.jsonl");
    const live = await liveEvents(sessionId, "real-pi-auto-compaction.live-events.jsonl");
    const run = ["input", "turn_end"];
    expect(live).toEqual([
      "session_start",
      ...run,
      "session_compact",
      "agent_end",
      ...run,
      "session_compact",
      "agent_end",
    ]);
    expect(events.map((event) => event.name)).toEqual([
      "session_start",
      ...run,
      "agent_end",
      "session_compact",
      ...run,
      "agent_end",
      "session_compact",
    ]);
  });

  it("a fork: the file replays the history it copied; what follows it is as live", async () => {
    const { sessionId, events } = await readWhole("real-pi-fork.jsonl");
    const live = await liveEvents(sessionId);
    expect(events[0]?.payload.parentSession).toMatch(/_01a23236-dc62-73c6-8374-1a6142606bec\.jsonl$/);
    const file = events.map((event) => event.name);
    // The parent's first run, copied (the setup copied with it, and the name, are not events).
    expect(file.slice(1, 6)).toEqual(["input", "tool_result", "turn_end", "turn_end", "agent_end"]);
    expect([file[0], ...file.slice(6)]).toEqual(live);
    // Counted the same way: the copied assistant messages count for the fork live too.
    expect(events.at(-1)?.payload).toEqual({ assistantTurns: 3 });
  });
});

describe("parseSessionFile: the entries of version 2's events", () => {
  it("reads a fork's parent from the header", () => {
    const parent = "/home/learner/.pi/agent/sessions/p.jsonl";
    const read = parseSessionFile(`${header("s-2", { parentSession: parent })}\n`, "s.jsonl");
    expect(read).toMatchObject({
      ok: true,
      events: [{ name: "session_start", payload: { sessionId: "s-2", cwd: "/p", parentSession: parent } }],
      warnings: [],
    });
    // An empty parent is none, as live.
    expect(eventsOf(`${header("s-2", { parentSession: "" })}\n`)).toEqual([
      ["session_start", { sessionId: "s-2", cwd: "/p" }],
    ]);
  });

  it("reads models, thinking levels, compactions, branch summaries, labels and names", () => {
    const text = file(
      entry("session_info", { name: "from --name" }),
      ...SETUP,
      message({ role: "user", content: "Hi", timestamp: 1 }),
      assistantText("Hello."),
      entry("model_change", { provider: "anthropic", modelId: "claude-a" }),
      entry("model_change", { provider: "openai", modelId: "gpt-x" }),
      entry("thinking_level_change", { thinkingLevel: "high" }),
      entry("compaction", { summary: "Said hi.", firstKeptEntryId: "e1", tokensBefore: 10, fromHook: false }),
      entry("branch_summary", { fromId: "e4", summary: "Another hi." }),
      entry("label", { targetId: "e4", label: "greeting" }),
      entry("label", { targetId: "e4" }),
      entry("session_info", { name: "Greetings" }),
      entry("session_info", {}),
    );
    expect(eventsOf(text)).toEqual([
      ["session_start", { sessionId: "s-1", cwd: "/p" }],
      ["input", { text: "Hi" }],
      ["turn_end", { assistantTurns: 1 }],
      ["agent_end", { assistantTurns: 1 }],
      // The setup's model written again (a set_model to it) is no event.
      ["model_select", { provider: "openai", modelId: "gpt-x" }],
      ["thinking_level_select", { level: "high" }],
      ["session_compact", { summary: "Said hi." }],
      ["session_tree", { summarized: true, summary: "Another hi." }],
      ["label", { label: "greeting", entryId: "e4" }],
      ["label", { label: null, entryId: "e4" }],
      ["session_name", { name: "Greetings" }],
      ["session_name", { name: null }],
    ]);
  });

  it("reads the calls a tool made from its result, before the result", () => {
    const text = file(
      message({
        role: "assistant",
        content: [{ type: "toolCall", id: "c1", name: "codemode", arguments: { script: "x" } }],
        stopReason: "toolUse",
        timestamp: 1,
      }),
      message({
        role: "toolResult",
        toolCallId: "c1",
        toolName: "codemode",
        content: [],
        isError: false,
        nestedCalls: {
          calls: [
            { id: "c1/1", name: "read", arguments: { path: "a" }, status: "ok", durationMs: 1 },
            { id: "c1/1/1", name: "ls", arguments: {}, status: "error", error: "no" },
            { id: "c1/2", name: "write", argumentsBytes: 9000, status: "unfinished" },
          ],
          complete: false,
        },
        timestamp: 2,
      }),
    );
    expect(eventsOf(text).slice(1, 5)).toStrictEqual([
      [
        "tool_result",
        {
          toolName: "read",
          toolCallId: "c1/1",
          isError: false,
          input: { path: "a" },
          parentToolCallId: "c1",
        },
      ],
      [
        "tool_result",
        { toolName: "ls", toolCallId: "c1/1/1", isError: true, input: {}, parentToolCallId: "c1/1" },
      ],
      // Neither its arguments (too big) nor its outcome (never finished) are in the file.
      ["tool_result", { toolName: "write", toolCallId: "c1/2", parentToolCallId: "c1" }],
      ["tool_result", { toolName: "codemode", toolCallId: "c1", isError: false, input: { script: "x" } }],
    ]);
  });

  it("cuts long texts as the live event log does", () => {
    const long = "s".repeat(MAX_STRING_CHARS + 500);
    const text = file(
      entry("compaction", { summary: long, firstKeptEntryId: "e1", tokensBefore: 1 }),
      message({ role: "user", content: long, timestamp: 1 }),
    );
    const cut = `${"s".repeat(MAX_STRING_CHARS)}…[500 more chars]`;
    expect(eventsOf(text).slice(1)).toEqual([
      ["session_compact", { summary: cut }],
      ["input", { text: cut }],
    ]);
  });
});

describe("parseSessionFile: a newer Pi's file, damaged", () => {
  it("reads every line it can and warns once for each line it cannot, by file and line", async () => {
    const { file, text } = await fixture("newer-pi-damaged.jsonl");
    const sessionId = "0197a900-aa01-7b00-8c00-1a2b3c4d5e6f";
    const parentSession =
      "/home/learner/.pi/agent/sessions/--home-learner-hello-project--/2026-03-14T10-00-00-000Z_0197a8f0.jsonl";
    // A session format newer than Pi 1.6's (line 1), an entry type (line 5) and a role (line 8)
    // no tested Pi writes are said once each: this Pi is untested. Unknown block types (lines
    // 7, 9) and fields are skipped without a word; a model_change without its model (line 11)
    // and the last line, cut short (line 16), are warnings.
    const events = [
      ["session_start", { sessionId, cwd: "/home/learner/hello-project", parentSession }],
      ["input", { text: "Read hello.txt" }],
      [
        "tool_result",
        { toolName: "read", toolCallId: "toolu_03A", isError: false, input: { path: "hello.txt" } },
      ],
      ["turn_end", { assistantTurns: 1 }],
      ["turn_end", { assistantTurns: 2 }],
      ["agent_end", { assistantTurns: 2 }],
      ["label", { label: null, entryId: "a1000011" }],
      ["session_name", { name: "Reading hello" }],
      ["session_compact", { summary: "The user asked to read hello.txt; it says hello." }],
    ] as const;
    expect(parseSessionFile(text, file)).toEqual({
      ok: true,
      sessionId,
      events: numbered(sessionId, events),
      warnings: [
        {
          file,
          line: 1,
          message:
            "this Pi is untested: an entry of this Pi's session file could not be read (its header says session format 4; pi-quests reads up to 3; read as far as its entries are known)",
        },
        {
          file,
          line: 5,
          message:
            'this Pi is untested: an entry of this Pi\'s session file could not be read (a "workspace_snapshot" entry, first on this line; read without it)',
        },
        {
          file,
          line: 8,
          message:
            'this Pi is untested: an entry of this Pi\'s session file could not be read (a "critic" message, first on this line; read without it)',
        },
        {
          file,
          line: 11,
          message: "model_change entry: modelId: Invalid input: expected string, received undefined",
        },
        {
          file,
          line: 16,
          message: expect.stringMatching(
            /^not valid JSON \(.+\); the file ends in the middle of this line \(was Pi still writing it\?\)$/,
          ),
        },
      ],
    });
  });

  it("reads around malformed lines in the middle of a file", async () => {
    const { file, text } = await fixture("malformed-lines.jsonl");
    const sessionId = "0197a8e4-5c2b-7f3a-9d41-6b2e8c1f0a57";
    const read = parseSessionFile(text, file);
    expect(read).toEqual({
      ok: true,
      sessionId,
      events: numbered(sessionId, [
        ["session_start", { sessionId, cwd: "/home/learner/hello-project" }],
        ["input", { text: "Create hello.txt containing hi, then run the tests." }],
        // The session ends waiting for the write's result, which line 4 held.
        ["turn_end", { assistantTurns: 1 }],
      ]),
      warnings: [
        // Not the last line: a line cut short in the middle of the file is only bad JSON.
        { file, line: 4, message: expect.stringMatching(/^not valid JSON \((?!.*the file ends).+\)$/) },
        {
          file,
          line: 5,
          message:
            "toolResult message: toolCallId: Invalid input: expected string, received undefined; " +
            "isError: Invalid input: expected boolean, received string",
        },
      ],
    });
  });

  it("warns about a second header and lines that are not entries, and reads on", () => {
    const text = [
      header(),
      header("s-2"),
      "42",
      JSON.stringify({ type: "message" }),
      message({ role: "user", content: "still read", timestamp: 1 }),
    ].join("\n");
    expect(parseSessionFile(text, "s.jsonl")).toMatchObject({
      ok: true,
      events: [{ name: "session_start" }, { name: "input", payload: { text: "still read" } }],
      warnings: [
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

  it("one warning for each entry with a field it cannot use, whatever its type", () => {
    const lines = [
      entry("thinking_level_change", { thinkingLevel: 3 }),
      entry("compaction", { firstKeptEntryId: "e1", tokensBefore: 1 }),
      entry("branch_summary", { summary: ["not", "text"] }),
      entry("label", { label: "x" }),
      entry("session_info", { name: 7 }),
      message({ role: "user", content: 12, timestamp: 1 }),
      message({ role: "bashExecution", command: "ls", exitCode: "0", timestamp: 1 }),
      message({ role: "assistant", content: "text", timestamp: 1 }),
    ];
    const read = parseSessionFile(file(...lines), "s.jsonl");
    expect(read.ok && read.events.map((event) => event.name)).toEqual(["session_start"]);
    expect(read.ok && read.warnings.map(({ line, message }) => `${line}: ${message}`)).toEqual([
      "2: thinking_level_change entry: thinkingLevel: Invalid input: expected string, received number",
      "3: compaction entry: summary: Invalid input: expected string, received undefined",
      "4: branch_summary entry: summary: Invalid input: expected string, received array",
      "5: label entry: targetId: Invalid input: expected string, received undefined",
      "6: session_info entry: name: Invalid input: expected string, received number",
      "7: user message: content: Invalid input",
      "8: bashExecution message: exitCode: Invalid input: expected number, received string",
      "9: assistant message: content: Invalid input: expected array, received string; " +
        "stopReason: Invalid input: expected string, received undefined",
    ]);
  });

  it("keeps an assistant message without its broken tool call: the turn still counts", () => {
    const broken = message({
      role: "assistant",
      content: [
        { type: "text", text: "Writing." },
        { type: "toolCall", name: "write", arguments: {} },
        { type: "toolCall", id: "c2", name: "ls", arguments: {} },
      ],
      stopReason: "toolUse",
      timestamp: 1,
    });
    const result = message({
      role: "toolResult",
      toolCallId: "c2",
      toolName: "ls",
      isError: false,
      timestamp: 2,
    });
    const read = parseSessionFile(file(broken, result, assistantText("Done.")), "s.jsonl");
    expect(read).toMatchObject({
      ok: true,
      warnings: [
        {
          file: "s.jsonl",
          line: 2,
          message:
            "assistant message: content.1.id: Invalid input: expected string, received undefined; " +
            "the message is read without that tool call",
        },
      ],
    });
    expect(read.ok && read.events.map(({ name, payload }) => [name, payload])).toEqual([
      ["session_start", { sessionId: "s-1", cwd: "/p" }],
      ["tool_result", { toolName: "ls", toolCallId: "c2", isError: false, input: {} }],
      ["turn_end", { assistantTurns: 1 }],
      ["turn_end", { assistantTurns: 2 }],
      ["agent_end", { assistantTurns: 2 }],
    ]);
  });

  it("keeps a tool's result without a nested call it cannot read, or one that names another caller", () => {
    const result = message({
      role: "toolResult",
      toolCallId: "c1",
      toolName: "codemode",
      isError: false,
      nestedCalls: {
        calls: [
          { id: "c1/1", name: "read", status: "ok", arguments: {} },
          { id: "c1/2", name: "read", status: "pending" },
          { id: "other/1", name: "read", status: "ok" },
        ],
        complete: true,
      },
      timestamp: 2,
    });
    const read = parseSessionFile(file(result), "s.jsonl");
    expect(read.ok && read.events.map((event) => event.payload.toolCallId)).toEqual([
      undefined,
      "c1/1",
      "c1",
    ]);
    expect(read.ok && read.warnings).toEqual([
      {
        file: "s.jsonl",
        line: 2,
        message:
          'toolResult message: nestedCalls.calls.1.status: Invalid option: expected one of "ok"|"error"|"unfinished"; ' +
          'nestedCalls.calls.2.id: "other/1" is not a call made under this tool call (c1/…); ' +
          "the result is read without those nested calls",
      },
    ]);
    const notAList = message({
      role: "toolResult",
      toolCallId: "c1",
      toolName: "codemode",
      isError: false,
      nestedCalls: { calls: "c1/1" },
      timestamp: 2,
    });
    expect(parseSessionFile(file(notAList), "s.jsonl")).toMatchObject({
      ok: true,
      events: [{ name: "session_start" }, { name: "tool_result", payload: { toolCallId: "c1" } }],
      warnings: [
        {
          line: 2,
          message:
            "toolResult message: nestedCalls.calls: Invalid input: expected array, received string; " +
            "the result is read without its nested calls",
        },
      ],
    });
  });

  it("warns about a parent session that is not a file name, and reads the header without it", () => {
    expect(parseSessionFile(`${header("s-1", { parentSession: 5 })}\n`, "s.jsonl")).toEqual({
      ok: true,
      sessionId: "s-1",
      events: [{ name: "session_start", sessionId: "s-1", seq: 0, payload: { sessionId: "s-1", cwd: "/p" } }],
      warnings: [
        {
          file: "s.jsonl",
          line: 1,
          message:
            "session header: parentSession: expected the parent session's file, found number; read without it",
        },
      ],
    });
  });
});

describe("parseSessionFile: files it refuses", () => {
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

  it("refuses a header without an id or a folder", () => {
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
    const noCwd = JSON.stringify({ type: "session", version: 3, id: "s-1" });
    expect(parseSessionFile(`${noCwd}\n${message({ role: "user", content: "hi" })}\n`, "s.jsonl")).toEqual({
      ok: false,
      errors: [
        {
          file: "s.jsonl",
          line: 1,
          message: "session header: cwd: Invalid input: expected string, received undefined",
        },
      ],
    });
  });
});

describe("parseSessionFile: tolerance", () => {
  it("skips entry types, roles and blocks it does not use (an unknown type or role said once: this Pi is untested), and reads CRLF files with blank lines", () => {
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
      entry("some_future_entry", {}),
      message({ role: "custom", customType: "x", content: "", timestamp: 2 }),
      entry("custom", { customType: "x", data: {} }),
      message({
        role: "assistant",
        content: [
          { type: "future_block", data: 1 },
          { type: "toolCall", id: "c1", name: "ls", arguments: {} },
        ],
        stopReason: "toolUse",
        timestamp: 3,
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
      events: numbered("s-1", [
        ["session_start", { sessionId: "s-1", cwd: "/p" }],
        ["tool_result", { toolName: "ls", toolCallId: "c1", isError: false, input: {} }],
        ["tool_result", { toolName: "ls", toolCallId: "c9", isError: false, input: {} }],
        // A session that ends mid-run: the turn is closed, the run is not.
        ["turn_end", { assistantTurns: 1 }],
      ]),
      warnings: [
        {
          file: "s.jsonl",
          line: 3,
          message:
            'this Pi is untested: an entry of this Pi\'s session file could not be read (a "some_future_entry" entry, first on this line; read without it)',
        },
        {
          file: "s.jsonl",
          line: 5,
          message:
            'this Pi is untested: an entry of this Pi\'s session file could not be read (a "custom_role_from_an_extension" message, first on this line; read without it)',
        },
      ],
    });
  });

  it("never throws, whatever the text", () => {
    for (const text of ["null", "[]", "\u0000", "}{", `${header()}\nnull`, `${header()}\n{"type":1}`]) {
      expect(() => parseSessionFile(text, "x")).not.toThrow();
    }
    // Nothing without a header; after one, a warning for the line.
    for (const text of ["null", "[]", "\u0000", "}{"]) expect(parseSessionFile(text, "x").ok).toBe(false);
    for (const text of [`${header()}\nnull`, `${header()}\n{"type":1}`])
      expect(parseSessionFile(text, "x")).toMatchObject({ ok: true, warnings: [{ line: 2 }] });
  });
});
