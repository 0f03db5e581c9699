/**
 * The bash sandbox's cost per command: the agent's `bash` as pi-quests registers it
 * (src/extension/bash-tool.ts: Pi's own tool, its command wrapped into the sandbox of
 * src/probes/os/bash-sandbox.ts) against Pi's plain bash tool, both made from the checkout's Pi
 * and run in one process, one call each in turn (the order swapped every pair), for `true` and
 * `ls` in a folder of 100 files. Wall time of the tool's `execute`, from the call to its result.
 * The probe, once per data dir and process, is timed apart. `node bench/bash-sandbox.ts` prints
 * this section alone.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import * as Pi from "@earendil-works/pi-coding-agent";
import { createAgentBash } from "../src/extension/bash-tool.ts";
import { closeBashSandboxes, probeBashSandbox } from "../src/probes/os/bash-sandbox.ts";
import { median, ms } from "./measure.ts";

export type BashSandboxRow = {
  command: string;
  runs: number;
  plain: { median: number; p90: number };
  sandboxed: { median: number; p90: number };
};

export type BashSandboxBench = {
  probeMs: number;
  /** Median time to make a folder's namespaces (its keeper), what a session's first command pays. */
  keeperMs: number;
  protection: string;
  rows: BashSandboxRow[];
};

const COMMANDS = ["true", "ls"];

export async function benchBashSandbox(runs = 200, warmup = 20): Promise<BashSandboxBench> {
  const base = mkdtempSync(join(tmpdir(), "pi-quests-bench-bash-"));
  try {
    const agentDir = join(base, "agent");
    const workspace = join(base, "workspace");
    mkdirSync(join(agentDir, "quests"), { recursive: true });
    writeFileSync(join(agentDir, "quests", "seal.key"), `${"0".repeat(64)}\n`);
    mkdirSync(workspace);
    for (let i = 0; i < 100; i++) writeFileSync(join(workspace, `file-${i}.txt`), "x\n");
    const dataDir = join(agentDir, "quests");
    const started = performance.now();
    const sandbox = await probeBashSandbox({ dataDir });
    const probeMs = performance.now() - started;
    const pi = {
      getSettings: () => ({}),
      getAllTools: () => [{ name: "bash", sourceInfo: { path: "pi-quests", source: "local" } }],
      getCommands: () => [{ name: "quest", sourceInfo: { path: "pi-quests" } }],
      registerTool: () => {},
    };
    const sandboxed = createAgentBash({
      pi,
      modules: Pi,
      dataDirOf: () => dataDir,
      sandboxFor: (dir) => probeBashSandbox({ dataDir: dir }),
      ownCommand: "quest",
    }).definition;
    const plain = Pi.createBashToolDefinition(workspace);
    const ctx = {
      cwd: workspace,
      sessionManager: { getSessionId: () => "bench", getSessionFile: () => undefined },
    };
    const call = async (tool: typeof plain, command: string) => {
      const start = performance.now();
      const result = await tool.execute("bench", { command }, undefined, undefined, ctx as never);
      if ((result as { isError?: boolean }).isError) throw new Error(`${command} failed`);
      return performance.now() - start;
    };
    const rows: BashSandboxRow[] = [];
    for (const command of COMMANDS) {
      const times = { plain: [] as number[], sandboxed: [] as number[] };
      for (let i = 0; i < warmup + runs; i++) {
        const pair = i % 2 === 0 ? (["plain", "sandboxed"] as const) : (["sandboxed", "plain"] as const);
        for (const which of pair) {
          const took = await call(which === "plain" ? plain : sandboxed, command);
          if (i >= warmup) times[which].push(took);
        }
      }
      rows.push({ command, runs, plain: summary(times.plain), sandboxed: summary(times.sandboxed) });
    }
    const keeper: number[] = [];
    if (sandbox.protection === "namespaces") {
      for (let i = 0; i < 10; i++) {
        const folder = join(base, `folder-${i}`);
        mkdirSync(folder);
        const start = performance.now();
        await sandbox.enter(folder);
        keeper.push(performance.now() - start);
      }
    }
    return { probeMs, keeperMs: median(keeper), protection: sandbox.protection, rows };
  } finally {
    closeBashSandboxes();
    rmSync(base, { recursive: true, force: true });
  }
}

function summary(times: number[]): { median: number; p90: number } {
  const sorted = [...times].sort((a, b) => a - b);
  return { median: median(sorted), p90: sorted[Math.floor(0.9 * sorted.length)] ?? Number.NaN };
}

export function bashSandboxTable({ probeMs, keeperMs, protection, rows }: BashSandboxBench): string {
  const lines = [
    `Protection: ${protection}; the probe took ${ms(probeMs)} ms (once per data dir and process), making a folder's namespaces ${ms(keeperMs)} ms (median of 10; once per folder, on its first command).`,
    "",
    "| command | runs | Pi's plain bash, median (ms) | p90 (ms) | sandboxed, median (ms) | p90 (ms) | difference (ms) | ratio |",
    "|---|---:|---:|---:|---:|---:|---:|---:|",
  ];
  for (const { command, runs, plain, sandboxed } of rows) {
    lines.push(
      `| \`${command}\` | ${runs} | ${ms(plain.median)} | ${ms(plain.p90)} | ${ms(sandboxed.median)} | ${ms(sandboxed.p90)} | ${ms(sandboxed.median - plain.median)} | ${(sandboxed.median / plain.median).toFixed(2)} |`,
    );
  }
  return lines.join("\n");
}

if (import.meta.main) process.stdout.write(`${bashSandboxTable(await benchBashSandbox())}\n`);
