/**
 * Reassessment of a store this process only reads (src/receipts/assess.ts, `recover: false`: a
 * Pi session's receipts listed by `pi-quests receipts`): nothing is written, and a run whose
 * process is gone is said to be interrupted rather than still running.
 */
import { spawn } from "node:child_process";
import { once } from "node:events";
import { readdirSync, readFileSync, realpathSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { reassess } from "../../src/receipts/assess.ts";
import { INTERRUPTED_NOTE } from "../../src/receipts/store.ts";
import { openWriterStore } from "../../src/receipts/writers.ts";
import { sampleReceipt } from "../support/receipt.ts";
import { makeWorkspace, removeWorkspaces } from "../support/workspace.ts";

afterEach(removeWorkspaces);

/** The pid of a process that has exited and been reaped. */
async function deadPid(): Promise<number> {
  const child = spawn(process.execPath, ["-e", ""], { stdio: "ignore" });
  await once(child, "exit");
  return child.pid ?? 0;
}

describe("reassessing a store read, not written", () => {
  it("a running receipt whose process is gone is interrupted, and the file stays as it was", async () => {
    const dataDir = realpathSync(makeWorkspace());
    const workspace = realpathSync(makeWorkspace());
    const where = { dataDir, workspaceHome: join(dataDir, "w"), workspace, writer: "pi" as const };
    const running = sampleReceipt({
      id: "r1",
      state: "running",
      endedAt: null,
      exitCode: null,
      termination: null,
      result: null,
    });
    running.provenance.host.pid = await deadPid();
    await (await openWriterStore(where)).write(running);
    const folder = join(dataDir, "w", "receipts", "pi");
    const before = readFileSync(join(folder, "r1.json"), "utf8");

    const found = await reassess(await openWriterStore({ ...where, readOnly: true }), workspace, {
      recover: false,
    });
    expect(found.interrupted).toEqual([]);
    expect(found.assessments.map(({ freshness, reason }) => [freshness, reason])).toEqual([
      ["incomplete", INTERRUPTED_NOTE],
    ]);
    expect(readdirSync(folder)).toEqual(["r1.json"]);
    expect(readFileSync(join(folder, "r1.json"), "utf8")).toBe(before);
  });
});
