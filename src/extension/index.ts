/**
 * The Pi extension: thin glue between Pi and the quest controller. It turns Pi's events into
 * recorded events (src/core/pi-events.ts says which, and why from `message_end`), registers
 * `/quest`, and draws the HUD: a themed widget in the TUI, plain lines in RPC, nothing without a
 * UI. Everything else lives in the controller and the engine, which import nothing from Pi.
 */
import { realpathSync } from "node:fs";
import { homedir } from "node:os";
import type { ExtensionAPI, ExtensionContext } from "@earendil-works/pi-coding-agent";
import { createLocalBashOperations } from "@earendil-works/pi-coding-agent";
import { truncateToWidth } from "@earendil-works/pi-tui";
import { agentDirFrom } from "../core/paths.ts";
import {
  agentEndEvent,
  inputEvent,
  type MessageContent,
  type PiEvent,
  sessionStartEvent,
  toolBlockedEvent,
  toolResultEvent,
  turnEndEvent,
  userBashEvent,
} from "../events/names.ts";
import type { NotifyLevel, QuestController, QuestUi } from "./controller.ts";
import { type HudLine, type HudState, type HudTone, hudLines, hudStatus } from "./hud.ts";
import { questCompletions } from "./quest-command.ts";
import { guardToolCall } from "./record-guard.ts";

const HUD_KEY = "pi-quests";

type Theme = { fg(color: string, text: string): string; bold(text: string): string };
type ToolCallBlock = { type: "toolCall"; id: string; arguments: Record<string, unknown> };

/** Where recorded events go: the quest controller (with a UI), or the plain recorder (without). */
type EventSink = { record(event: PiEvent): void; dispose(): Promise<void> };
/** Where events go when pi-quests could not start: nowhere, rather than piling up in memory. */
const DISCARD: EventSink = { record: () => {}, dispose: async () => {} };

export default function piQuests(pi: ExtensionAPI): void {
  let controller: QuestController | undefined;
  let sink: EventSink | undefined;
  let opening: Promise<void> | undefined;
  let sessionId: string | undefined;
  // Events that arrive while the session is still opening, recorded once it is.
  const early: PiEvent[] = [];
  const record = (event: PiEvent) => (sink ? sink.record(event) : early.push(event));
  // A tool result names its call; the call's arguments come with the assistant message before it.
  const toolInputs = new Map<string, Record<string, unknown>>();

  const openRecorder = async (ctx: ExtensionContext): Promise<EventSink> => {
    const ui = questUi(ctx);
    const { openEventRecorder } = await import("./recorder.ts");
    const log = await openEventRecorder({
      cwd: ctx.cwd,
      env: process.env,
      onWriteError: (error) =>
        ui.notify(`pi-quests could not record an event: ${(error as Error).message}`, "warning"),
    });
    return { record: (event) => log.record(event, sessionId), dispose: () => log.flush() };
  };

  const openController = async (ctx: ExtensionContext): Promise<QuestController | undefined> => {
    const ui = questUi(ctx);
    // Loaded here, not at Pi's start: the engine and its libraries are only needed for quests.
    const { openQuestSession } = await import("./session.ts");
    const opened = await openQuestSession({
      cwd: ctx.cwd,
      env: process.env,
      ui,
      sessionId: () => sessionId,
      backlog: early,
    });
    if (opened.ok) return opened.controller;
    ui.showHud({ kind: "broken", notice: "the quest pack has errors (see the notification)" });
    ui.notify(`pi-quests: ${opened.message}`, "error");
    return undefined;
  };

  /** Runs `opening`; a failure is told to the learner, and Pi keeps working without quests. */
  const orNothing = async <T>(ctx: ExtensionContext, opening: () => Promise<T | undefined>) => {
    try {
      return await opening();
    } catch (error) {
      questUi(ctx).notify(`pi-quests could not start: ${(error as Error).message}`, "error");
      return undefined;
    }
  };

  /** With a UI the quest controller; without one (print mode) the plain event recorder. */
  const open = (ctx: ExtensionContext): Promise<EventSink | undefined> =>
    orNothing(ctx, async () => {
      if (!ctx.hasUI) return openRecorder(ctx);
      controller = await openController(ctx);
      return controller;
    });

  /** The controller for a `/quest` command; in print mode it is opened now, taking over from the recorder. */
  const commandController = async (ctx: ExtensionContext): Promise<QuestController | undefined> => {
    await opening;
    if (controller || !sink || sink === DISCARD) return controller;
    await sink.dispose();
    controller = await orNothing(ctx, () => openController(ctx));
    sink = controller ?? DISCARD;
    return controller;
  };

  pi.on("session_start", (_event, ctx) => {
    sessionId = ctx.sessionManager.getSessionId();
    record(sessionStartEvent({ sessionId, cwd: ctx.cwd }));
    // Not awaited: Pi starts without waiting for quests; events meanwhile wait in `early`.
    opening = open(ctx).then((opened) => {
      sink = opened ?? DISCARD;
      for (const event of early.splice(0)) sink.record(event);
    });
  });

  pi.on("session_shutdown", async () => {
    await opening;
    const closing = sink;
    sink = DISCARD;
    controller = undefined;
    await closing?.dispose();
  });

  // The agent's tools are kept from pi-quests' records; the seals hold where this cannot see.
  pi.on("tool_call", (event, ctx) => {
    const home = homedir();
    const decision = guardToolCall(event, {
      cwd: ctx.cwd,
      home,
      agentDir: agentDirFrom(process.env, ctx.cwd, home),
      realpath: realpathSync,
    });
    if (!decision.block) return undefined;
    const input = event.input as Record<string, unknown>;
    record(toolBlockedEvent({ toolName: event.toolName, input, reason: decision.reason }));
    // With a UI the controller tells the learner (HUD, notification); print mode says it on stderr.
    if (!ctx.hasUI) questUi(ctx).notify(`pi-quests blocked the agent's ${event.toolName} call.`, "warning");
    return { block: true, reason: decision.reason };
  });

  pi.on("message_end", (event) => {
    const message = event.message as { role: string; [key: string]: unknown };
    switch (message.role) {
      case "user":
        record(inputEvent(message.content as MessageContent));
        return;
      case "assistant":
        for (const block of (message.content ?? []) as Array<{ type: string }>) {
          if (block.type === "toolCall") {
            const call = block as ToolCallBlock;
            toolInputs.set(call.id, call.arguments);
          }
        }
        return;
      case "toolResult": {
        const result = message as unknown as { toolCallId: string; toolName: string; isError: boolean };
        record(
          toolResultEvent({
            toolName: result.toolName,
            toolCallId: result.toolCallId,
            isError: result.isError,
            input: toolInputs.get(result.toolCallId) ?? {},
          }),
        );
        toolInputs.delete(result.toolCallId);
        return;
      }
      default:
        return;
    }
  });

  pi.on("turn_end", (event, ctx) => {
    record(turnEndEvent({ assistantTurns: assistantTurns(ctx), turnIndex: event.turnIndex }));
  });

  pi.on("agent_end", (_event, ctx) => {
    record(agentEndEvent({ assistantTurns: assistantTurns(ctx) }));
  });

  // Pi's user_bash event comes before the command runs: wrap the local shell to learn its exit code.
  pi.on("user_bash", (event) => {
    // Without pi-quests running, Pi's own handling goes ahead untouched.
    if (sink === DISCARD) return undefined;
    const local = createLocalBashOperations();
    return {
      operations: {
        async exec(command, cwd, options) {
          try {
            const result = await local.exec(command, cwd, options);
            record(
              userBashEvent({
                command: event.command,
                exitCode: result.exitCode,
                excludeFromContext: event.excludeFromContext,
              }),
            );
            return result;
          } catch (error) {
            record(
              userBashEvent({
                command: event.command,
                exitCode: null,
                excludeFromContext: event.excludeFromContext,
              }),
            );
            throw error;
          }
        },
      },
    };
  });

  pi.registerCommand("quest", {
    description: "Quests: list, start ID, check, hint, status, reset",
    getArgumentCompletions: (prefix) => questCompletions(prefix, controller?.quests() ?? []),
    handler: async (args, ctx) => {
      const quests = await commandController(ctx);
      if (!quests) {
        questUi(ctx).say("pi-quests is not running in this session (see the earlier notification).");
        return;
      }
      await quests.command(args);
    },
  });
}

