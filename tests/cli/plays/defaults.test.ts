import { existsSync } from "node:fs";
import { join, resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { EXTENSION_FILES, extensionFileIn } from "../../../src/cli/plays/defaults.ts";

const REPO = resolve(import.meta.dirname, "../../..");

describe("the extension files a play's Pi loads", () => {
  it("in a checkout: the TypeScript sources, each of which exists", () => {
    expect(EXTENSION_FILES).toEqual([
      join(REPO, "src/extension/scripted-model.ts"),
      join(REPO, "src/extension/index.ts"),
      join(REPO, "src/extension/play-controls.ts"),
    ]);
    for (const file of EXTENSION_FILES) expect(existsSync(file), file).toBe(true);
  });

  it("in a built package: the bundle's dist/extension/*.js", () => {
    expect(extensionFileIn("/pkg", true, "index")).toBe("/pkg/dist/extension/index.js");
    expect(extensionFileIn("/pkg", false, "index")).toBe("/pkg/src/extension/index.ts");
  });
});
