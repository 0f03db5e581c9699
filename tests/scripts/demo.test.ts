import { join } from "node:path";
import { execa } from "execa";
import { describe, expect, it } from "vitest";
import { REPO } from "../support/cli.ts";

describe("npm run demo (the README's main job)", () => {
  it("plays the starter pack in the real pi: the claim stays red, the real work turns green, exit 0", async () => {
    const run = await execa(process.execPath, [join(REPO, "scripts/demo.ts")], {
      reject: false,
      stdin: "ignore",
      timeout: 120_000,
    });
    expect(run.exitCode).toBe(0);
    const steps = run.stdout.split("\n== ");
    const claim = steps.find((step) =>
      step.startsWith("The learner asks for hello.txt; the model only claims"),
    );
    expect(claim).toContain("│   ✗ hello.txt exists: hello.txt does not exist");
    expect(claim).not.toContain("Quest complete");
    const realWork = steps.find((step) => step.startsWith("The learner asks again"));
    expect(realWork).toContain("│   ✓ hello.txt says hello");
    expect(realWork).toContain("» Quest complete: Make your first file ✓");
    expect(run.stdout).toContain("│ Quests 3/3 done. Well played!");
    expect(run.stdout).toContain("footer: quests 3/3 ✓");
    expect(run.stdout).toContain("the claim alone did not pass.");
  });
});
