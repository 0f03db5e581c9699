/** The run's temporary folder: made at the start, named in TMPDIR, removed with all it holds at the end. */
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect, it } from "vitest";
import setup from "./run-tmpdir.ts";

it("makes one folder for the run, hands it on in TMPDIR, and removes it and all in it when the run ends", () => {
  const before = process.env.TMPDIR;
  const teardown = setup();
  const root = tmpdir();
  try {
    expect(process.env.TMPDIR).toBe(root);
    expect(root).toMatch(/pi-quests-tests-/);
    mkdirSync(join(root, "a-test", "deep"), { recursive: true });
    writeFileSync(join(root, "a-test", "deep", "file.txt"), "left by a test");
  } finally {
    teardown();
  }
  expect(existsSync(root)).toBe(false);
  expect(process.env.TMPDIR).toBe(before);
});
