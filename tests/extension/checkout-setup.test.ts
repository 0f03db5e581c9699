/**
 * A checkout whose libraries are not installed: the extension says the one command that sets it
 * up (README.md, "Use it in Pi"), never "Cannot find module". The real Pi over a fresh clone:
 * tests/e2e/readme-install.test.ts.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { execa } from "execa";
import { afterEach, describe, expect, it } from "vitest";
import { missingSetup, SETUP_COMMAND } from "../../src/extension/checkout-setup.ts";
import { REPO } from "../support/cli.ts";
import { makeWorkspace, removeWorkspaces } from "../support/workspace.ts";

afterEach(removeWorkspaces);

const MANIFEST = {
  name: "pi-quests",
  version: "0.2.0",
  dependencies: {},
  devDependencies: { yaml: "^2.9.1", zod: "^4.6.7", "@earendil-works/pi-ai": "^1.6.0" },
};

/** A checkout's shape: package.json, the sources' entry, and the named libraries installed. */
function checkout(installed: string[], folder = "pi-quests"): { root: string; entry: string } {
  const root = join(makeWorkspace(), folder);
  mkdirSync(join(root, "src/extension"), { recursive: true });
  writeFileSync(join(root, "package.json"), JSON.stringify(MANIFEST));
  writeFileSync(join(root, "src/extension/index.ts"), "");
  for (const name of installed) {
    mkdirSync(join(root, "node_modules", name), { recursive: true });
    writeFileSync(join(root, "node_modules", name, "package.json"), JSON.stringify({ name }));
  }
  return { root, entry: pathToFileURL(join(root, "src/extension/index.ts")).href };
}

describe("a checkout's setup", () => {
  it("without node_modules: one sentence naming the folder and the exact command, no module error", () => {
    const { root, entry } = checkout([]);
    expect(missingSetup(entry)).toBe(
      `pi-quests is not set up in ${root}: 3 of the 3 libraries its package.json names are not in node_modules. Run this once, then start Pi again: cd ${root} && npm ci`,
    );
    expect(SETUP_COMMAND).toBe("npm ci");
  });

  it("with one library missing (a pull that added one): the same command", () => {
    const { entry } = checkout(["yaml", "@earendil-works/pi-ai"]);
    expect(missingSetup(entry)).toMatch(/: 1 of the 3 libraries .* && npm ci$/);
  });

  it("with every library installed: nothing to say", () => {
    expect(missingSetup(checkout(["yaml", "zod", "@earendil-works/pi-ai"]).entry)).toBeUndefined();
  });

  it("the built entry (dist/, its libraries inlined) is never asked, node_modules or not", () => {
    const { root } = checkout([]);
    expect(missingSetup(pathToFileURL(join(root, "dist/extension/index.js")).href)).toBeUndefined();
  });

  it("a folder a shell would split: the command quotes it, and runs as given", async () => {
    const { root, entry } = checkout([], "my pi's quests");
    const message = missingSetup(entry) ?? "";
    const command = message.slice(message.indexOf("cd "));
    expect(command).toBe(`cd '${root.replaceAll("'", `'\\''`)}' && npm ci`);
    const ran = await execa("sh", ["-c", command.replace(/npm ci$/, "pwd")]);
    expect(ran.stdout).toBe(root);
  });

  it("this repository, set up: nothing to say", () => {
    expect(missingSetup(pathToFileURL(join(REPO, "src/extension/index.ts")).href)).toBeUndefined();
  });
});
