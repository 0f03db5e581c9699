/**
 * Whose receipts these are (src/receipts/writers.ts): each writer's store reads only receipts
 * sealed under its own scope. A receipt `pi-quests check` wrote, copied into a Pi session's
 * folder, is altered and says whose it is; one a Pi session wrote is read, never written, by a
 * process that opened its store to list it; receipts from before writers are read by no one.
 */
import { copyFileSync, mkdirSync, readdirSync, realpathSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { openRecordSealer, scopedSealer } from "../../src/core/record-sealers.ts";
import { openSealer } from "../../src/core/seal.ts";
import { legacyReceiptCount, openWriterStore, receiptsFolder } from "../../src/receipts/writers.ts";
import { sampleReceipt } from "../support/receipt.ts";
import { sealedJson } from "../support/seal.ts";
import { makeWorkspace, removeWorkspaces } from "../support/workspace.ts";

afterEach(removeWorkspaces);

function world() {
  const dataDir = realpathSync(makeWorkspace());
  const workspace = realpathSync(makeWorkspace());
  const workspaceHome = join(dataDir, "workspaces", "w");
  const store = (writer: "pi" | "cli", readOnly = false) =>
    openWriterStore({ dataDir, workspaceHome, workspace, writer, readOnly });
  return { dataDir, workspace, workspaceHome, store };
}

describe("receipts by writer", () => {
  it("a receipt pi-quests check wrote, copied into a Pi session's folder, is altered: its seal says the CLI", async () => {
    const { workspaceHome, store } = world();
    const cli = await store("cli");
    await cli.write(sampleReceipt({ id: "r1" }));
    expect((await cli.list()).receipts.map((receipt) => receipt.id)).toEqual(["r1"]);

    const pi = await store("pi");
    copyFileSync(
      join(receiptsFolder(workspaceHome, "cli"), "r1.json"),
      join(receiptsFolder(workspaceHome, "pi"), "r1.json"),
    );
    const listed = await pi.list();
    expect(listed.receipts).toEqual([]);
    expect(listed.altered).toEqual([
      {
        file: "r1.json",
        reason: expect.stringMatching(
          /^it was written by pi-quests check, whose receipts a Pi session never reuses/,
        ),
      },
    ]);
  });

  it("a Pi session's receipt copied into the CLI's folder is altered too, and names the Pi session", async () => {
    const { workspaceHome, store } = world();
    const pi = await store("pi");
    await pi.write(sampleReceipt({ id: "r1" }));
    const cli = await store("cli");
    copyFileSync(
      join(receiptsFolder(workspaceHome, "pi"), "r1.json"),
      join(receiptsFolder(workspaceHome, "cli"), "r1.json"),
    );
    expect((await cli.list()).altered).toEqual([
      {
        file: "r1.json",
        reason: "it was written by pi-quests in a Pi session; pi-quests check keeps receipts of its own",
      },
    ]);
  });

  it("a store opened to read another writer's receipts verifies them and can write none", async () => {
    const { store } = world();
    await (await store("pi")).write(sampleReceipt({ id: "r1" }));
    const reader = await store("pi", true);
    expect((await reader.list()).receipts.map((receipt) => receipt.id)).toEqual(["r1"]);
    await expect(reader.write(sampleReceipt({ id: "r2" }))).rejects.toThrow(
      /only reads pi-quests in a Pi session's receipts/,
    );
  });

  it("receipts from before writers were recorded (receipts/*.json, the old scope) are read by neither, and counted", async () => {
    const { dataDir, workspace, workspaceHome, store } = world();
    const legacyScope = scopedSealer(openSealer(dataDir), `pi-quests.receipts ${workspace}`);
    mkdirSync(join(workspaceHome, "receipts"), { recursive: true });
    writeFileSync(
      join(workspaceHome, "receipts", "old.json"),
      sealedJson(legacyScope, sampleReceipt({ id: "old" })),
    );
    for (const writer of ["pi", "cli"] as const) {
      expect(await (await store(writer)).list()).toEqual({ receipts: [], warnings: [], altered: [] });
    }
    expect(await legacyReceiptCount(workspaceHome)).toBe(1);
    expect(readdirSync(join(workspaceHome, "receipts")).sort()).toEqual(["cli", "old.json", "pi"]);
  });

  it("each writer's seal is its own: the same receipt sealed for the CLI does not verify for a Pi session", () => {
    const { dataDir, workspace } = world();
    const cli = openRecordSealer(dataDir, "receipts.cli", workspace);
    const pi = openRecordSealer(dataDir, "receipts.pi", workspace);
    const text = JSON.stringify(sampleReceipt({ id: "r1" }));
    expect(pi.verifyText(text, cli.sealText(text))).toBe(false);
    expect(cli.verifyText(text, cli.sealText(text))).toBe(true);
  });
});
