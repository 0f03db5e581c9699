/**
 * The extension's entry, wired to a stand-in for Pi: which of Pi's events it listens to and what
 * each records, in order. Print mode (no UI), so events go straight to the workspace's log; the
 * real `pi` drives the same wiring in tests/e2e/pi-events.test.ts.
 */

import { writeFileSync } from "node:fs";
import { join } from "node:path";
import type {
  CustomEntry,
  EntryRenderer,
  EntryRenderOptions,
  ExtensionAPI,
  ExtensionContext,
  Theme,
} from "@earendil-works/pi-coding-agent";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { readEventLog } from "../../src/events/log-reader.ts";
import piQuests from "../../src/extension/index.ts";
import { QUEST_MESSAGE_ENTRY } from "../../src/extension/pi-ui.ts";
import { processMemory } from "../../src/extension/process-memory.ts";
import { REPO } from "../support/cli.ts";
import { dataFolderOf } from "../support/pi-rpc.ts";
import { agentSealer } from "../support/seal.ts";
import { makeWorkspace } from "../support/workspace.ts";

type Handler = (event: unknown, ctx: ExtensionContext) => unknown;

// The Pi the host finds is the checkout's; a test may say it is another version (a newer Pi).
const piVersion = vi.hoisted(() => ({ override: undefined as string | undefined }));
vi.mock("../../src/runtime/pi-host.ts", async (original) => {
  const host = await original<typeof import("../../src/runtime/pi-host.ts")>();
  return {
    ...host,
    loadRunningPi: async (...args: Parameters<typeof host.loadRunningPi>) => {
      const found = await host.loadRunningPi(...args);
      const version = piVersion.override;
      return found.ok && version ? { ...found, value: { ...found.value, version } } : found;
    },
  };
});
afterEach(() => {
  piVersion.override = undefined;
});

const ONE = { provider: "scripted", id: "scripted-1" };
const TWO = { provider: "scripted", id: "scripted-2" };

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

/**
 * pi-quests loaded into a stand-in Pi, for a session whose entries and model the test moves on;
 * in print mode unless `mode` says otherwise.
 */
async function loaded(mode: "print" | "tui" = "print") {
  const workspace = makeWorkspace();
  const agentDir = makeWorkspace();
  process.env.PI_CODING_AGENT_DIR = agentDir;
  const handlers = new Map<string, Handler[]>();
  const renderers = new Map<string, unknown>();
  const tools = new Map<string, unknown>();
  const from = { path: "/pi-quests/src/extension/index.ts" };
  const pi = {
    on(event: string, handler: Handler) {
      handlers.set(event, [...(handlers.get(event) ?? []), handler]);
    },
    registerCommand() {},
    registerTool(tool: { name: string }) {
      tools.set(tool.name, tool);
    },
    getAllTools: () => [...tools.keys()].map((name) => ({ name, sourceInfo: from })),
    getCommands: () => [{ name: "quest", sourceInfo: from }],
    getSettings: () => ({}),
    registerEntryRenderer(type: string, renderer: unknown) {
      renderers.set(type, renderer);
    },
  } as unknown as ExtensionAPI;
  await piQuests(pi);

  const entries: Record<string, unknown>[] = [];
  const session = { model: ONE as { provider: string; id: string } | undefined };
  const ctx = {
    hasUI: mode !== "print",
    mode,
    cwd: workspace,
    get model() {
      return session.model;
    },
    ui: { notify() {}, setWidget() {}, setStatus() {}, theme: PLAIN_THEME },
    isProjectTrusted: () => false,
    sessionManager: {
      getSessionId: () => "s-1",
      getHeader: () => ({
        type: "session",
        id: "s-1",
        cwd: workspace,
        timestamp: "",
        parentSession: "/p.jsonl",
      }),
      getEntries: () => entries.filter(() => true),
    },
  } as unknown as ExtensionContext;

  const fire = async (name: string, event: Record<string, unknown> = {}) => {
    const list = handlers.get(name);
    if (!list) throw new Error(`pi-quests listens to no ${name}`);
    for (const handler of list) await handler({ type: name, ...event }, ctx);
  };
  const events = async () => {
    await fire("session_shutdown");
    const file = `${dataFolderOf(agentDir, workspace)}/events.jsonl`;
    const read = await readEventLog(file, agentSealer(agentDir, "events", workspace), "strict");
    if (!read.ok) throw new Error(JSON.stringify(read.diagnostics));
    return read.events.map(({ name, payload }) => ({ name, payload }));
  };
  return { handlers, renderers, tools, entries, session, fire, events, workspace };
}

const PLAIN_THEME = {
  fg: (_color: string, text: string) => text,
  bold: (text: string) => text,
} as unknown as Theme;

