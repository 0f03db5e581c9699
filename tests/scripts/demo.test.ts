import { join } from "node:path";
import { execa } from "execa";
import { describe, expect, it } from "vitest";
import { REPO } from "../support/cli.ts";

describe("npm run demo (the README's main job)", () => {
  it("shows a claim failing and the real work passing, and exits 0", async () => {
    const run = await execa(process.execPath, [join(REPO, "scripts/demo.ts")], {
      reject: false,
      stdin: "ignore",
    });
    expect(run.exitCode).toBe(0);
    expect(run.stdout).toContain("The claim did not pass; the real work did.");
    expect(run.stdout.match(/^ {3}exit code \d$/gm)).toEqual([
      "   exit code 1",
      "   exit code 1",
      "   exit code 0",
    ]);
  });
});
