import { readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { packageRoot, packageVersion } from "../../src/core/package-root.ts";
import { VERSION } from "../../src/core/version.ts";
import { makeWorkspace, removeWorkspaces } from "../support/workspace.ts";

afterEach(removeWorkspaces);

const REPO = resolve(import.meta.dirname, "../..");

describe("packageRoot", () => {
  it("is the nearest folder above whose package.json is named pi-quests, past other packages", () => {
    const root = makeWorkspace({
      "package.json": JSON.stringify({ name: "pi-quests", version: "9.8.7" }),
      "dist/package.json": JSON.stringify({ type: "module" }),
      "dist/chunks/vendor/package.json": JSON.stringify({ name: "zod", version: "4.0.0" }),
      "dist/chunks/vendor/x.js": "",
      "dist/cli/broken/package.json": "{ not json",
    });
    expect(packageRoot(join(root, "dist/chunks/vendor"))).toBe(root);
    expect(packageRoot(join(root, "dist/cli/broken"))).toBe(root);
    expect(packageRoot(root)).toBe(root);
    expect(packageVersion(root)).toBe("9.8.7");
  });

  it("says which folder has none above it", () => {
    const lost = makeWorkspace({ "package.json": JSON.stringify({ name: "pi-quests-fork" }) });
    expect(() => packageRoot(join(lost, "dist/cli"))).toThrow(
      `no package.json named pi-quests at or above ${join(lost, "dist/cli")}`,
    );
  });

  it("finds the checkout from its sources, and VERSION is its package.json's version", () => {
    expect(packageRoot(join(REPO, "src/core"))).toBe(REPO);
    const manifest = JSON.parse(readFileSync(join(REPO, "package.json"), "utf8")) as { version: string };
    expect(VERSION).toBe(manifest.version);
  });
});
