import { mkdir, readdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { verifyRecord } from "../../src/core/seal.ts";
import { MAX_ARRAY_ITEMS, MAX_CHANGED_PATHS, MAX_STRING_CHARS } from "../../src/events/bounds.ts";
import { readEventLog } from "../../src/events/log-reader.ts";
import {
  createEventLog,
  DEFAULT_MAX_EVENTS,
  type EventLog,
  type EventLogOptions,
  nextSeqOf,
} from "../../src/events/log-writer.ts";
import {
  inputEvent,
  LIFECYCLE_EVENTS,
  QUEST_ACTIVATED_EVENT,
  QUEST_COMPLETED_EVENT,
  toolResultEvent,
  turnEndEvent,
} from "../../src/events/names.ts";
import type { VerifierEvent } from "../../src/events/schema.ts";
import { sealedJson, testSealer } from "../support/seal.ts";
import { makeWorkspace, removeWorkspaces } from "../support/workspace.ts";

/** Every log a test opened: its background writes end before the folders are removed. */
const opened: EventLog[] = [];
afterEach(async () => {
  await Promise.all(opened.splice(0).map((log) => log.flush()));
  removeWorkspaces();
});

const eventsFile = (dir = makeWorkspace()) => join(dir, "data", "events.jsonl");

/** The key every log of this file seals with. */
const SEALER = testSealer();

function openLog(
  options: Partial<EventLogOptions> & { file?: string; events?: VerifierEvent[]; firstSeq?: number } = {},
) {
  const file = options.file ?? eventsFile();
  const log = createEventLog(file, options.events ?? [], options.firstSeq ?? 0, {
    sealer: SEALER,
    ...options,
  });
  opened.push(log);
  return log;
}

/** The file as the events it holds, one sealed JSON object a line (each seal checked, then left out). */
async function fileEvents(file: string): Promise<unknown[]> {
  const text = await readFile(file, "utf8");
  expect(text.endsWith("\n")).toBe(true);
  return text
    .split("\n")
    .filter((line) => line !== "")
    .map((line) => {
      const verified = verifyRecord(SEALER, JSON.parse(line));
      expect(verified.ok).toBe(true);
      return verified.ok ? verified.record : undefined;
    });
}

/** A line as pi-quests writes it, sealed with this file's key. */
const sealedLine = (json: string) => sealedJson(SEALER, JSON.parse(json));

const activated = (quest: string) => ({ name: QUEST_ACTIVATED_EVENT, payload: { quest } });
const completed = (quest: string) => ({ name: QUEST_COMPLETED_EVENT, payload: { quest } });

describe("recording", () => {
  it("numbers events in order from firstSeq and returns each as recorded", () => {
    const log = openLog({ firstSeq: 7 });
    expect(log.nextSeq()).toBe(7);
    const first = log.record(inputEvent({ content: "hello" }), "session-1");
    const second = log.record(turnEndEvent({ assistantTurns: 1 }));
    expect(first).toEqual({ name: "input", sessionId: "session-1", seq: 7, payload: { text: "hello" } });
    expect(second).toEqual({ name: "turn_end", seq: 8, payload: { assistantTurns: 1 } });
    expect(log.nextSeq()).toBe(9);
    expect(log.events()).toEqual([first, second]);
  });

  it("leaves out an empty session id", () => {
    const log = openLog();
    expect(log.record(inputEvent({ content: "hi" }), "")).not.toHaveProperty("sessionId");
  });

  it("holds the events it was opened with, before the new ones", () => {
    const old: VerifierEvent = { name: "input", seq: 3, payload: { text: "before" } };
    const log = openLog({ events: [old], firstSeq: 4 });
    const added = log.record(inputEvent({ content: "after" }));
    expect(log.events()).toEqual([old, added]);
  });

  it("writes one JSON line an event: after flush the file equals the events", async () => {
    const file = eventsFile();
    const log = openLog({ file });
    log.record(inputEvent({ content: "hello" }), "s");
    log.record(
      toolResultEvent({ toolName: "write", toolCallId: "c1", isError: false, input: { path: "a" } }),
      "s",
    );
    log.record(turnEndEvent({ assistantTurns: 1 }), "s");
    await log.flush();
    expect(await fileEvents(file)).toEqual(log.events());
  });

  it("appends to an existing file, keeping what was there", async () => {
    const file = eventsFile();
    const first = openLog({ file });
    first.record(inputEvent({ content: "one" }));
    await first.flush();
    const reopened = await readEventLog(file, SEALER, "lenient");
    const second = openLog({ file, events: reopened.events, firstSeq: 1 });
    second.record(inputEvent({ content: "two" }));
    await second.flush();
    expect(await fileEvents(file)).toEqual([
      { name: "input", seq: 0, payload: { text: "one" } },
      { name: "input", seq: 1, payload: { text: "two" } },
    ]);
  });

  it("a write error is reported to onWriteError, never thrown from record or flush", async () => {
    const dir = makeWorkspace({ "not-a-folder": "x" });
    const errors: unknown[] = [];
    const log = openLog({
      file: join(dir, "not-a-folder", "events.jsonl"),
      onWriteError: (e) => errors.push(e),
    });
    expect(() => log.record(inputEvent({ content: "hi" }))).not.toThrow();
    await log.flush(); // resolves, does not reject
    expect(errors.length).toBeGreaterThan(0);
    // mkdir of the folder meets a file there.
    expect((errors[0] as NodeJS.ErrnoException).code).toBe("EEXIST");
    // Recording goes on in memory.
    expect(log.events().map((event) => event.seq)).toEqual([0]);
  });

  it("a log whose folder cannot be made leaves no unhandled promise rejection before its first event", async () => {
    // Pi runs with unhandled rejections fatal: the folder is made when the log is created, and
    // that failure must reach onWriteError, not the process, even if no event comes soon.
    const dir = makeWorkspace({ "not-a-folder": "x" });
    const unhandled: unknown[] = [];
    const errors: unknown[] = [];
    const saved = process.listeners("unhandledRejection");
    process.removeAllListeners("unhandledRejection");
    const catchIt = (reason: unknown) => unhandled.push(reason);
    process.on("unhandledRejection", catchIt);
    try {
      const log = openLog({
        file: join(dir, "not-a-folder", "events.jsonl"),
        onWriteError: (error) => errors.push(error),
      });
      // A turn of the event loop with nothing recorded, as while Pi loads the session.
      await new Promise((resolve) => setTimeout(resolve, 0));
      await new Promise((resolve) => setImmediate(resolve));
      log.record(inputEvent({ content: "hi" }));
      await log.flush();
    } finally {
      process.off("unhandledRejection", catchIt);
      for (const listener of saved) process.on("unhandledRejection", listener);
    }
    expect(unhandled).toEqual([]);
    expect(errors.length).toBeGreaterThan(0);
  });
});

describe("payloads are bounded", () => {
  it(`cuts strings longer than ${MAX_STRING_CHARS} characters and says how much was cut`, () => {
    const log = openLog();
    const long = "x".repeat(MAX_STRING_CHARS + 3000);
    const recorded = log.record(
      toolResultEvent({
        toolName: "write",
        toolCallId: "c1",
        isError: false,
        input: { path: "big.txt", content: long },
      }),
    );
    const input = recorded.payload.input as { path: string; content: string };
    expect(input.path).toBe("big.txt");
    expect(input.content).toBe(`${"x".repeat(MAX_STRING_CHARS)}…[3000 more chars]`);
  });

  it(`keeps a string of exactly ${MAX_STRING_CHARS} characters whole`, () => {
    const exact = "y".repeat(MAX_STRING_CHARS);
    expect(openLog().record({ name: "input", payload: { text: exact } }).payload.text).toBe(exact);
  });

  it("cuts strings inside arrays too, and keeps numbers, booleans and null", () => {
    const long = "z".repeat(MAX_STRING_CHARS + 1);
    const recorded = openLog().record({ name: "x", payload: { list: [long, 1, true, null] } });
    expect(recorded.payload.list).toEqual([`${"z".repeat(MAX_STRING_CHARS)}…[1 more chars]`, 1, true, null]);
  });

  it("summarizes nesting deeper than six levels", () => {
    type Nest = { a?: Nest; leaf?: string };
    let nested: Nest = { leaf: "bottom" };
    for (let i = 0; i < 10; i++) nested = { a: nested };
    const recorded = openLog().record({ name: "x", payload: nested as Record<string, unknown> });
    // payload.a (level 1) … payload.a.a.a.a.a (level 5) are kept; the object at level 6 is not.
    let level: unknown = recorded.payload;
    for (let depth = 1; depth <= 5; depth++) {
      level = (level as Nest).a;
      expect(typeof level).toBe("object");
    }
    expect((level as Nest).a).toBe("[nested too deep]");
    expect(JSON.stringify(recorded).length).toBeLessThan(200);
  });

  it(`keeps a tool call's changedPaths up to ${MAX_CHANGED_PATHS} paths, and other lists at ${MAX_ARRAY_ITEMS} items`, () => {
    const paths = Array.from({ length: MAX_CHANGED_PATHS }, (_, at) => `f${at}.txt`);
    const recorded = openLog().record(
      toolResultEvent({
        toolName: "bash",
        toolCallId: "c1",
        isError: false,
        input: { paths },
        changes: { paths, truncated: true },
      }),
    );
    expect(recorded.payload.changedPaths).toEqual(paths);
    expect(recorded.payload.changedPathsTruncated).toBe(true);
    // The same list anywhere else is cut at the usual bound.
    const input = recorded.payload.input as { paths: string[] };
    expect(input.paths).toHaveLength(MAX_ARRAY_ITEMS + 1);
    expect(input.paths.at(-1)).toBe(`…[${MAX_CHANGED_PATHS - MAX_ARRAY_ITEMS} more items]`);
  });

  it("records a copy: the caller's payload is not changed", () => {
    const payload = { text: "q".repeat(MAX_STRING_CHARS * 2) };
    openLog().record({ name: "input", payload });
    expect(payload.text.length).toBe(MAX_STRING_CHARS * 2);
  });
});

describe("the log is bounded", () => {
  it(`keeps ${DEFAULT_MAX_EVENTS} events by default`, () => {
    expect(DEFAULT_MAX_EVENTS).toBe(5000);
    expect([...LIFECYCLE_EVENTS].sort()).toEqual([QUEST_ACTIVATED_EVENT, QUEST_COMPLETED_EVENT]);
  });

  it("past maxEvents drops the oldest ordinary events down to three quarters, keeping lifecycle events", () => {
    const log = openLog({ maxEvents: 8 });
    log.record(activated("first-prompt")); // seq 0
    log.record(inputEvent({ content: "1" })); // seq 1
    log.record(completed("first-prompt")); // seq 2
    log.record(activated("first-file")); // seq 3
    for (let i = 2; i <= 5; i++) log.record(inputEvent({ content: String(i) })); // seq 4..7: 8 events, the limit
    expect(log.events()).toHaveLength(8);
    log.record(inputEvent({ content: "6" })); // seq 8: 9 events, 6 are kept
    expect(log.events().map((event) => event.seq)).toEqual([0, 2, 3, 6, 7, 8]);
    expect(log.events().map((event) => event.name)).toEqual([
      QUEST_ACTIVATED_EVENT,
      QUEST_COMPLETED_EVENT,
      QUEST_ACTIVATED_EVENT,
      "input",
      "input",
      "input",
    ]);
    expect(log.nextSeq()).toBe(9);
  });

  it("rewrites the file to the kept events, atomically, and appends after it", async () => {
    const file = eventsFile();
    const log = openLog({ file, maxEvents: 4 });
    log.record(activated("q"));
    for (let i = 0; i < 6; i++) log.record(inputEvent({ content: String(i) }));
    await log.flush();
    expect(await fileEvents(file)).toEqual(log.events());
    log.record(turnEndEvent({ assistantTurns: 1 }));
    await log.flush();
    expect(await fileEvents(file)).toEqual(log.events());
    expect(log.events()[0]?.name).toBe(QUEST_ACTIVATED_EVENT);
    expect(await readdir(join(file, ".."))).toEqual(["events.jsonl"]);
  });

  it("Infinity keeps everything", () => {
    const log = openLog({ maxEvents: Number.POSITIVE_INFINITY });
    for (let i = 0; i < 50; i++) log.record(inputEvent({ content: String(i) }));
    expect(log.events()).toHaveLength(50);
  });
});

describe("nextSeqOf: where a log continues, from its last line", () => {
  it("is 0 for a missing file", async () => {
    expect(await nextSeqOf(eventsFile(), SEALER)).toBe(0);
  });

  it("is 0 for an empty file", async () => {
    const dir = makeWorkspace({ "events.jsonl": "" });
    expect(await nextSeqOf(join(dir, "events.jsonl"), SEALER)).toBe(0);
  });

  it("is one past the last event's seq", async () => {
    const file = eventsFile();
    const log = openLog({ file, firstSeq: 40 });
    for (let i = 0; i < 3; i++) log.record(inputEvent({ content: String(i) }));
    await log.flush();
    expect(await nextSeqOf(file, SEALER)).toBe(43);
    expect(await nextSeqOf(file, SEALER)).toBe(log.nextSeq());
  });

  it("skips a partial last line (a crash mid-write) and uses the line before", async () => {
    const dir = makeWorkspace({
      "events.jsonl": `${sealedLine('{"name":"input","seq":0,"payload":{}}')}\n${sealedLine('{"name":"input","seq":1,"payload":{}}')}\n{"name":"inp`,
    });
    expect(await nextSeqOf(join(dir, "events.jsonl"), SEALER)).toBe(2);
  });

  it("reads a log whose last line is longer than its 64 KiB read window", async () => {
    // Strings are cut to MAX_STRING_CHARS, but an array of them is not: one tool call's input
    // can make a line of any length. A wrong answer here numbers new events from 0 again.
    const file = eventsFile();
    const log = openLog({ file });
    log.record(inputEvent({ content: "before" }));
    log.record(
      toolResultEvent({
        toolName: "edit",
        toolCallId: "c1",
        isError: false,
        input: { edits: Array.from({ length: 40 }, () => "e".repeat(MAX_STRING_CHARS)) },
      }),
    );
    await log.flush();
    expect((await readFile(file)).length).toBeGreaterThan(64 * 1024);
    expect(await nextSeqOf(file, SEALER)).toBe(2);
  });
});

describe("readEventLog: reading a log back", () => {
  it("is empty for a missing file", async () => {
    expect(await readEventLog(eventsFile(), SEALER, "lenient")).toEqual({
      events: [],
      skippedLines: 0,
      alteredLines: [],
    });
  });

  it("returns the valid events in seq order, skipping and counting lines that are not events", async () => {
    const dir = makeWorkspace();
    const file = join(dir, "events.jsonl");
    await writeFile(
      file,
      [
        sealedLine('{"name":"input","seq":2,"payload":{"text":"b"}}'),
        "not json at all",
        "",
        sealedLine('{"name":"input","seq":0,"payload":{"text":"a"}}'),
        sealedLine('{"seq":1,"payload":{}}'),
        sealedLine('{"name":"turn_end","seq":3}'),
        sealedLine('{"name":"input","seq":4,"payload":{},"extra":1}'),
        '{"name":"input","seq":5,"pay',
      ].join("\n"),
    );
    const read = await readEventLog(file, SEALER, "lenient");
    expect(read.skippedLines).toBe(4);
    expect(read.alteredLines).toEqual([]);
    expect(read.events).toEqual([
      { name: "input", seq: 0, payload: { text: "a" } },
      { name: "input", seq: 2, payload: { text: "b" } },
      { name: "turn_end", seq: 3, payload: {} },
    ]);
  });

  it("reads back exactly what the log wrote", async () => {
    const file = eventsFile();
    const log = openLog({ file });
    log.record(activated("first-file"), "s1");
    log.record(inputEvent({ content: "x".repeat(MAX_STRING_CHARS + 10) }), "s1");
    await log.flush();
    expect(await readEventLog(file, SEALER, "lenient")).toEqual({
      events: log.events(),
      skippedLines: 0,
      alteredLines: [],
    });
  });
});

describe("the file is what `pi-quests check --events` reads", () => {
  it("the CLI's reader accepts it and sees the same events", async () => {
    const file = eventsFile();
    const log = openLog({ file });
    log.record(activated("first-file"), "s1");
    log.record(inputEvent({ content: "create hello.txt" }), "s1");
    log.record(
      toolResultEvent({ toolName: "write", toolCallId: "c1", isError: false, input: { path: "hello.txt" } }),
      "s1",
    );
    log.record(turnEndEvent({ assistantTurns: 1, turnIndex: 0 }), "s1");
    await log.flush();
    expect(await readEventLog(file, SEALER, "strict")).toEqual({
      ok: true,
      events: log.events(),
      warnings: [],
    });
  });

  it("still accepts it after a compaction rewrote it", async () => {
    const file = eventsFile();
    const log = openLog({ file, maxEvents: 5 });
    log.record(activated("q"), "s1");
    for (let i = 0; i < 12; i++) log.record(inputEvent({ content: String(i) }), "s1");
    await log.flush();
    expect(await readEventLog(file, SEALER, "strict")).toEqual({
      ok: true,
      events: log.events(),
      warnings: [],
    });
  });

  it("and after a restart continued it from nextSeqOf", async () => {
    const file = eventsFile();
    const first = openLog({ file });
    first.record(inputEvent({ content: "one" }), "s1");
    first.record(turnEndEvent({ assistantTurns: 1 }), "s1");
    await first.flush();
    const second = openLog({ file, firstSeq: await nextSeqOf(file, SEALER) });
    second.record(inputEvent({ content: "two" }), "s2");
    await second.flush();
    const read = await readEventLog(file, SEALER, "strict");
    expect(read.ok && read.events.map((event) => [event.seq, event.sessionId])).toEqual([
      [0, "s1"],
      [1, "s1"],
      [2, "s2"],
    ]);
  });
});

describe("the folder", () => {
  it("is created with the log, on the first write", async () => {
    const dir = makeWorkspace();
    const file = join(dir, "a", "b", "events.jsonl");
    const log = openLog({ file });
    log.record(inputEvent({ content: "hi" }));
    await log.flush();
    expect(await readdir(join(dir, "a", "b"))).toEqual(["events.jsonl"]);
  });

  it("an existing folder is fine", async () => {
    const dir = makeWorkspace();
    await mkdir(join(dir, "data"));
    const log = openLog({ file: join(dir, "data", "events.jsonl") });
    log.record(inputEvent({ content: "hi" }));
    await log.flush();
    expect(await fileEvents(join(dir, "data", "events.jsonl"))).toHaveLength(1);
  });
});
