import { appendFile, readFile, rm } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { sealRecord } from "../../src/core/seal.ts";
import { readEventLog } from "../../src/events/log-reader.ts";
import { createEventLog } from "../../src/events/log-writer.ts";
import type { VerifierEvent } from "../../src/events/schema.ts";
import type { RememberedLog } from "../../src/extension/process-memory.ts";
import { eventLogChanged, ownEventLog, progressWatch } from "../../src/extension/record-memory.ts";
import { testSealer } from "../support/seal.ts";
import { makeWorkspace, removeWorkspaces } from "../support/workspace.ts";

afterEach(removeWorkspaces);

const SEALER = testSealer();
const turn = (assistantTurns: number) => ({ name: "turn_end", payload: { assistantTurns } });

/** One session of a process: the log opened from the file as session.ts opens it, `record`ed into, closed. */
async function session(logs: Map<string, RememberedLog>, file: string, record: number[]) {
  const read = await readEventLog(file, SEALER, "lenient");
  const own = await ownEventLog(logs, file, read.events);
  const firstSeq = own.events.reduce((next, event) => Math.max(next, event.seq + 1), 0);
  const log = createEventLog(file, own.events, firstSeq, {
    sealer: SEALER,
    rewriteFirst: own.changedOnDisk,
    onWritten: own.onWritten,
  });
  for (const turns of record) log.record(turn(turns), "s-1");
  await log.flush();
  return { own, events: log.events() };
}

const forgedLine = (seq: number) =>
  `${JSON.stringify(sealRecord(SEALER, { name: "quest_completed", seq, payload: { quest: "q" } } satisfies VerifierEvent))}\n`;

describe("the event log against what this process last left in it", () => {
  it("a line sealed and appended between two sessions is not read: this process's events are, and the file is written again", async () => {
    const file = join(makeWorkspace(), "events.jsonl");
    const logs = new Map<string, RememberedLog>();
    await session(logs, file, [1, 2]);
    await appendFile(file, forgedLine(2));
    const next = await session(logs, file, [3]);
    expect(next.own.changedOnDisk).toBe(true);
    expect(next.events.map((event) => [event.seq, event.name])).toEqual([
      [0, "turn_end"],
      [1, "turn_end"],
      [2, "turn_end"],
    ]);
    const reread = await readEventLog(file, SEALER, "lenient");
    expect(reread.events).toEqual(next.events);
    // The memory follows the rewrite and the append after it: the next session finds the file as left.
    expect((await session(logs, file, [])).own.changedOnDisk).toBe(false);
  });

  it("a log removed between two sessions is noticed too", async () => {
    const file = join(makeWorkspace(), "events.jsonl");
    const logs = new Map<string, RememberedLog>();
    await session(logs, file, [1]);
    await rm(file);
    const next = await session(logs, file, []);
    expect(next.own.changedOnDisk).toBe(true);
    expect(next.events).toHaveLength(1);
  });

  it("a process's first session trusts the file as it reads it (only the seals stand before it)", async () => {
    const file = join(makeWorkspace(), "events.jsonl");
    await session(new Map(), file, [1]);
    await appendFile(file, forgedLine(1));
    const fresh = await session(new Map(), file, []);
    expect(fresh.own.changedOnDisk).toBe(false);
    expect(fresh.events.map((event) => event.name)).toEqual(["turn_end", "quest_completed"]);
  });

  it("compacting rewrites are followed like appends", async () => {
    const file = join(makeWorkspace(), "events.jsonl");
    const logs = new Map<string, RememberedLog>();
    const read = await readEventLog(file, SEALER, "lenient");
    const own = await ownEventLog(logs, file, read.events);
    const log = createEventLog(file, own.events, 0, {
      sealer: SEALER,
      maxEvents: 4,
      onWritten: own.onWritten,
    });
    for (const turns of [1, 2, 3, 4, 5, 6]) log.record(turn(turns));
    await log.flush();
    expect((await readFile(file, "utf8")).trim().split("\n").length).toBeLessThan(6);
    expect((await ownEventLog(logs, file, [])).changedOnDisk).toBe(false);
  });
});

describe("what the learner is told", () => {
  it("an altered event log, and a progress file set aside or removed", () => {
    const alerts: unknown[] = [];
    eventLogChanged("/d/events.jsonl", (alert) => alerts.push(alert));
    const watch = progressWatch(new Map(), "/d/progress.json", (alert) => alerts.push(alert));
    watch.changedOnDisk("/d/progress.json.altered-x");
    watch.changedOnDisk(undefined);
    expect(alerts).toEqual([
      {
        kind: "altered",
        record: "event",
        where: "/d/events.jsonl",
        reason:
          "the file changed after this Pi last wrote it, by something other than pi-quests in this Pi: the events this Pi recorded are used, and the file is written again",
      },
      {
        kind: "altered",
        record: "progress",
        where: "/d/progress.json.altered-x",
        reason:
          "it changed after this Pi last wrote it, by something other than pi-quests in this Pi: it was set aside, and pi-quests put its own back",
      },
      {
        kind: "altered",
        record: "progress",
        where: "/d/progress.json",
        reason: "it was removed after this Pi last wrote it: pi-quests put its own back",
      },
    ]);
  });
});
