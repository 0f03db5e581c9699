/**
 * The quest host against a Pi that delivers its session events more than once, or out of pairs,
 * on purpose: the entry (index.ts) wired to a stand-in for Pi with a UI (RPC mode), whatever the
 * stand-in delivers. One controller, so one writer of the workspace's event log (its `seq`
 * numbers strictly increasing, each event once) and of its progress. Pi 1.5 does the first of
 * these in the real `pi` (tests/e2e/pi-previous-sessions.test.ts).
 */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import type { ExtensionAPI, ExtensionContext } from "@earendil-works/pi-coding-agent";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { readEventLog } from "../../src/events/log-reader.ts";
import type { VerifierEvent } from "../../src/events/schema.ts";
import piQuests from "../../src/extension/index.ts";
import { REPO } from "../support/cli.ts";
import { dataFolderOf, slowQuestPack } from "../support/pi-rpc.ts";
import { agentSealer } from "../support/seal.ts";
import { makeWorkspace } from "../support/workspace.ts";

type Handler = (event: unknown, ctx: ExtensionContext) => unknown;

const PACK = join(REPO, "fixtures/packs/starter");
const SAVED = ["PI_CODING_AGENT_DIR", "PI_QUESTS_PACK"] as const;
let saved: Record<string, string | undefined> = {};
beforeEach(() => {
  saved = Object.fromEntries(SAVED.map((name) => [name, process.env[name]]));
});
afterEach(() => {
  for (const name of SAVED) {
    if (saved[name] === undefined) delete process.env[name];
    else process.env[name] = saved[name];
  }
});

/** pi-quests loaded into a stand-in Pi with a UI, in one workspace; `deliver` sends an event to every handler. */
async function standInPi(pack = PACK) {
  const workspace = makeWorkspace();
  const agentDir = makeWorkspace();
  process.env.PI_CODING_AGENT_DIR = agentDir;
  process.env.PI_QUESTS_PACK = pack;
  const handlers = new Map<string, Handler[]>();
  const widgets: string[][] = [];
  const from = { path: "/pi-quests/src/extension/index.ts" };
  const pi = {
    on(event: string, handler: Handler) {
      handlers.set(event, [...(handlers.get(event) ?? []), handler]);
    },
    registerCommand() {},
    registerTool() {},
    getAllTools: () => [],
    getCommands: () => [{ name: "quest", sourceInfo: from }],
    getSettings: () => ({}),
    registerEntryRenderer() {},
    appendEntry() {},
  } as unknown as ExtensionAPI;
  await piQuests(pi);

  let sessionId = "s-1";
  const ctx = {
    hasUI: true,
    mode: "rpc",
    cwd: workspace,
    model: { provider: "scripted", id: "scripted-1" },
    modelRegistry: { find: () => undefined },
    ui: {
      notify() {},
      setStatus() {},
      setWidget(_key: string, lines: string[]) {
        widgets.push(lines);
      },
    },
    isProjectTrusted: () => false,
    sessionManager: {
      getSessionId: () => sessionId,
      getHeader: () => ({ type: "session", id: sessionId, cwd: workspace, timestamp: "" }),
      getEntries: () => [],
    },
  } as unknown as ExtensionContext;

  /** Delivers `name` to every handler pi-quests registered for it (none: nothing happens, as in Pi). */
  const deliver = async (name: string, event: Record<string, unknown> = {}) => {
    for (const handler of handlers.get(name) ?? []) await handler({ type: name, ...event }, ctx);
  };
  const folder = dataFolderOf(agentDir, workspace);
  const readLog = async (): Promise<VerifierEvent[]> => {
    // Not written before the session is open.
    if (!existsSync(join(folder, "events.jsonl"))) return [];
    const read = await readEventLog(
      join(folder, "events.jsonl"),
      agentSealer(agentDir, "events", workspace),
      "strict",
    );
    if (!read.ok) throw new Error(JSON.stringify(read.diagnostics));
    return read.events;
  };
  /** A prompt and its answer, once the session is open: the first quest of the starter pack completes on it. */
  const turn = async (text: string) => {
    await logWith(readLog, "quest_activated");
    await deliver("input", { text, source: "rpc" });
    await deliver("message_end", { message: { role: "user", content: text, timestamp: 1 } });
    await deliver("message_end", {
      message: { role: "assistant", content: [{ type: "text", text: "Hi." }] },
    });
    await deliver("turn_end", { turnIndex: 0 });
    await deliver("agent_settled", { aborted: false });
  };
  return {
    handlers,
    widgets,
    deliver,
    readLog,
    turn,
    progressFile: join(folder, "progress.json"),
    switchTo(id: string) {
      sessionId = id;
    },
  };
}

