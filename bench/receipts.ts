/**
 * Re-evaluating a quest with a command check on an unchanged workspace: the receipt answers it
 * (a fingerprint, a look in the store, no process). Baseline in the same run: the same
 * evaluation without receipts, which runs the check through the isolated verifier.
 */
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";

import { openSealer } from "../src/core/seal.ts";
import { createNodeProbes } from "../src/probes/index.ts";
import { createReceiptPort } from "../src/receipts/port.ts";
import { currentHost, openReceiptStore } from "../src/receipts/store.ts";
import { createTaskVerifier } from "../src/task-verifier/index.ts";
import { type CommandCheck, CommandCheckSchema } from "../src/verifier/checks/command.ts";
import { evaluateQuest } from "../src/verifier/evaluate.ts";
import { measure, ms, type Timing } from "./measure.ts";

function makeRepo(base: string, files: number): string {
  const dir = realpathSync(mkdtempSync(join(base, `receipts-repo-${files}-`)));
  for (let i = 0; i < files; i++) {
    const folder = join(dir, "src", `m${Math.floor(i / 100)}`);
    if (i % 100 === 0) mkdirSync(folder, { recursive: true });
    writeFileSync(join(folder, `f${i}.js`), `export const value${i} = ${i};\n`);
  }
  mkdirSync(join(dir, "test"));
  writeFileSync(join(dir, "test/check.sh"), "test -f src/m0/f0.js\n");
  const git = (...args: string[]) =>
    execFileSync(
      "git",
      ["-c", "user.name=b", "-c", "user.email=b@b", "-c", "commit.gpgsign=false", ...args],
      {
        cwd: dir,
        stdio: "ignore",
      },
    );
  git("init", "-q", "-b", "main");
  git("add", "-A");
  git("commit", "-q", "-m", "baseline");
  writeFileSync(join(dir, "src/m0/f0.js"), "export const value0 = 42;\n");
  return dir;
}

export type ReceiptRow = { files: number; reused: Timing; ran: Timing };

export async function benchReceipts(base: string, sizes = [100, 10_000]): Promise<ReceiptRow[]> {
  mkdirSync(base, { recursive: true });
  const rows: ReceiptRow[] = [];
  const check: CommandCheck = {
    ...CommandCheckSchema.parse({ type: "command", run: "bash test/check.sh" }),
    id: "check",
  };
  for (const files of sizes) {
    const workspace = makeRepo(base, files);
    const dataDir = realpathSync(mkdtempSync(join(base, "receipts-data-")));
    try {
      const made = await createTaskVerifier({ workspace, dataDir, checks: [{ questId: "bench", check }] });
      if (!made.ok) throw new Error(made.message);
      const probes = createNodeProbes({ runIsolated: made.verifier.run });
      const store = await openReceiptStore(join(dataDir, "receipts"), { sealer: openSealer(dataDir) });
      const context = {
        probes,
        events: [],
        paths: { workspace, agentDir: dataDir, home: dataDir },
        questId: "bench",
      };
      const evaluate = async (withReceipts: boolean) => {
        const receipts = withReceipts
          ? createReceiptPort({ store, workspace, baseline: made.verifier.baseline, host: currentHost() })
          : undefined;
        // With receipts, the evaluation ends with their recheck.
        const final = await evaluateQuest(
          { id: "bench", checks: [check] },
          { ...context, ...(receipts ? { receipts } : {}) },
        );
        if (final.status !== "pass")
          throw new Error(`the bench quest did not pass: ${JSON.stringify(final.checks[0]?.evidence)}`);
        return final;
      };
      await evaluate(true); // the run that leaves the receipt
      const reused = await measure(() => evaluate(true), 20, 3);
      const ran = await measure(() => evaluate(false), 5, 1);
      rows.push({ files, reused, ran });
    } finally {
      rmSync(workspace, { recursive: true, force: true });
      rmSync(dataDir, { recursive: true, force: true });
    }
  }
  return rows;
}

export function receiptsTable(rows: ReceiptRow[]): string {
  return [
    "| files | re-evaluation answered by the receipt, median (ms) | p90 (ms) | the same evaluation running the check, median (ms) | ratio |",
    "|---:|---:|---:|---:|---:|",
    ...rows.map(
      ({ files, reused, ran }) =>
        `| ${files.toLocaleString("en")} | ${ms(reused.median)} | ${ms(reused.p90)} | ${ms(ran.median)} | ${(reused.median / ran.median).toFixed(2)} |`,
    ),
  ].join("\n");
}
