/** Who owns a workspace's event log: the session with a UI holds the lock; print mode looks. */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { anotherSessionHolds, holdSessionLock } from "../../src/extension/session-lock.ts";
import { makeWorkspace } from "../support/workspace.ts";

describe("the session lock", () => {
  it("is held by a live process other than this one, until it is released", async () => {
    const folder = join(makeWorkspace(), "data");
    expect(await anotherSessionHolds(folder)).toBe(false);
    const lock = await holdSessionLock(folder);
    // This process's own lock does not stop it.
    expect(await anotherSessionHolds(folder)).toBe(false);
    writeFileSync(join(folder, "session.lock"), JSON.stringify({ pid: process.ppid }));
    expect(await anotherSessionHolds(folder)).toBe(true);
    // Not this process's any more: release leaves it.
    await lock.release();
    expect(await anotherSessionHolds(folder)).toBe(true);
  });

  it("is absent when its process is gone, or when the file is not a lock", async () => {
    const folder = makeWorkspace();
    writeFileSync(join(folder, "session.lock"), JSON.stringify({ pid: 2 ** 22 + 12345 }));
    expect(await anotherSessionHolds(folder)).toBe(false);
    writeFileSync(join(folder, "session.lock"), "not json");
    expect(await anotherSessionHolds(folder)).toBe(false);
  });
});
