/**
 * The README's example quest works as shown (issue 27, item 10): the files of "## Write a quest"
 * (the quest, its sandbox, its pass play) written as the README shows them, then the section's
 * own `pi-quests lint my-pack/` and `pi-quests test my-pack/` run as written. Before the fix the
 * quest had no sandbox, so its command check could not run and `test` failed.
 */
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { REPO, runCli } from "../support/cli.ts";
import { commandOf, docBlocks } from "../support/readme.ts";
import { makeWorkspace, removeWorkspaces } from "../support/workspace.ts";

afterAll(removeWorkspaces);

const README = readFileSync(join(REPO, "README.md"), "utf8");

describe("the README's example quest", () => {
  it("lints clean and its pass play completes it in the real Pi, with the section's own commands", async () => {
    const folder = makeWorkspace();
    const blocks = docBlocks(README, "Write a quest");
    const files = blocks.flatMap((block) => (block.kind === "file" ? [block] : []));
    expect(files.map((file) => file.path)).toEqual([
      "my-pack/first-file.yaml",
      "my-pack/sandboxes/first-file/README.md",
      "my-pack/solutions/first-file/pass.yaml",
    ]);
    for (const file of files) {
      mkdirSync(dirname(join(folder, file.path)), { recursive: true });
      writeFileSync(join(folder, file.path), file.content);
    }
    const commands = blocks.flatMap((block) => (block.kind === "sh" ? block.lines.map(commandOf) : []));
    const lint = commands.find((line) => line === "pi-quests lint my-pack/");
    const test = commands.find((line) => line === "pi-quests test my-pack/");
    expect([lint, test]).toEqual(["pi-quests lint my-pack/", "pi-quests test my-pack/"]);

    const linted = await runCli(["lint", "my-pack/"], { cwd: folder });
    expect(linted).toMatchObject({ exitCode: 0, stdout: "1 quest(s) and 1 play(s) valid", stderr: "" });
    const tested = await runCli(["test", "my-pack/"], { cwd: folder, timeoutMs: 170_000 });
    expect(tested.exitCode, `${tested.stdout}\n${tested.stderr}`).toBe(0);
    expect(tested.stdout).toMatch(/^✓ first-file\/pass: expected complete, got complete/m);
    expect(tested.stdout.trimEnd().split("\n").at(-1)).toBe("1 passed, 0 failed");
  }, 180_000);
});