const label = (id: string, targetId: string, text?: string) => ({
  type: "label",
  id,
  parentId: null,
  timestamp: "",
  targetId,
  label: text,
});

describe("the extension's entry", () => {
  it("listens to every Pi event the contract records from", async () => {
    expect([...(await loaded()).handlers.keys()].sort()).toEqual([
      "agent_settled",
      "before_agent_start",
      "input",
      "message_end",
      "model_select",
      "session_before_compact",
      "session_compact",
      "session_compact_failed",
      "session_info_changed",
      "session_shutdown",
      "session_start",
      "session_tree",
      "thinking_level_select",
      "tool_call",
      "tool_execution_end",
      "tool_execution_start",
      "turn_end",
      "user_bash",
    ]);
  });

  it("records a session as the contract's events, in Pi's order", async () => {
    const { fire, events, entries, session } = await loaded();
    await fire("session_start", { reason: "fork" });
    await fire("input", { text: "/review add.js", source: "rpc" });
    await fire("before_agent_start", {
      systemPromptOptions: { contextFiles: [{ path: "/w/AGENTS.md", content: "secret rules" }], skills: [] },
    });
    await fire("message_end", { message: { role: "user", content: "Review add.js.", timestamp: 1 } });
    await fire("tool_execution_start", { toolCallId: "c1", toolName: "bash", args: { command: "rm -rf /" } });
    await fire("tool_execution_end", {
      toolCallId: "c1",
      toolName: "bash",
      isError: true,
      result: { content: [{ type: "text", text: "dangerous command" }] },
    });
    await fire("agent_settled", { aborted: true });
    // A restore is the model a session starts with: not an event.
    await fire("model_select", { model: TWO, previousModel: ONE, source: "restore" });
    session.model = TWO;
    await fire("thinking_level_select", { level: "high", previousLevel: "off" });
    await fire("model_select", { model: TWO, previousModel: ONE, source: "cycle" });
    await fire("session_info_changed", { name: "review" });
    entries.push(label("l1", "e1", "before-refactor"));
    await fire("session_tree", { newLeafId: "e1", oldLeafId: "e2" });
    await fire("session_compact", {
      compactionEntry: { summary: "Summary." },
      reason: "manual",
      fromExtension: false,
      willRetry: false,
    });
    expect(await events()).toEqual([
      {
        name: "session_start",
        payload: { sessionId: "s-1", cwd: expect.any(String), reason: "fork", parentSession: "/p.jsonl" },
      },
      { name: "context_loaded", payload: { contextFiles: ["/w/AGENTS.md"], skills: [] } },
      { name: "input", payload: { text: "Review add.js.", rawText: "/review add.js", source: "rpc" } },
      {
        name: "tool_blocked",
        payload: { toolName: "bash", input: { command: "rm -rf /" }, reason: "dangerous command" },
      },
      { name: "agent_end", payload: { assistantTurns: 0, aborted: true } },
      // Fired by the test, not from inside Pi's session: who asked for them cannot be read.
      {
        name: "model_select",
        payload: { provider: "scripted", modelId: "scripted-2", source: "cycle", origin: "unknown" },
      },
      { name: "thinking_level_select", payload: { level: "high", origin: "unknown" } },
      { name: "session_name", payload: { name: "review", origin: "unknown" } },
      { name: "label", payload: { label: "before-refactor", entryId: "e1" } },
      { name: "session_tree", payload: { summarized: false } },
      { name: "session_compact", payload: { reason: "manual", summary: "Summary." } },
    ]);
  });

  it("takes no look around a call in print mode, which has no quest controller: no changedPaths", async () => {
    process.env.PI_QUESTS_PACK = join(REPO, "fixtures/packs/changed-paths");
    const { fire, events, workspace } = await loaded();
    await fire("session_start", { reason: "startup" });
    await fire("message_end", {
      message: { role: "assistant", content: [{ type: "toolCall", id: "c1", name: "bash", arguments: {} }] },
    });
    await fire("tool_execution_start", { toolCallId: "c1", toolName: "bash", args: {} });
    writeFileSync(join(workspace, "hello.txt"), "hello\n");
    await fire("tool_execution_end", { toolCallId: "c1", toolName: "bash", isError: false, durationMs: 3 });
    await fire("message_end", {
      message: { role: "toolResult", toolCallId: "c1", toolName: "bash", isError: false },
    });
    expect((await events()).find((event) => event.name === "tool_result")?.payload).toEqual({
      toolName: "bash",
      toolCallId: "c1",
      isError: false,
      input: {},
    });
  });

  it("records a label before the event that follows it, whichever that is", async () => {
    const { fire, events, entries } = await loaded();
    await fire("session_start", { reason: "startup" });
    entries.push(label("l1", "e1", "x"));
    await fire("session_info_changed", { name: "n" });
    entries.push(label("l2", "e1"));
    await fire("turn_end", { turnIndex: 0, message: {}, toolResults: [] });
    expect(
      (await events()).map(({ name, payload }) => [name, payload.label ?? payload.name ?? null]),
    ).toEqual([
      ["session_start", null],
      ["label", "x"],
      ["session_name", "n"],
      ["label", null],
      ["turn_end", null],
    ]);
  });

  it("puts labels set before a /tree navigation before it, and one the navigation set after its summary", async () => {
    const { fire, events, entries } = await loaded();
    await fire("session_start", { reason: "startup" });
    const summary = {
      type: "branch_summary",
      id: "b1",
      parentId: null,
      timestamp: "",
      fromId: "e1",
      summary: "Tried X.",
    };
    entries.push(label("l1", "e1", "set-in-tree"), summary, label("l2", "b1", "given-with-it"));
    await fire("session_tree", { newLeafId: "b1", oldLeafId: "e2", summaryEntry: summary });
    expect((await events()).slice(1)).toEqual([
      { name: "label", payload: { label: "set-in-tree", entryId: "e1" } },
      { name: "session_tree", payload: { summarized: true, summary: "Tried X." } },
      { name: "label", payload: { label: "given-with-it", entryId: "b1" } },
    ]);
  });

  it("draws the messages it keeps in the session with pi-tui, loaded when a TUI session starts (goals and debriefs)", async () => {
    // A pack that does not load: the session opens no quest, but it starts as in the TUI.
    process.env.PI_QUESTS_PACK = makeWorkspace();
    const { renderers, fire } = await loaded("tui");
    expect([...renderers.keys()]).toEqual([QUEST_MESSAGE_ENTRY]);
    const render = renderers.get(QUEST_MESSAGE_ENTRY) as EntryRenderer;
    const entry = {
      data: { parts: [{ title: "Quest 1/1: Hello" }, { markdown: "Say **hi**." }] },
    } as CustomEntry;
    const options = { expanded: false } as EntryRenderOptions;
    // Print and RPC modes never load pi-tui: before a TUI session there is nothing to draw with.
    expect(render(entry, options, PLAIN_THEME)).toBeUndefined();
    await fire("session_start", { reason: "startup" });
    const drawn = render(entry, options, PLAIN_THEME)?.render(80) ?? [];
    expect(drawn.map((line) => line.trimEnd())).toEqual([" Quest 1/1: Hello", " Say hi."]);
    expect(render({ data: { other: true } } as CustomEntry, options, PLAIN_THEME)).toBeUndefined();
    await fire("session_shutdown");
  });
});

