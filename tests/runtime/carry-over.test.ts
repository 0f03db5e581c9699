/**
 * Progress handed on to a new, empty folder: left by a folder where a quest could not set up its
 * practice files, taken once by the next empty folder without progress of its own, sealed like
 * every other record.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { openCarryOverStore } from "../../src/runtime/carry-over.ts";
import { makeWorkspace, removeWorkspaces } from "../support/workspace.ts";

afterEach(removeWorkspaces);

const NOW = new Date("2030-01-02T03:04:05.000Z");
const DONE = { "first-prompt": { at: "2030-01-01T00:00:00.000Z", definitionHash: "a".repeat(64) } };
const LEFT = {
  quest: "read-first",
  completed: DONE,
  skipped: { "first-file": { at: "2030-01-01T00:00:01.000Z" } },
};

function folders() {
  return { dataDir: makeWorkspace(), here: makeWorkspace({ "notes.md": "mine\n" }), empty: makeWorkspace() };
}

describe("a carry-over", () => {
  it("left by one folder is taken by a new, empty one: where from, the quest to start, done and skipped", async () => {
    const { dataDir, here, empty } = folders();
    expect(await openCarryOverStore(dataDir, here, () => NOW).leave(LEFT)).toBe(true);
    expect(await openCarryOverStore(dataDir, empty).take()).toEqual({
      version: 1,
      from: here,
      ...LEFT,
      at: NOW.toISOString(),
    });
  });

  it("is taken once", async () => {
    const { dataDir, here, empty } = folders();
    await openCarryOverStore(dataDir, here).leave(LEFT);
    await openCarryOverStore(dataDir, empty).take();
    expect(await openCarryOverStore(dataDir, makeWorkspace()).take()).toBeUndefined();
  });

  it("is not taken by the folder that left it, nor by one with files in it (a project, not the new folder)", async () => {
    const { dataDir, here, empty } = folders();
    await openCarryOverStore(dataDir, here).leave(LEFT);
    expect(await openCarryOverStore(dataDir, here).take()).toBeUndefined();
    expect(await openCarryOverStore(dataDir, makeWorkspace({ "app.js": "" })).take()).toBeUndefined();
    // Still there for the folder the advice asked for.
    expect(await openCarryOverStore(dataDir, empty).take()).toMatchObject({ quest: "read-first" });
  });

  it("the newest one wins", async () => {
    const { dataDir, here, empty } = folders();
    await openCarryOverStore(dataDir, here).leave(LEFT);
    await openCarryOverStore(dataDir, here).leave({ ...LEFT, quest: "first-file" });
    expect(await openCarryOverStore(dataDir, empty).take()).toMatchObject({ quest: "first-file" });
  });

  it("one pi-quests did not write counts as absent: an edited record, or one written without the seal", async () => {
    const { dataDir, here, empty } = folders();
    await openCarryOverStore(dataDir, here).leave(LEFT);
    const file = join(dataDir, "carry-over.json");
    const sealed = JSON.parse(readFileSync(file, "utf8"));
    const everything = {
      ...sealed.completed,
      capstone: { at: NOW.toISOString(), definitionHash: "b".repeat(64) },
    };
    writeFileSync(file, JSON.stringify({ ...sealed, completed: everything }));
    expect(await openCarryOverStore(dataDir, empty).take()).toBeUndefined();
    const { seal: _seal, ...unsealed } = sealed;
    writeFileSync(file, JSON.stringify(unsealed));
    expect(await openCarryOverStore(dataDir, empty).take()).toBeUndefined();
  });

  it("none left: nothing to take", async () => {
    const { dataDir, empty } = folders();
    expect(await openCarryOverStore(dataDir, empty).take()).toBeUndefined();
  });
});
