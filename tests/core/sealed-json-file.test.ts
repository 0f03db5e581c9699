/**
 * A small sealed JSON record in a file of its own: written with its seal (the folder made when
 * absent), read back only when the seal verifies; missing, unreadable or altered reads as absent.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { readSealedJson, writeSealedJson } from "../../src/core/sealed-json-file.ts";
import { testSealer } from "../support/seal.ts";
import { makeWorkspace, removeWorkspaces } from "../support/workspace.ts";

afterEach(removeWorkspaces);

describe("a sealed JSON file", () => {
  it("reads back what was written, without its seal; the folder is made when absent", async () => {
    const sealer = testSealer();
    const file = join(makeWorkspace(), "deep", "record.json");
    await writeSealedJson(file, sealer, { version: 1, pack: "built-in" });
    expect(JSON.parse(readFileSync(file, "utf8"))).toHaveProperty("seal");
    expect(await readSealedJson(file, sealer)).toEqual({ version: 1, pack: "built-in" });
  });

  it("reads as absent when missing, not JSON, edited, or sealed with another key", async () => {
    const sealer = testSealer();
    const file = join(makeWorkspace(), "record.json");
    expect(await readSealedJson(file, sealer)).toBeUndefined();
    writeFileSync(file, "{ not json");
    expect(await readSealedJson(file, sealer)).toBeUndefined();
    await writeSealedJson(file, sealer, { version: 1, pack: "built-in" });
    const sealed = JSON.parse(readFileSync(file, "utf8"));
    writeFileSync(file, JSON.stringify({ ...sealed, pack: "other" }));
    expect(await readSealedJson(file, sealer)).toBeUndefined();
    await writeSealedJson(file, testSealer(), { version: 1, pack: "built-in" });
    expect(await readSealedJson(file, sealer)).toBeUndefined();
  });
});
