/**
 * The Pi extension's entry: Pi's events go through the translator (src/events/translator.ts says
 * which, and why from `message_end`) to the quest controller, or in print mode to the plain
 * recorder; `/quest` is registered here; the HUD and the other UI calls are in pi-ui.ts.
 * Everything else lives in the controller and the engine.
 *
 * It imports nothing of Pi at run time (only types): Pi's functions come from the running Pi
 * through src/runtime/pi-host.ts, so Pi's loader can import this file natively even where Pi's
 * packages do not resolve from pi-quests' own (an installed package), and everything below it
 * receives them (the skill probe, the reviewer). pi-tui loads only when a TUI session starts.
 */
import { realpathSync } from "node:fs";
import { homedir } from "node:os";
import type {
  ExtensionAPI,
  ExtensionContext,
  ToolCallEvent,
  ToolCallEventResult,
  UserBashEvent,
  UserBashEventResult,
} from "@earendil-works/pi-coding-agent";
import { refuseDebuggerSignal } from "../core/debugger-signal.ts";
import { agentDirFrom } from "../core/paths.ts";
import type { ChangedPaths, PiEvent } from "../events/names.ts";
import { createPiEventTranslator, type PiEventTranslator } from "../events/translator.ts";
import type { PiSdkSource } from "../probes/pi-sdk.ts";
import { loadRunningPi, type PiHost, type PiTui } from "../runtime/pi-host.ts";
import { createOriginReader } from "./act-origin.ts";
import { type WiredAgentBash, wireAgentBash } from "./bash-tool.ts";
import { type CallLooks, createCallLooks } from "./call-looks.ts";
import { createExtensionCodeLooks } from "./extension-code-looks.ts";
import { extensionFoldersOf } from "./extension-folders.ts";
import { modelSetupAdvice, modelSetupOf } from "./model-setup.ts";
import { extensionPiNotices } from "./pi-notices.ts";
import { type MessageComponents, QUEST_MESSAGE_ENTRY, questMessageComponent, questUi } from "./pi-ui.ts";
import { firstTimeTold, processMemory } from "./process-memory.ts";
import { questCompletions } from "./quest-command.ts";
import { createQuestHost, type QuestHost, tuiOf } from "./quest-host.ts";
import type { QuestUi } from "./quest-ui.ts";
import { guardToolCall } from "./record-guard.ts";
import { whyNotStart } from "./start-gate.ts";

/** pi-tui's components for a kept message; one column of padding, as Pi's own notices have. */
const messageComponents = ({ Markdown, Text }: PiTui): MessageComponents => ({
  markdown: (text, theme) => new Markdown(text, 1, 0, theme),
  text: (text) => new Text(text, 1, 0),
});

/**
 * Pi's factory. A copy that must not start (start-gate.ts), or a Pi whose modules cannot be
 * found, registers nothing but a notice at session start: Pi itself keeps working.
 */
export default async function piQuests(pi: ExtensionAPI): Promise<void> {
  // Before anything else: no process of the learner's user opens a debugger into Pi by a signal.
  refuseDebuggerSignal();
  const refused = whyNotStart(import.meta.url);
  if (refused) return noticeAtStart(pi, refused.message, refused.level);
  const host = await loadRunningPi();
  // A Pi older than the supported range: one sentence naming the supported versions, no quest.
  if (!host.ok && "tooOld" in host) return noticeAtStart(pi, host.message, "warning");
  if (!host.ok) return noticeAtStart(pi, `pi-quests could not start: ${host.message}`, "error");
  registerQuests(pi, host.value);
}

/** Why pi-quests does not run in this Pi, said at the first session start of the process. */
function noticeAtStart(pi: ExtensionAPI, message: string, level: "warning" | "error"): void {
  pi.on("session_start", (_event, ctx) => {
    if (!firstTimeTold(message)) return;
    if (ctx.hasUI) ctx.ui.notify(message, level);
    else process.stderr.write(`${message}\n`);
  });
}

