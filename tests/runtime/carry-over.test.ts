/**
 * Progress handed on to a new, empty folder: left by a folder where a quest could not set up its
 * practice files, offered (`peek`) to the next empty folder without progress of its own soon
 * after, taken once (`claim`), sealed like every other record.
 */
import { copyFileSync, existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { openRecordSealer } from "../../src/core/record-sealers.ts";
import { sealRecord } from "../../src/core/seal.ts";
import { CARRY_OVER_MAX_AGE_MS, openCarryOverStore } from "../../src/runtime/carry-over.ts";
import { makeWorkspace, removeWorkspaces } from "../support/workspace.ts";

afterEach(removeWorkspaces);

const NOW = new Date("2030-01-02T03:04:05.000Z");
const later = (ms: number) => () => new Date(NOW.getTime() + ms);
const DONE = { "first-prompt": { at: "2030-01-01T00:00:00.000Z", definitionHash: "a".repeat(64) } };
const LEFT = {
  quest: "read-first",
  completed: DONE,
  skipped: { "first-file": { at: "2030-01-01T00:00:01.000Z" } },
};

function folders() {
  return { dataDir: makeWorkspace(), here: makeWorkspace({ "notes.md": "mine\n" }), empty: makeWorkspace() };
}

/** What a new, empty folder would take now: offered, then claimed. */
async function take(dataDir: string, workspace: string, now = () => NOW) {
  const store = openCarryOverStore(dataDir, workspace, now);
  const offered = await store.peek();
  return offered ? store.claim(offered) : undefined;
}

describe("a carry-over", () => {
  it("left by one folder is offered to a new, empty one and taken: where from, the quest to start, done and skipped", async () => {
    const { dataDir, here, empty } = folders();
    expect(await openCarryOverStore(dataDir, here, () => NOW).leave(LEFT)).toBe(true);
    const expected = { version: 1, from: here, ...LEFT, at: NOW.toISOString() };
    expect(await openCarryOverStore(dataDir, empty, () => NOW).peek()).toEqual(expected);
    expect(await take(dataDir, empty)).toEqual(expected);
  });

  it("is taken once; a peek takes nothing", async () => {
    const { dataDir, here, empty } = folders();
    await openCarryOverStore(dataDir, here, () => NOW).leave(LEFT);
    const store = openCarryOverStore(dataDir, empty, () => NOW);
    const offered = await store.peek();
    expect(await store.peek()).toEqual(offered);
    if (!offered) throw new Error("not offered");
    // Two Pis that were both offered it: one gets it.
    const claims = await Promise.all([
      store.claim(offered),
      openCarryOverStore(dataDir, makeWorkspace()).claim(offered),
    ]);
    expect(claims.filter((claim) => claim !== undefined)).toHaveLength(1);
    expect(await take(dataDir, makeWorkspace())).toBeUndefined();
  });

  it("is not offered to the folder that left it, even once emptied, nor to one with files in it", async () => {
    const { dataDir, empty } = folders();
    // The folder that left it, now empty: the from check alone refuses it.
    await openCarryOverStore(dataDir, empty, () => NOW).leave(LEFT);
    expect(await take(dataDir, empty)).toBeUndefined();
    expect(await take(dataDir, makeWorkspace({ "app.js": "" }))).toBeUndefined();
    // Still there for the folder the advice asked for.
    expect(await take(dataDir, makeWorkspace())).toMatchObject({ quest: "read-first" });
  });

  it("waits a while, not for ever: older than the limit, it is not offered", async () => {
    const { dataDir, here, empty } = folders();
    await openCarryOverStore(dataDir, here, () => NOW).leave(LEFT);
    expect(await take(dataDir, empty, later(CARRY_OVER_MAX_AGE_MS + 1))).toBeUndefined();
    expect(await take(dataDir, empty, later(CARRY_OVER_MAX_AGE_MS))).toMatchObject({ quest: "read-first" });
  });

  it("the newest one wins", async () => {
    const { dataDir, here, empty } = folders();
    await openCarryOverStore(dataDir, here, () => NOW).leave(LEFT);
    await openCarryOverStore(dataDir, here, () => NOW).leave({ ...LEFT, quest: "first-file" });
    expect(await take(dataDir, empty)).toMatchObject({ quest: "first-file" });
  });

  it("a claim of something other than what was offered takes nothing", async () => {
    const { dataDir, here, empty } = folders();
    await openCarryOverStore(dataDir, here, () => NOW).leave(LEFT);
    const store = openCarryOverStore(dataDir, empty, () => NOW);
    const offered = await store.peek();
    if (!offered) throw new Error("not offered");
    await openCarryOverStore(dataDir, here, () => NOW).leave({ ...LEFT, quest: "first-file" });
    expect(await store.claim(offered)).toBeUndefined();
  });

  it("one pi-quests did not write counts as absent: edited, unsealed, or a sealed progress file passed off as one", async () => {
    const { dataDir, here, empty } = folders();
    await openCarryOverStore(dataDir, here, () => NOW).leave(LEFT);
    const file = join(dataDir, "carry-over.json");
    const sealed = JSON.parse(readFileSync(file, "utf8"));
    const everything = {
      ...sealed.completed,
      capstone: { at: NOW.toISOString(), definitionHash: "b".repeat(64) },
    };
    writeFileSync(file, JSON.stringify({ ...sealed, completed: everything }));
    expect(await take(dataDir, empty)).toBeUndefined();
    const { seal: _seal, ...unsealed } = sealed;
    writeFileSync(file, JSON.stringify(unsealed));
    expect(await take(dataDir, empty)).toBeUndefined();
    // The same fields, sealed as a progress record of another folder: another scope, no carry-over.
    const asProgress = sealRecord(openRecordSealer(dataDir, "progress", here), unsealed);
    const progressFile = join(here, "progress.json");
    writeFileSync(progressFile, JSON.stringify(asProgress));
    copyFileSync(progressFile, file);
    expect(await take(dataDir, empty)).toBeUndefined();
    expect(existsSync(file)).toBe(true);
  });

  it("none left: nothing to offer", async () => {
    const { dataDir, empty } = folders();
    expect(await take(dataDir, empty)).toBeUndefined();
  });
});
