/**
 * readRecordFile, how pi-quests reads a record of its own in the data dir: a regular file whole,
 * and for anything the agent could leave in its place (a FIFO, a link, a huge file, a folder,
 * nothing) no record, at once, with why.
 */
import { execFileSync } from "node:child_process";
import { symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { readRecordFile } from "../../src/core/record-file.ts";
import { makeWorkspace, removeWorkspaces } from "../support/workspace.ts";

afterEach(removeWorkspaces);

describe("readRecordFile", () => {
  it("reads a regular file whole, up to the bound", () => {
    const folder = makeWorkspace({ "record.json": "{}\n" });
    expect(readRecordFile(join(folder, "record.json"), 3)).toEqual({ ok: true, bytes: Buffer.from("{}\n") });
    expect(readRecordFile(join(folder, "record.json"), 2)).toEqual({
      ok: false,
      reason: "larger than 2 bytes",
    });
  });

  it("gives no record, and does not block, for a FIFO in its place", () => {
    const folder = makeWorkspace();
    execFileSync("mkfifo", [join(folder, "record.json")]);
    expect(readRecordFile(join(folder, "record.json"), 1024)).toEqual({
      ok: false,
      reason: "not a regular file",
    });
  });

  it("follows no link: not to a file, not to /dev/zero", () => {
    const folder = makeWorkspace({ "real.json": "{}\n" });
    symlinkSync(join(folder, "real.json"), join(folder, "link.json"));
    symlinkSync("/dev/zero", join(folder, "zero.json"));
    expect(readRecordFile(join(folder, "link.json"), 1024)).toEqual({ ok: false, reason: "ELOOP" });
    expect(readRecordFile(join(folder, "zero.json"), 1024)).toEqual({ ok: false, reason: "ELOOP" });
  });

  it("gives no record for a folder or nothing at all", () => {
    const folder = makeWorkspace();
    writeFileSync(join(folder, "other"), "x");
    expect(readRecordFile(folder, 1024)).toEqual({ ok: false, reason: "EISDIR" });
    expect(readRecordFile(join(folder, "missing.json"), 1024)).toEqual({ ok: false, reason: "ENOENT" });
  });
});
