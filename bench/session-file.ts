/**
 * `check --session`'s reader: parseSessionFile on a Pi session file of 10,000 entries (the
 * events a check sees, warnings included). The file is made here, as Pi writes one: the header,
 * the setup entries, a system message, then rounds of a prompt, an assistant message calling a
 * tool (with usage and a thinking block), the tool's result (1 KB of output; every tenth with
 * two nested calls), a closing assistant message, and now and then a model or thinking change,
 * a label, a name, a compaction with a long summary, a `!` command, an unknown entry type.
 * Baseline in the same run: one plain pass over the same text (split, JSON.parse each line).
 * `node bench/session-file.ts` prints this section alone.
 */
import { parseSessionFile } from "../src/cli/session-file.ts";
import { measure, ms, type Timing } from "./measure.ts";

export type SessionFileRow = {
  entries: number;
  megabytes: number;
  events: number;
  read: Timing;
  baseline: Timing;
};

const USAGE = {
  input: 1200,
  output: 80,
  cacheRead: 0,
  cacheWrite: 0,
  totalTokens: 1280,
  cost: { input: 0.0036, output: 0.0012, cacheRead: 0, cacheWrite: 0, total: 0.0048 },
};
const OUTPUT = "line of tool output, as a read or bash call returns it\n".repeat(18);

/** A session file of exactly `count` entries after the header. */
export function sessionFileText(count: number): string {
  const lines: string[] = [];
  let id = 0;
  let parent: string | null = null;
  const entry = (type: string, fields: Record<string, unknown>) => {
    const entryId = (++id).toString(16).padStart(8, "0");
    lines.push(
      JSON.stringify({
        type,
        id: entryId,
        parentId: parent,
        timestamp: new Date(Date.UTC(2026, 2, 14, 9, 0, 0, id * 1000)).toISOString(),
        ...fields,
      }),
    );
    parent = entryId;
    return entryId;
  };
  const message = (body: Record<string, unknown>) =>
    entry("message", { message: { ...body, timestamp: id } });
  entry("model_change", { provider: "anthropic", modelId: "claude-sonnet-4-5" });
  entry("thinking_level_change", { thinkingLevel: "medium" });
  message({ role: "system", content: "", sections: { preamble: "You are Pi.".repeat(200) } });
  for (let round = 0; lines.length < count; round++) {
    message({
      role: "user",
      content: [{ type: "text", text: `Step ${round}: change src/file-${round % 50}.ts` }],
    });
    const call = `toolu_${round}`;
    const assistant = (content: unknown[], stopReason: string) =>
      message({
        role: "assistant",
        content,
        api: "anthropic-messages",
        provider: "anthropic",
        model: "claude-sonnet-4-5",
        usage: USAGE,
        stopReason,
      });
    const last = assistant(
      [
        { type: "thinking", thinking: "Look at the file first.", thinkingSignature: "sig" },
        {
          type: "toolCall",
          id: call,
          name: round % 2 ? "bash" : "read",
          arguments: { path: `src/file-${round}.ts` },
        },
      ],
      "toolUse",
    );
    const nested =
      round % 10 === 0
        ? {
            nestedCalls: {
              calls: [
                { id: `${call}/1`, name: "read", arguments: { path: "a.ts" }, status: "ok", durationMs: 3 },
                { id: `${call}/2`, name: "ls", arguments: {}, status: "error", error: "no such folder" },
              ],
              complete: true,
            },
          }
        : {};
    message({
      role: "toolResult",
      toolCallId: call,
      toolName: round % 2 ? "bash" : "read",
      content: [{ type: "text", text: OUTPUT }],
      isError: round % 7 === 0,
      ...nested,
    });
    assistant([{ type: "text", text: "Done with this step." }], "stop");
    if (round % 25 === 0) entry("model_change", { provider: "anthropic", modelId: `claude-${round % 2}` });
    if (round % 40 === 0) entry("thinking_level_change", { thinkingLevel: round % 80 ? "high" : "low" });
    if (round % 30 === 0) entry("label", { targetId: last, label: `step-${round}` });
    if (round % 100 === 0) entry("session_info", { name: `Session at step ${round}` });
    if (round % 200 === 0)
      entry("compaction", { summary: "Summary. ".repeat(400), firstKeptEntryId: last, tokensBefore: 90_000 });
    if (round % 15 === 0)
      message({
        role: "bashExecution",
        command: "git status",
        output: "clean",
        exitCode: 0,
        cancelled: false,
        truncated: false,
      });
    if (round % 50 === 0)
      entry("usage", { kind: "cache_warm", provider: "anthropic", model: "claude", usage: USAGE });
  }
  const header = JSON.stringify({
    type: "session",
    version: 3,
    id: "0197a8e4-5c2b-7f3a-9d41-6b2e8c1f0a57",
    timestamp: "2026-03-14T09:00:00.000Z",
    cwd: "/home/learner/project",
  });
  return `${[header, ...lines.slice(0, count)].join("\n")}\n`;
}

export async function benchSessionFile(entries = 10_000, runs = 30): Promise<SessionFileRow[]> {
  const text = sessionFileText(entries);
  const first = parseSessionFile(text, "session.jsonl");
  if (!first.ok || first.warnings.length > 0)
    throw new Error("the benchmark's session file does not read cleanly");
  const read = await measure(() => parseSessionFile(text, "session.jsonl"), runs, 5);
  const baseline = await measure(
    () => text.split("\n").map((line) => (line === "" ? undefined : JSON.parse(line))),
    runs,
    5,
  );
  const megabytes = Buffer.byteLength(text) / 2 ** 20;
  return [{ entries, megabytes, events: first.events.length, read, baseline }];
}

export function sessionFileTable(rows: SessionFileRow[]): string {
  const lines = [
    "| entries | size (MiB) | events | parseSessionFile median (ms) | p90 (ms) | runs | split + JSON.parse, median (ms) | ratio |",
    "|---:|---:|---:|---:|---:|---:|---:|---:|",
  ];
  for (const { entries, megabytes, events, read, baseline } of rows) {
    lines.push(
      `| ${entries.toLocaleString("en")} | ${megabytes.toFixed(1)} | ${events.toLocaleString("en")} | ${ms(read.median)} | ${ms(read.p90)} | ${read.runs} | ${ms(baseline.median)} | ${(read.median / baseline.median).toFixed(2)} |`,
    );
  }
  return lines.join("\n");
}

if (import.meta.main) process.stdout.write(`${sessionFileTable(await benchSessionFile())}\n`);
