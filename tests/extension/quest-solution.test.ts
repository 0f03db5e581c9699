import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { plainText } from "../../src/extension/quest-message.ts";
import { referencePlayOf, solutionMessage } from "../../src/extension/quest-solution.ts";
import { REPO } from "../support/cli.ts";
import { makeWorkspace } from "../support/workspace.ts";

const CURRICULUM = join(REPO, "quests");

describe("/quest solution's text", () => {
  it("is the pack's solutions/<quest>/pass.yaml", () => {
    expect(referencePlayOf({ id: "first-file", source: join(CURRICULUM, "020-first-file.yaml") })).toBe(
      join(CURRICULUM, "solutions/first-file/pass.yaml"),
    );
  });

  it("says the reference play's steps in words, each whole, with what Pi did", async () => {
    const quest = { id: "exact-edit", title: "Fix a bug with a small edit" };
    const text = plainText(await solutionMessage(quest, join(CURRICULUM, "solutions/exact-edit/pass.yaml")));
    expect(text.split("\n")).toEqual([
      'How the reference solution did "Fix a bug with a small edit"',
      "1. Run it yourself: !node --test test/calc.test.js",
      "2. Type: Fix add() in src/calc.js; edit only the broken line.",
      "   Pi edits src/calc.js (1 change)",
      "",
      "Any way that reaches the goal passes: this is one of them.",
    ]);
  });

  it("says so when the pack has no solution, or it cannot be read", async () => {
    const quest = { id: "nope", title: "Nope" };
    const dir = makeWorkspace();
    expect(plainText(await solutionMessage(quest, join(dir, "absent.yaml")))).toBe(
      '"Nope" has no reference solution in its pack.',
    );
    writeFileSync(join(dir, "bad.yaml"), "version: 7\nsteps: []\n");
    expect(plainText(await solutionMessage(quest, join(dir, "bad.yaml")))).toMatch(
      /^The reference solution of "Nope" could not be read: .*version/,
    );
  });
});