/** Assistant messages in the session so far, the way a session file counts them. */
function assistantTurns(ctx: ExtensionContext): number {
  let count = 0;
  for (const entry of ctx.sessionManager.getEntries()) {
    if (entry.type === "message" && entry.message.role === "assistant") count++;
  }
  return count;
}

/** Pi's UI as the controller sees it. Repeated identical HUD states are not sent again. */
function questUi(ctx: ExtensionContext): QuestUi {
  let lastWidget = "";
  let lastStatus = "";
  return {
    hasUI: ctx.hasUI,
    showHud(state: HudState) {
      if (!ctx.hasUI) return;
      const lines = hudLines(state);
      const status = hudStatus(state);
      const key = JSON.stringify(lines);
      if (key !== lastWidget) {
        lastWidget = key;
        if (ctx.mode === "tui") {
          ctx.ui.setWidget(HUD_KEY, (_tui, theme) => ({
            render: (width: number) => lines.map((line) => truncateToWidth(themed(line, theme), width)),
            invalidate: () => {},
          }));
        } else {
          ctx.ui.setWidget(
            HUD_KEY,
            lines.map((line) => line.text),
          );
        }
      }
      if (status !== lastStatus) {
        lastStatus = status;
        ctx.ui.setStatus(HUD_KEY, ctx.mode === "tui" ? ctx.ui.theme.fg("accent", status) : status);
      }
    },
    notify(message: string, level: NotifyLevel) {
      if (ctx.hasUI) ctx.ui.notify(message, level);
      else if (level !== "info") process.stderr.write(`${message}\n`);
    },
    async confirm(title: string, message: string) {
      return ctx.hasUI ? ctx.ui.confirm(title, message) : undefined;
    },
    say(text: string) {
      if (ctx.hasUI) ctx.ui.notify(text, "info");
      else process.stdout.write(`${text}\n`);
    },
  };
}

const TONE_COLOR: Record<HudTone, string> = {
  title: "accent",
  pass: "success",
  fail: "error",
  pending: "warning",
  unchecked: "muted",
  muted: "dim",
  notice: "warning",
};

function themed(line: HudLine, theme: Theme): string {
  const colored = theme.fg(TONE_COLOR[line.tone], line.text);
  return line.tone === "title" ? theme.bold(colored) : colored;
}