function registerQuests(pi: ExtensionAPI, host: PiHost): void {
  const tui = tuiOf(host);
  const uiOf = (ctx: ExtensionContext): QuestUi =>
    questUi(ctx, {
      // Drawn only in the TUI, whose sessions start with pi-tui loaded (else no HUD: see openController).
      fitToWidth: (text, width) => tui.loaded()?.truncateToWidth(text, width) ?? "",
      appendMessage: (message) => pi.appendEntry(QUEST_MESSAGE_ENTRY, message),
    });
  const sdk: PiSdkSource = async () => ({ ok: true, sdk: host.modules });
  // The agent's bash: Pi's own tool, its commands run where the records are hidden (bash-tool.ts).
  const notify = (ctx: ExtensionContext, text: string) => uiOf(ctx).notify(text, "warning");
  const bash = wireAgentBash(pi, host.modules, { ownCommand: QUEST_COMMAND, notify });
  const quests = createQuestHost(uiOf, { host, sdk, tui, bash });
  // What this Pi is told once: untested, or something of it that could not be read (pi-notices.ts).
  const piNotices = extensionPiNotices(host.version, notify);
  const translator = createPiEventTranslator(piNotices.translatorOptions);
  const looks = changedPathsLooks(quests);
  const record = (events: PiEvent | readonly PiEvent[] | undefined) => {
    for (const event of events === undefined ? [] : "name" in events ? [events] : events)
      quests.record(event);
  };
  // Labels have no Pi event: each handler first records the label entries Pi appended since.
  const withLabels =
    <E>(handle: (event: E, ctx: ExtensionContext) => PiEvent | readonly PiEvent[] | undefined) =>
    (event: E, ctx: ExtensionContext) => {
      record(translator.labels(ctx.sessionManager.getEntries()));
      record(handle(event, ctx));
    };

  pi.on("session_start", async (event, ctx) => {
    // Before Pi draws the session's messages (it waits for this handler), which need pi-tui.
    if (ctx.mode === "tui") await tui.load();
    const sessionId = ctx.sessionManager.getSessionId();
    // A second delivery for the open session (Pi 1.5's RPC fork and new session) changes nothing.
    if (quests.isOpen(sessionId)) return;
    piNotices.sessionStarted(ctx);
    tellModelSetup(ctx, notify);
    quests.start(ctx, sessionId, () => {
      const parentSession = ctx.sessionManager.getHeader()?.parentSession;
      return translator.sessionStart({
        sessionId,
        cwd: ctx.cwd,
        reason: event.reason,
        ...(parentSession ? { parentSession } : {}),
        entries: ctx.sessionManager.getEntries(),
        model: ctx.model,
      });
    });
  });
  pi.on("session_shutdown", () => Promise.all([looks.clear(), quests.shutdown()]).then(() => undefined));
  pi.on("input", (event) => {
    translator.input(event);
  });
  pi.on("before_agent_start", (event, ctx) => {
    looks.warm(ctx.cwd);
    record(translator.contextLoaded(event.systemPromptOptions));
  });
  pi.on("tool_call", (event, ctx) => blockGuardedCall(event, ctx, translator, record));
  recordToolExecutions(pi, translator, record, looks);
  pi.on(
    "message_end",
    withLabels((event) => translator.messageEnd(event.message)),
  );
  pi.on(
    "turn_end",
    withLabels((event) => translator.turnEnd(event)),
  );
  pi.on(
    "agent_settled",
    withLabels((event) => translator.agentEnd({ aborted: event.aborted })),
  );
  // Who asked for a model or a level, read from the handler's own stack (act-origin.ts).
  const originOf = createOriginReader(host.packageDir);
  const readOrigin = (ctx: ExtensionContext) => originOf((text) => piNotices.originUnread(ctx, text));
  pi.on(
    "model_select",
    withLabels((event, ctx) =>
      event.source === "restore"
        ? undefined
        : translator.modelSelect({ ...event.model, source: event.source, origin: readOrigin(ctx) }),
    ),
  );
  pi.on(
    "thinking_level_select",
    withLabels((event, ctx) => translator.thinkingLevelSelect(event.level, ctx.model, readOrigin(ctx))),
  );
  // Only the event before a compaction has its instructions; they go with the compaction's event.
  pi.on("session_before_compact", (event) => translator.compactionStarts(event));
  pi.on("session_compact_failed", () => translator.compactionFailed());
  pi.on(
    "session_compact",
    withLabels((event) =>
      translator.sessionCompact({ summary: event.compactionEntry.summary, reason: event.reason }),
    ),
  );
  pi.on(
    "session_info_changed",
    withLabels((event, ctx) => translator.sessionName(event.name, readOrigin(ctx))),
  );
  pi.on("session_tree", (event, ctx) => {
    // In the session, labels set before the navigation come before its summary and a label
    // given with the navigation after it: the events keep that order.
    const entries = ctx.sessionManager.getEntries();
    const summaryAt = entries.findIndex((entry) => entry.id === event.summaryEntry?.id);
    record(translator.labels(summaryAt < 0 ? entries : entries.slice(0, summaryAt)));
    record(translator.sessionTree({ summary: event.summaryEntry?.summary }));
    record(translator.labels(entries));
  });
  const { createLocalBashOperations } = host.modules;
  recordUserBashes(pi, { translator, record, looks, running: quests.running, createLocalBashOperations });

  // Goals and debriefs, kept in the session for the TUI to draw as Markdown (never sent to the model).
  pi.registerEntryRenderer(QUEST_MESSAGE_ENTRY, (entry, _options, theme) => {
    const loaded = tui.loaded();
    return loaded ? questMessageComponent(entry.data, theme, messageComponents(loaded)) : undefined;
  });
  const recordLabels = (ctx: ExtensionContext) => record(translator.labels(ctx.sessionManager.getEntries()));
  registerQuestCommand(pi, { quests, bash, uiOf, recordLabels });
}

