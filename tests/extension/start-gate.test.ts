/** The factory's start gate: a checkout that is not set up is refused first, and holds nothing. */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import { claimProcess } from "../../src/extension/load-guard.ts";
import { whyNotStart } from "../../src/extension/start-gate.ts";
import { REPO } from "../support/cli.ts";
import { makeWorkspace, removeWorkspaces } from "../support/workspace.ts";

const HOLDER = Symbol.for("pi-quests.extension.loaded-from");
const flags = globalThis as { [HOLDER]?: string };

afterEach(() => {
  delete flags[HOLDER];
  removeWorkspaces();
});

/** A clone's sources with a library named and not installed. */
function cloneNotSetUp(): { root: string; entry: string } {
  const root = makeWorkspace();
  mkdirSync(join(root, "src/extension"), { recursive: true });
  writeFileSync(
    join(root, "package.json"),
    JSON.stringify({ name: "pi-quests", devDependencies: { zod: "4" } }),
  );
  writeFileSync(join(root, "src/extension/index.ts"), "");
  return { root, entry: pathToFileURL(join(root, "src/extension/index.ts")).href };
}

const repoEntry = pathToFileURL(join(REPO, "src/extension/index.ts")).href;

describe("the start gate", () => {
  it("refuses a clone that is not set up with an error naming the command, and leaves the process to another copy", () => {
    const { root, entry } = cloneNotSetUp();
    expect(whyNotStart(entry)).toEqual({
      level: "error",
      message: expect.stringContaining(`Run this once, then start Pi again: cd ${root} && npm ci`),
    });
    expect(claimProcess(repoEntry)).toEqual({ ok: true });
  });

  it("lets a set-up copy start once; a second copy is a warning", () => {
    expect(whyNotStart(repoEntry)).toBeUndefined();
    const other = pathToFileURL(join(REPO, "dist/extension/index.js")).href;
    expect(whyNotStart(other)).toEqual({
      level: "warning",
      message: expect.stringMatching(/^pi-quests is loaded twice/),
    });
  });
});
