/**
 * docs/authoring.md, followed literally (issue 27, item 10): every file it shows is written as
 * shown, in a folder of its own, and every command it gives is run as written (`pi-quests` is the
 * checkout's bin, as the page's alias makes it). The pack lints clean, and `pi-quests test`
 * plays its three pass plays and two fail plays in the real Pi: exit 0, each ended as named.
 */
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { REPO, runCli } from "../support/cli.ts";
import { commandOf, docBlocks } from "../support/readme.ts";
import { makeWorkspace, removeWorkspaces } from "../support/workspace.ts";

afterAll(removeWorkspaces);

const GUIDE = readFileSync(join(REPO, "docs/authoring.md"), "utf8");

describe("docs/authoring.md, step by step", () => {
  it("its files and commands give a pack that lints clean and passes pi-quests test", async () => {
    const folder = makeWorkspace();
    const blocks = docBlocks(GUIDE);
    expect(blocks.filter((block) => block.kind === "file").map((block) => block.path)).toEqual([
      "my-pack/sandboxes/sum/src/sum.js",
      "my-pack/sandboxes/sum/test/sum.test.js",
      "my-pack/10-fix-sum.yaml",
      "my-pack/solutions/fix-sum/pass.yaml",
      "my-pack/solutions/fix-sum/pass-sed.yaml",
      "my-pack/solutions/fix-sum/pass-rewrite.yaml",
      "my-pack/solutions/fix-sum/fail-claim.yaml",
      "my-pack/solutions/fix-sum/fail-tamper.yaml",
    ]);
    const ran: string[] = [];
    for (const block of blocks) {
      if (block.kind === "file") {
        mkdirSync(dirname(join(folder, block.path)), { recursive: true });
        writeFileSync(join(folder, block.path), block.content);
        continue;
      }
      for (const line of block.lines.map(commandOf).filter(Boolean)) {
        // The alias makes `pi-quests` the checkout's bin, which runCli runs.
        if (line.startsWith("alias pi-quests=")) continue;
        const words = line.split(/\s+/);
        expect(words[0], line).toBe("pi-quests");
        const run = await runCli(words.slice(1), { cwd: folder, timeoutMs: 280_000 });
        expect(run.exitCode, `${line}\n${run.stdout}\n${run.stderr}`).toBe(0);
        ran.push(`${line} -> ${run.stdout.trim().split("\n").at(-1)}`);
      }
    }
    expect(ran).toEqual([
      "pi-quests lint my-pack -> 1 quest(s) valid",
      "pi-quests lint my-pack -> 1 quest(s) and 5 play(s) valid",
      "pi-quests test my-pack -> 5 passed, 0 failed",
    ]);
  }, 300_000);
});
