/**
 * From a turn's end to the HUD, for every quest of the built-in curriculum, with and without the
 * looks of `changedPaths` (src/receipts/changed-paths.ts), in one run.
 *
 * The extension's default export with a fake `pi` that keeps the handlers, opened in a fake RPC
 * session (as bench/extension.ts's turn_end bench) on a fresh workspace and agent dir per quest
 * and variant, the quest started by itself (`PI_QUESTS_START`: the pack is a copy of quests/
 * without `requires`, its sandboxes as they are). Once the HUD has settled, `rounds` turns of one
 * tool call each: a run's start (`before_agent_start`), then the call's events as Pi sends them
 * (its message, `tool_execution_start`, a file written, `tool_execution_end`, its result), then
 * `turn_end`; timed from the `turn_end` call to
 * the HUD's first widget after that evaluation's "checking…" (the debounce, 250 ms, included).
 *
 * Two variants of each quest: as it is (no quest of the curriculum reads changedPaths yet, so
 * there is no look), and with one more check that reads it (`changedPaths.*`), so the extension
 * looks before and after every call. The tool call's own wait for the extension (its
 * `tool_execution_start` and `_end` handlers) is timed too. The variants alternate, A B then B A.
 * `node bench/turn-to-hud.ts [ROUNDS]` prints this section alone.
 */
import { cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { homedir } from "node:os";
import { join, resolve } from "node:path";
import { performance } from "node:perf_hooks";
import { setTimeout } from "node:timers/promises";
import type { ExtensionAPI, ExtensionContext } from "@earendil-works/pi-coding-agent";
import { parse, stringify } from "yaml";
import { median, ms } from "./measure.ts";

const REPO = resolve(import.meta.dirname, "..");
const QUESTS = join(REPO, "quests");

type Handler = (event: unknown, ctx: ExtensionContext) => unknown;
type Variant = "as is" | "reads changedPaths";

export type HudRow = {
  quest: string;
  variant: Variant;
  /** Medians (ms): turn_end to the HUD; the call's wait in the extension's two handlers. */
  turnToHud: number;
  callWait: number;
  rounds: number;
};

/** The check a quest gets in the second variant: the extension then looks around every call. */
const READS_CHANGED_PATHS = {
  id: "bench-changed",
  describe: "Pi changed bench.txt",
  type: "event",
  match: { event: "tool_result", fields: { "changedPaths.*": { ends_with: "bench.txt" } } },
};

/** quests/ copied to `dir`: every quest without `requires`, and with the check above when asked. */
function packCopy(dir: string, variant: Variant): { pack: string; ids: string[] } {
  const pack = join(dir, variant === "as is" ? "as-is" : "reads");
  cpSync(QUESTS, pack, { recursive: true });
  const ids: string[] = [];
  for (const name of readdirSync(pack)
    .filter((file) => file.endsWith(".yaml"))
    .sort()) {
    const quest = parse(readFileSync(join(pack, name), "utf8")) as Record<string, unknown>;
    delete quest.requires;
    if (variant === "reads changedPaths")
      quest.checks = [...(quest.checks as unknown[]), READS_CHANGED_PATHS];
    writeFileSync(join(pack, name), stringify(quest));
    ids.push(String(quest.id));
  }
  return { pack, ids };
}

type Session = {
  fire(name: string, event?: Record<string, unknown>): Promise<number>;
  widgets: { at: number; lines: string[] }[];
  workspace: string;
};

/** pi-quests in a fake RPC session on a fresh workspace, `quest` started by itself from `pack`. */
async function openSession(base: string, pack: string, quest: string): Promise<Session> {
  const dir = mkdtempSync(join(base, "session-"));
  const workspace = join(dir, "workspace");
  const agentDir = join(dir, "agent");
  mkdirSync(workspace);
  mkdirSync(agentDir);
  process.env.PI_CODING_AGENT_DIR = agentDir;
  process.env.PI_QUESTS_PACK = pack;
  process.env.PI_QUESTS_START = quest;
  const handlers = new Map<string, Handler>();
  const fakePi = {
    on(event: string, handler: Handler) {
      handlers.set(event, handler);
    },
    registerCommand() {},
    registerEntryRenderer() {},
    appendEntry() {},
  } as unknown as ExtensionAPI;
  const { default: piQuests } = await import("../src/extension/index.ts");
  await piQuests(fakePi);
  const widgets: Session["widgets"] = [];
  const notices: string[] = [];
  const ctx = {
    hasUI: true,
    mode: "rpc",
    cwd: workspace,
    ui: {
      setWidget: (_key: string, lines: string[]) => widgets.push({ at: performance.now(), lines }),
      setStatus: () => {},
      notify: (message: string) => notices.push(message),
      confirm: async () => false,
    },
    sessionManager: {
      getSessionId: () => "bench-session",
      getHeader: () => ({ type: "session", id: "bench-session", cwd: workspace, timestamp: "" }),
      getEntries: () => [],
    },
  } as unknown as ExtensionContext;
  /** Calls the handler of `name` and returns how long the call (and its promise) took. */
  const fire = async (name: string, event: Record<string, unknown> = {}) => {
    const handler = handlers.get(name);
    if (!handler) throw new Error(`the extension registered no ${name} handler`);
    const start = performance.now();
    await handler({ type: name, ...event }, ctx);
    return performance.now() - start;
  };
  await fire("session_start", { reason: "startup" });
  await settled(widgets, notices);
  return { fire, widgets, workspace };
}

/** Waits until the HUD has been drawn and no widget came for a while, none of them "checking…". */
async function settled(widgets: Session["widgets"], notices: string[]): Promise<void> {
  const deadline = Date.now() + 120_000;
  let seen = -1;
  for (;;) {
    await setTimeout(400);
    const last = widgets.at(-1)?.lines.join("\n") ?? "";
    if (widgets.length > 0 && widgets.length === seen && !last.includes("checking…")) return;
    seen = widgets.length;
    if (Date.now() > deadline) throw new Error(`the HUD never settled: ${notices.join("; ")}`);
  }
}

const isChecking = (widget: { lines: string[] }) => widget.lines.join("\n").includes("checking…");

/** One turn with one tool call that writes bench.txt; the turn's end to the HUD, and the call's wait. */
async function turn(session: Session, round: number): Promise<{ turnToHud: number; callWait: number }> {
  const id = `call-${round}`;
  const command = `echo ${round} > bench.txt`;
  // A run begins (the prompt): Pi builds its system prompt, then the model answers with the call.
  await session.fire("before_agent_start", { systemPromptOptions: { contextFiles: [], skills: [] } });
  await setTimeout(20);
  await session.fire("message_end", {
    message: { role: "assistant", content: [{ type: "toolCall", id, name: "bash", arguments: { command } }] },
  });
  let callWait = await session.fire("tool_execution_start", {
    toolCallId: id,
    toolName: "bash",
    args: { command },
  });
  writeFileSync(join(session.workspace, "bench.txt"), `${round}\n`);
  callWait += await session.fire("tool_execution_end", {
    toolCallId: id,
    toolName: "bash",
    isError: false,
    durationMs: 1,
    result: { content: [{ type: "text", text: "" }] },
  });
  await session.fire("message_end", {
    message: { role: "toolResult", toolCallId: id, toolName: "bash", isError: false, content: [] },
  });
  const from = session.widgets.length;
  const start = performance.now();
  await session.fire("turn_end", { turnIndex: round, message: {}, toolResults: [] });
  const deadline = Date.now() + 120_000;
  for (;;) {
    const after = session.widgets.slice(from);
    const checking = after.findIndex(isChecking);
    const shown = checking < 0 ? undefined : after.slice(checking).find((widget) => !isChecking(widget));
    if (shown) return { turnToHud: shown.at - start, callWait };
    if (Date.now() > deadline) throw new Error("the HUD never showed the turn's evaluation");
    await setTimeout(5);
  }
}

async function benchQuest(base: string, pack: string, quest: string, variant: Variant, rounds: number) {
  const session = await openSession(base, pack, quest);
  const turnToHud: number[] = [];
  const callWait: number[] = [];
  try {
    for (let round = 0; round < rounds; round++) {
      const timed = await turn(session, round);
      turnToHud.push(timed.turnToHud);
      callWait.push(timed.callWait);
      await setTimeout(50);
    }
  } finally {
    await session.fire("session_shutdown");
  }
  return { quest, variant, turnToHud: median(turnToHud), callWait: median(callWait), rounds };
}

export async function benchTurnToHud(
  base = join(homedir(), ".cache", "pi-quests-bench-hud"),
  rounds = 5,
): Promise<HudRow[]> {
  mkdirSync(base, { recursive: true });
  const saved = {
    agentDir: process.env.PI_CODING_AGENT_DIR,
    pack: process.env.PI_QUESTS_PACK,
    start: process.env.PI_QUESTS_START,
  };
  try {
    const asIs = packCopy(base, "as is");
    const reads = packCopy(base, "reads changedPaths");
    const rows: HudRow[] = [];
    for (const [index, quest] of asIs.ids.entries()) {
      const order: [string, Variant][] = [
        [asIs.pack, "as is"],
        [reads.pack, "reads changedPaths"],
      ];
      if (index % 2 === 1) order.reverse();
      for (const [pack, variant] of order) rows.push(await benchQuest(base, pack, quest, variant, rounds));
    }
    return rows;
  } finally {
    for (const [name, value] of [
      ["PI_CODING_AGENT_DIR", saved.agentDir],
      ["PI_QUESTS_PACK", saved.pack],
      ["PI_QUESTS_START", saved.start],
    ] as const) {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
    rmSync(base, { recursive: true, force: true });
  }
}

export function turnToHudTable(rows: readonly HudRow[]): string {
  const quests = [...new Set(rows.map((row) => row.quest))];
  const of = (quest: string, variant: Variant) =>
    rows.find((row) => row.quest === quest && row.variant === variant) as HudRow;
  const lines = [
    "| quest | turn end to HUD, as is (ms) | with a changedPaths check (ms) | ratio | the call's wait for the extension, as is (ms) | with the looks (ms) |",
    "|---|---:|---:|---:|---:|---:|",
  ];
  for (const quest of quests) {
    const a = of(quest, "as is");
    const b = of(quest, "reads changedPaths");
    lines.push(
      `| ${quest} | ${ms(a.turnToHud)} | ${ms(b.turnToHud)} | ${(b.turnToHud / a.turnToHud).toFixed(2)} | ${ms(a.callWait)} | ${ms(b.callWait)} |`,
    );
  }
  const all = (variant: Variant, key: "turnToHud" | "callWait") =>
    median(rows.filter((row) => row.variant === variant).map((row) => row[key]));
  lines.push(
    `| **median of the quests** | ${ms(all("as is", "turnToHud"))} | ${ms(all("reads changedPaths", "turnToHud"))} | ${(all("reads changedPaths", "turnToHud") / all("as is", "turnToHud")).toFixed(2)} | ${ms(all("as is", "callWait"))} | ${ms(all("reads changedPaths", "callWait"))} |`,
  );
  return lines.join("\n");
}

if (import.meta.main) {
  process.stdout.write(`${turnToHudTable(await benchTurnToHud(undefined, Number(process.argv[2] ?? 5)))}\n`);
}