/** Without a model Pi cannot answer: said once a process, in a session with a UI (model-setup.ts). */
function tellModelSetup(ctx: ExtensionContext, notify: (ctx: ExtensionContext, text: string) => void): void {
  const advice = ctx.hasUI ? modelSetupAdvice(modelSetupOf(ctx)) : undefined;
  if (advice !== undefined && firstTimeTold(advice)) notify(ctx, advice);
}

const QUEST_COMMAND = "quest";

/** `/quest`: its subcommands, run by the controller (opened now in print mode). */
function registerQuestCommand(
  pi: ExtensionAPI,
  { quests, bash, uiOf, recordLabels }: QuestCommandParts,
): void {
  pi.registerCommand(QUEST_COMMAND, {
    description: "Quests: list, start ID, check, hint, status, skip, debrief, reset, packs, pack ID",
    getArgumentCompletions: (prefix) => {
      const controller = quests.controller();
      return questCompletions(prefix, controller?.quests() ?? [], controller?.packChoices() ?? []);
    },
    handler: async (args, ctx) => {
      recordLabels(ctx);
      // `/quest status` says which protection applies, as it stands now.
      await bash.settle(ctx);
      const controller = await quests.commandController(ctx);
      if (!controller) {
        uiOf(ctx).say("pi-quests is not running in this session (see the earlier notification).");
        return;
      }
      await controller.command(args);
    },
  });
}

type QuestCommandParts = {
  quests: QuestHost;
  bash: WiredAgentBash;
  uiOf(ctx: ExtensionContext): QuestUi;
  recordLabels(ctx: ExtensionContext): void;
};

/**
 * A tool call's start (its arguments) and end (a nested call's result, a block), with the looks
 * around it while the active quest reads changedPaths. Pi awaits both handlers: the look before
 * a call is taken before the tool runs, and the one after it before its result message
 * (translator.ts). Without a look they return at once.
 */