describe("the extension's entry in a Pi newer than tested", () => {
  it("a call it never saw, ended with a text none of Pi's refusals has, is no block but one notice; a call it saw is a block", async () => {
    piVersion.override = "1.7.0";
    processMemory().told.clear();
    const said = vi.spyOn(process.stderr, "write").mockImplementation(() => true);
    try {
      const { fire, events } = await loaded();
      await fire("session_start", { reason: "startup" });
      const notRun = (toolCallId: string, text: string) =>
        fire("tool_execution_end", {
          toolCallId,
          toolName: "bash",
          isError: true,
          result: { content: [{ type: "text", text }] },
        });
      // Refused by Pi before any extension's tool_call, in words Pi 1.6 does not use.
      await fire("tool_execution_start", { toolCallId: "c1", toolName: "bash", args: { command: "ls" } });
      await notRun("c1", "Unknown tool: bash");
      await fire("tool_execution_start", { toolCallId: "c2", toolName: "bash", args: { command: "ls" } });
      await notRun("c2", "Unknown tool: bash");
      // pi-quests' tool_call saw it: an extension after it blocked it.
      await fire("tool_execution_start", {
        toolCallId: "c3",
        toolName: "bash",
        args: { command: "rm -rf /" },
      });
      await fire("tool_call", { toolCallId: "c3", toolName: "bash", input: { command: "rm -rf /" } });
      await notRun("c3", "dangerous command");
      expect((await events()).map(({ name }) => name)).toEqual(["session_start", "tool_blocked"]);
      const notices = said.mock.calls
        .map(([text]) => String(text))
        .filter((text) => text.includes("untested"));
      expect(notices).toEqual([
        "pi-quests was tested with Pi 1.5 and 1.6 (up to 1.6.0); this is Pi 1.7.0, which is untested: the quests run, and anything of this Pi that pi-quests cannot read is said when it happens.\n",
        'pi-quests: this Pi (1.7.0) is untested: the text of Pi\'s own refusal of a tool call could not be read (a call not run, for: "Unknown tool: bash"). What needs it stays unmet rather than judged on a guess; a newer pi-quests may know this Pi.\n',
      ]);
    } finally {
      said.mockRestore();
    }
  });
});
