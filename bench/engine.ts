/**
 * evaluateQuest over a quest of 50 probe-only checks (events, files, JSON and YAML paths, with
 * in-memory probes) against 1k, 10k and 100k recorded events. The baseline, measured in the same
 * run, is one plain pass over the events (counting the tool results of one tool), so the ratio
 * says how many event passes an evaluation costs.
 */

import type { VerifierEvent } from "../src/events/schema.ts";
import { type Check, CheckSchema } from "../src/verifier/checks/registry.ts";
import { evaluateQuest } from "../src/verifier/evaluate.ts";
import type { Probes } from "../src/verifier/probes.ts";
import { measure, ms, type Timing } from "./measure.ts";

const TOOLS = ["read", "write", "edit", "bash"];

export function recordedEvents(count: number): VerifierEvent[] {
  const events: VerifierEvent[] = [];
  for (let seq = 0; seq < count; seq++) {
    const sessionId = `s${Math.floor(seq / 5000)}`;
    const kind = seq % 5;
    if (kind === 0) events.push({ name: "input", sessionId, seq, payload: { text: `prompt ${seq}` } });
    else if (kind === 1 || kind === 2) {
      const toolName = TOOLS[seq % TOOLS.length] ?? "read";
      events.push({
        name: "tool_result",
        sessionId,
        seq,
        payload: {
          toolName,
          toolCallId: `c${seq}`,
          isError: seq % 7 === 0,
          input: { path: `src/file-${seq % 50}.ts` },
        },
      });
    } else if (kind === 3)
      events.push({ name: "turn_end", sessionId, seq, payload: { assistantTurns: seq } });
    else
      events.push({
        name: seq % 1000 === 4 ? "quest_completed" : "agent_end",
        sessionId,
        seq,
        payload: { quest: "welcome", assistantTurns: seq },
      });
  }
  return events;
}

function fiftyChecks(): Check[] {
  const inputs: Record<string, unknown>[] = [];
  for (let i = 0; i < 30; i++) {
    const variants: Record<string, unknown>[] = [
      { type: "event", match: { event: "tool_result", tool: TOOLS[i % 4], outcome: "success" } },
      {
        type: "event",
        match: { event: "tool_result", fields: { "input.path": { ends_with: `file-${i}.ts` } } },
        count: { min: 1 },
      },
      {
        type: "event",
        match: { event: "input", fields: { text: { regex: `^prompt ${i}\\d*$` } } },
        after: "welcome",
      },
      { type: "event", match: { event: "agent_end", min_assistant_turns: 3 }, same_session: true },
      // Never matches: the whole name group is scanned.
      { type: "event", match: { event: "tool_result", tool: "codemode" } },
    ];
    inputs.push(variants[i % variants.length] ?? {});
  }
  for (let i = 0; i < 10; i++) inputs.push({ type: "file_exists", path: `src/file-${i}.ts` });
  for (let i = 0; i < 5; i++)
    inputs.push({
      type: "json_path",
      file: "package.json",
      path: "$.scripts.test",
      assert: "contains",
      value: "vitest",
    });
  for (let i = 0; i < 5; i++)
    inputs.push({
      type: "yaml_path",
      file: "config.yaml",
      path: "$.server.hosts[*]",
      assert: "equals",
      value: "b",
    });
  return inputs.map((input, index) => ({ ...CheckSchema.parse(input), id: `check-${index + 1}` }));
}

const FILES: Record<string, string> = {
  "package.json": JSON.stringify({ name: "bench", scripts: { test: "vitest run", build: "tsc" } }),
  "config.yaml": "server:\n  port: 8080\n  hosts: [a, b, c]\n",
};

const inMemoryProbes: Probes = {
  fileExists: async () => ({ kind: "file", size: 10 }),
  readFile: async (path) => ({ ok: true, bytes: Buffer.from(FILES[path.written] ?? "{}") }),
  runCommand: async () => {
    throw new Error("the engine bench runs no command");
  },
  git: {} as Probes["git"],
  mcpHandshake: async () => {
    throw new Error("the engine bench starts no server");
  },
  skillValid: async () => ({ ok: false, message: "no skills here" }),
  confirm: async () => true,
};

export type EngineRow = { events: number; engine: Timing; baseline: Timing };

export async function benchEngine(sizes = [1_000, 10_000, 100_000]): Promise<EngineRow[]> {
  const quest = { id: "bench", checks: fiftyChecks() };
  const rows: EngineRow[] = [];
  for (const size of sizes) {
    const events = recordedEvents(size);
    const ctx = {
      probes: inMemoryProbes,
      events,
      paths: { workspace: "/w", agentDir: "/a", home: "/h" },
      questId: "bench",
    };
    const runs = size >= 100_000 ? 30 : 200;
    const result = await evaluateQuest(quest, ctx);
    if (result.checks.length !== 50) throw new Error("the bench quest must have 50 checks");
    const engine = await measure(() => evaluateQuest(quest, ctx), runs);
    const baseline = await measure(
      () => events.filter((e) => e.name === "tool_result" && e.payload.toolName === "write").length,
      runs,
    );
    rows.push({ events: size, engine, baseline });
  }
  return rows;
}

export function engineTable(rows: EngineRow[]): string {
  const lines = [
    "| events | evaluateQuest median (ms) | p90 (ms) | µs per 1k events | one pass over events, median (ms) | ratio to one pass |",
    "|---:|---:|---:|---:|---:|---:|",
  ];
  for (const { events, engine, baseline } of rows) {
    lines.push(
      `| ${events.toLocaleString("en")} | ${ms(engine.median)} | ${ms(engine.p90)} | ${((engine.median * 1000) / (events / 1000)).toFixed(1)} | ${ms(baseline.median)} | ${(engine.median / baseline.median).toFixed(1)} |`,
    );
  }
  return lines.join("\n");
}
