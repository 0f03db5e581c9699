import { readFileSync } from "node:fs";
import { join } from "node:path";
import { execa } from "execa";
import { describe, expect, it } from "vitest";
import { REPO } from "../support/cli.ts";
import { textBlock } from "../support/readme.ts";

describe("npm run demo (the README's main job)", () => {
  it("plays chapter 1 and a sessions quest in the real pi: the claim stays red, the real work turns green, exit 0", async () => {
    const run = await execa(process.execPath, [join(REPO, "scripts/demo.ts")], {
      reject: false,
      stdin: "ignore",
      timeout: 240_000,
    });
    expect(run.stdout).toContain("the claim alone did not pass.");
    expect(run.exitCode).toBe(0);
    const legs = run.stdout.split("\n== ");
    const claim = legs.find((leg) => leg.startsWith("Make your first file (first-file): a claim"));
    expect(claim).toContain("│   ✗ hello.txt exists: hello.txt does not exist");
    expect(claim).not.toContain("Quest complete");
    const realWork = legs.find((leg) => leg.startsWith("Make your first file (first-file): the real work"));
    expect(realWork).toContain("│   ✓ hello.txt greets the world");
    expect(realWork).toContain("│   ✓ Pi created hello.txt");
    expect(realWork).toContain("» Quest complete: Make your first file ✓");
    expect(run.stdout).toContain("» Quest complete: Commit it ✓");
    const session = legs.find((leg) => leg.includes("(name-and-export): the real work"));
    expect(session).toMatch(/» Quest complete: .+ ✓/);
    // The README's excerpt ("Try it") is what the demo prints: each part between its `...`
    // lines appears as written, in the README's order.
    const excerpt = textBlock(readFileSync(join(REPO, "README.md"), "utf8"), "Try it");
    let from = 0;
    for (const part of excerpt.split("\n...\n")) {
      const at = run.stdout.indexOf(part, from);
      expect(
        at,
        `README.md, "Try it": the demo did not print this part here:\n${part}`,
      ).toBeGreaterThanOrEqual(0);
      from = at + part.length;
    }
  });
});