/** Waits until the log holds an event named `name` (an evaluation ends on its own time). */
async function logWith(read: () => Promise<VerifierEvent[]>, name: string): Promise<VerifierEvent[]> {
  const deadline = Date.now() + 20_000;
  for (;;) {
    const events = await read();
    if (events.some((event) => event.name === name)) return events;
    if (Date.now() > deadline) throw new Error(`no ${name} in ${JSON.stringify(events.map((e) => e.name))}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** One writer: seq 0, 1, 2, ... in file order, each number once. */
function expectOneSequence(events: readonly VerifierEvent[]): void {
  expect(events.map((event) => event.seq)).toEqual(events.map((_event, index) => index));
}

const names = (events: readonly VerifierEvent[]) => events.map((event) => event.name);

describe("the quest host, when Pi delivers its session events twice or unpaired", () => {
  it("takes a second session_start for the open session, and a repeated resources_discover, as nothing new: one controller, one sequence", async () => {
    const pi = await standInPi();
    // pi-quests does not listen to resources_discover: delivering it, twice, reaches nothing of it.
    expect(pi.handlers.has("resources_discover")).toBe(false);
    await pi.deliver("session_start", { reason: "fork" });
    await pi.deliver("resources_discover", { reason: "startup" });
    await pi.deliver("session_start", { reason: "fork" });
    await pi.deliver("resources_discover", { reason: "startup" });
    await pi.turn("Hello");
    const events = await logWith(pi.readLog, "quest_completed");
    await pi.deliver("session_shutdown");
    const final = await pi.readLog();
    expectOneSequence(final);
    expect(names(final).filter((name) => name === "session_start")).toHaveLength(1);
    expect(names(final).filter((name) => name === "quest_activated")).toHaveLength(2);
    expect(names(events).filter((name) => name === "quest_completed")).toEqual(["quest_completed"]);
    // The progress the one controller left: the first quest done, the next one active.
    const progress = JSON.parse(readFileSync(pi.progressFile, "utf8")) as {
      completed?: Record<string, unknown>;
      active?: { questId: string };
    };
    expect(Object.keys(progress.completed ?? {})).toEqual(["first-prompt"]);
    expect(progress.active?.questId).toBe("first-file");
  }, 30_000);

  it("closes the open session before it opens another when Pi never sent its shutdown", async () => {
    // A quest whose check takes a second: s-1's evaluation is still running when s-2 starts.
    const pi = await standInPi(slowQuestPack("sleep 1"));
    await pi.deliver("session_start", { reason: "startup" });
    await pi.turn("Hello");
    await new Promise((resolve) => setTimeout(resolve, 400));
    pi.switchTo("s-2");
    await pi.deliver("session_start", { reason: "new" });
    await logWith(pi.readLog, "quest_completed");
    // Longer than s-1's check: a controller of s-1 still open would have recorded its verdict by now.
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    await pi.deliver("session_shutdown");
    const events = await pi.readLog();
    expectOneSequence(events);
    expect(events.filter((event) => event.name === "session_start").map((event) => event.sessionId)).toEqual([
      "s-1",
      "s-2",
    ]);
    expect(
      events.filter((event) => event.name === "quest_completed").map((event) => event.sessionId),
    ).toEqual(["s-2"]);
  }, 30_000);

  it("takes a session_shutdown without a start, and a second one, as nothing to close", async () => {
    const pi = await standInPi();
    await pi.deliver("session_shutdown");
    await pi.deliver("session_start", { reason: "startup" });
    await pi.turn("Hello");
    await logWith(pi.readLog, "quest_completed");
    await pi.deliver("session_shutdown");
    await pi.deliver("session_shutdown");
    const events = await pi.readLog();
    expectOneSequence(events);
    expect(names(events).slice(0, 2)).toEqual(["session_start", "quest_activated"]);
    expect(existsSync(pi.progressFile)).toBe(true);
  }, 30_000);
});