function recordToolExecutions(
  pi: ExtensionAPI,
  translator: PiEventTranslator,
  record: (events: readonly PiEvent[]) => void,
  looks: CallLooks,
): void {
  // Every call, whatever the quest: what it wrote where Pi loads extensions (agent-code.ts).
  const codeLooks = createExtensionCodeLooks(processMemory().codeWrittenByTools);
  pi.on("tool_execution_start", (event, ctx) => {
    translator.toolExecutionStart(event);
    codeLooks.before(event.toolCallId, extensionFoldersOf(ctx, process.env));
    return looks.before(event.toolCallId, ctx.cwd);
  });
  pi.on("tool_execution_end", (event) => {
    const code = codeLooks.after(event.toolCallId);
    const ended = (changes?: ChangedPaths) => record(translator.toolExecutionEnd(event, changes, code));
    const changed = looks.after(event.toolCallId);
    return changed === undefined ? ended() : changed.then(ended, () => ended());
  });
}

/** Looks around each call, only while the active quest reads changedPaths (never in print mode). */
function changedPathsLooks(quests: QuestHost): CallLooks {
  return createCallLooks(() => {
    const controller = quests.controller();
    if (controller) return controller.readsChangedPaths();
    // A session still opening (Pi's start, a /reload): its active quest decides once it is open.
    const opening = quests.stillOpening();
    return opening ? opening.then(() => quests.controller()?.readsChangedPaths() ?? false) : false;
  });
}

/** The agent's tools are kept from pi-quests' records; the seals hold where this cannot see. */
function blockGuardedCall(
  event: ToolCallEvent,
  ctx: ExtensionContext,
  translator: PiEventTranslator,
  record: (event: PiEvent) => void,
): ToolCallEventResult | undefined {
  translator.toolCallSeen(event.toolCallId);
  const home = homedir();
  const decision = guardToolCall(event, {
    cwd: ctx.cwd,
    home,
    agentDir: agentDirFrom(process.env, ctx.cwd, home),
    realpath: realpathSync,
  });
  if (!decision.block) return undefined;
  record(translator.toolBlocked(event, decision.reason));
  // With a UI the controller tells the learner (HUD, notification); print mode says it on stderr.
  if (!ctx.hasUI) process.stderr.write(`pi-quests blocked the agent's ${event.toolName} call.\n`);
  return { block: true, reason: decision.reason };
}

/** What recording a `!` command needs. */
type Shell = {
  translator: PiEventTranslator;
  record: (events: PiEvent | readonly PiEvent[] | undefined) => void;
  looks: CallLooks;
  /** False once pi-quests could not start, or its session closed: the command then runs unwrapped. */
  running(): boolean;
  createLocalBashOperations: PiHost["modules"]["createLocalBashOperations"];
};

/** `!` commands: the label entries before each, and the command with its exit code while pi-quests runs. */
function recordUserBashes(pi: ExtensionAPI, shell: Shell): void {
  pi.on("user_bash", (event, ctx) => {
    shell.record(shell.translator.labels(ctx.sessionManager.getEntries()));
    return shell.running() ? recordExitCode(event, ctx.cwd, shell) : undefined;
  });
}

/** `!` commands: a new id for the looks around each, apart from Pi's tool call ids. */
let bashCommands = 0;

/**
 * Pi's user_bash event comes before the command runs: the local shell is wrapped to learn its
 * exit code, and, when the active quest reads changedPaths, to look at the workspace before and
 * after it (a cancelled command too: what it changed until then).
 */
function recordExitCode(event: UserBashEvent, workspace: string, shell: Shell): UserBashEventResult {
  const { translator, record, looks } = shell;
  const local = shell.createLocalBashOperations();
  return {
    operations: {
      async exec(command, cwd, options) {
        const id = `user_bash/${++bashCommands}`;
        // A look that fails for a bug of pi-quests' own must not keep the learner's command from running.
        await looks.before(id, workspace)?.catch(() => undefined);
        const changes = () => looks.after(id)?.catch(() => undefined);
        try {
          const result = await local.exec(command, cwd, options);
          record(translator.userBash(event, result.exitCode, await changes()));
          return result;
        } catch (error) {
          record(translator.userBash(event, null, await changes()));
          throw error;
        }
      },
    },
  };
}
