/**
 * The one Pi-to-event translator: Pi's events and messages in, the events pi-quests records
 * out (their names and payloads are in names.ts). The extension feeds it Pi's live events; the
 * session-file reader feeds it the entries a saved session holds (session-replay.ts), so a
 * check sees the same events either way. It holds what one event alone does not say: the
 * arguments of each tool call until its result comes, how many assistant messages the session
 * has, the inputs waiting for their message, the last model, and how many entries it has seen
 * (labels have no Pi event). Pure: Pi's types only, no I/O.
 *
 * Event             Live, in the extension                  From a session file
 * session_start     session_start (+ the header's parent)    the header line
 * input             input, joined to its user message_end    a user message
 * tool_result       message_end of a toolResult message;     a toolResult message; its
 *                     tool_execution_end of a nested call      nestedCalls records
 *                     (changedPaths: the looks at the call's   (no changedPaths, no
 *                     tool_execution_start and _end; the same  extensionFilesChanged)
 *                     for extensionFilesChanged)
 * tool_blocked      tool_execution_end of a call that never   (never in a file)
 *                     ran because an extension blocked it
 * turn_end          turn_end                                 after an assistant message and
 *                                                              its tool results
 * agent_end         agent_settled                            after a turn that ends the run
 * user_bash         user_bash + the exit code of its command  a bashExecution message
 *                     (changedPaths: looks around the command) (no changedPaths)
 * model_select      model_select (origin: who asked, read    a model_change entry
 *                     from the stack: act-origin.ts)
 * thinking_level_   thinking_level_select (origin, the same)  a thinking_level_change entry
 *   select
 * session_compact   session_compact (instructions from         a compaction entry
 *                     session_before_compact)
 * session_tree      session_tree                             a branch_summary entry
 * session_name      session_info_changed (origin, the same)   a session_info entry
 * label             a new label entry among the session's     a label entry
 *                     entries (`labels`, called often)
 * context_loaded    before_agent_start                       (never in a file)
 *
 * Why these live sources, and what a session file cannot tell:
 * - `input` and `tool_result` are recorded from `message_end`, which sees exactly the messages the
 *   file stores. Pi's own `input` event comes first and has what only a live session knows: the
 *   raw text (before `/skill:` and prompt templates expand), where it came from, and whether it
 *   steered a running turn or was queued as a follow-up. It waits until its message ends: a
 *   steer or follow-up is delivered later, and follow-ups after steers.
 * - A nested tool call (a tool calling `ctx.executeTool`) has no message of its own: live it comes
 *   from `tool_execution_start`/`_end` with `parentToolCallId`; the file records it on the calling
 *   tool's result (`nestedCalls`, ids `<caller>/<n>`), without arguments past Pi's size limit
 *   and without an outcome for a call that never finished: those fields are then absent.
 * - `tool_blocked`: Pi stops at the first extension that blocks a call, so pi-quests may never see
 *   the `tool_call`. A call that ended with an error, took no time (no `durationMs`) and was not
 *   one of Pi's own refusals (aborted, unknown tool, invalid arguments) was blocked; its reason is
 *   the result's text. pi-quests' own guard records its blocks at once. How a Pi newer than
 *   tested, whose refusal texts may differ, is read: blocks.ts.
 * - `assistantTurns` counts the assistant messages in the session so far, this one included (all
 *   branches, in file order), but those that failed (`stopReason: "error"`: no provider, no key,
 *   the API refused): Pi stores such a reply, with the error, yet the model answered nothing, and
 *   "Pi answered" must not pass on it. Live, the count starts from the session's entries at
 *   `session_start` (a resumed session has some) and goes up with each assistant `message_end`:
 *   Pi stores every assistant message it ends, and no other.
 * - `turnIndex` is Pi's index of the turn within one agent run; it restarts with every run (each
 *   prompt, each retry), which the file does not mark, so the session replay leaves it out.
 *   Checks should use `assistantTurns`.
 * - `agent_end` live is Pi's `agent_settled`: once a run is over, retries and queued messages
 *   included, with `aborted`. From a file it is a reading: a run that continues without a tool
 *   call (a steering or follow-up message, an extension's `continue`) gets an extra `agent_end`;
 *   a run stopped by a terminating tool result gets none.
 * - `changedPaths` (live only): the extension looks at the workspace when a call starts
 *   (`tool_execution_start`, which Pi awaits before the tool runs) and when it ends
 *   (`tool_execution_end`, awaited too, also for a call that was aborted or timed out), and hands
 *   the difference to `toolExecutionEnd`. Pi emits every call's `tool_execution_end` before the
 *   `message_end` of its result message (calls of one message run in parallel: all their ends
 *   come first, then their results in order), so the difference waits here, by call id, for
 *   its result; a nested call has no message and carries it at once. A `!` command's difference
 *   comes with its exit code (`userBash`).
 * - `user_bash` exit code: Pi's `user_bash` event comes before the command runs, so the
 *   extension gets the code by wrapping the bash operations. Pi stores a `!` command as a
 *   bashExecution message without a `message_end`; one typed while the agent runs is stored
 *   after the run, and a session file places it there. `exitCode` is null when the command was
 *   cancelled.
 * - A model switch that changes the thinking level makes Pi announce the level first; the file
 *   has the model first. The translator holds such a level until the model's event, so both
 *   read model, then level.
 * - Labels: Pi appends label entries without an event. The extension hands the session's entries
 *   to `labels` at each turn end, after `/tree`, before `/quest` and with every other event; the
 *   entries past the ones already seen that are labels are recorded.
 */
import type { AssistantMessage, ToolCall, ToolResultMessage, UserMessage } from "@earendil-works/pi-ai";
import type {
  InputEvent,
  MessageEndEvent,
  SessionEntry,
  SessionStartEvent,
  ToolCallEvent,
  ToolExecutionEndEvent,
  ToolExecutionStartEvent,
  TurnEndEvent,
  UserBashEvent,
} from "@earendil-works/pi-coding-agent";
import { createBlockReader, type TranslatorOptions } from "./blocks.ts";
import {
  type ActOrigin,
  agentEndEvent,
  type ChangedPaths,
  contextLoadedEvent,
  inputEvent,
  labelEvent,
  type MessageContent,
  messageText,
  modelSelectEvent,
  type PiEvent,
  sessionCompactEvent,
  sessionNameEvent,
  sessionStartEvent,
  sessionTreeEvent,
  thinkingLevelSelectEvent,
  toolBlockedEvent,
  toolResultEvent,
  turnEndEvent,
  userBashEvent,
} from "./names.ts";
import { createEntryCursor, createInputQueue, createModelOrder } from "./pending-state.ts";

export type { TranslatorOptions } from "./blocks.ts";

type AgentMessage = MessageEndEvent["message"];
type BashExecutionMessage = Extract<AgentMessage, { role: "bashExecution" }>;

// What the translator reads of Pi's messages. Pi's own messages fit these as they are; the
// session-file reader builds them from the lines it checked.

/** A user message; its content may hold blocks of kinds this Pi does not know. */
export type UserMessageRead = Pick<UserMessage, "role"> & { content: MessageContent };
/** A tool call, with arguments that are any JSON object. */
export type ToolCallRead = Pick<ToolCall, "type" | "id"> & { arguments: Record<string, unknown> };
type OtherAssistantBlock = { type: Exclude<AssistantMessage["content"][number]["type"], "toolCall"> };
/** An assistant message: only its tool calls matter here. */
export type AssistantMessageRead = Pick<AssistantMessage, "role"> & {
  content: readonly (ToolCallRead | OtherAssistantBlock)[];
  /** Why the reply ended; `error`: it failed (no provider, no key, the API refused) and answers nothing. */
  stopReason?: string;
};
export type ToolResultMessageRead = Pick<ToolResultMessage, "role" | "toolCallId" | "toolName" | "isError">;
export type BashExecutionRead = Pick<BashExecutionMessage, "command" | "exitCode" | "excludeFromContext">;
/** Any message Pi ends; the other roles (system, custom, summaries, ...) record nothing. */
export type MessageRead =
  | UserMessageRead
  | AssistantMessageRead
  | ToolResultMessageRead
  | Exclude<AgentMessage, { role: "user" | "assistant" | "toolResult" }>;

/** A nested call as a session file records it on the calling tool's result. */
export type NestedCallRead = {
  id: string;
  name: string;
  /** Absent when Pi left them out for their size. */
  arguments?: Record<string, unknown>;
  status: "ok" | "error" | "unfinished";
};
/** What one call changed, as its `tool_result` carries it. */
type CallChanges = { changes?: ChangedPaths; extensionFiles?: readonly string[] };
/** A model as Pi names it. */
export type ModelRead = { provider: string; id: string };
/** The entries of a session, as `ctx.sessionManager.getEntries()` gives them. */
type EntriesRead = readonly Pick<SessionEntry, "type">[];
type LabelEntryRead = { type: "label"; targetId: string; label?: string | undefined };

export type PiEventTranslator = {
  /** A session begins; `entries` are the ones it already has (a resumed or forked session). */
  sessionStart(session: {
    sessionId: string;
    cwd: string;
    reason?: SessionStartEvent["reason"];
    parentSession?: string;
    entries?: EntriesRead;
    model?: ModelRead;
  }): PiEvent;
  /** Pi took an input: it is recorded with the user message it becomes. */
  input(input: Pick<InputEvent, "text" | "source" | "streamingBehavior">): void;
  /** A message ended: a user's input, an assistant's tool calls (kept), a tool's result. */
  messageEnd(message: MessageRead): PiEvent | undefined;
  /** A tool call starts running: its arguments, for a nested call's result or a block. */
  toolExecutionStart(event: Pick<ToolExecutionStartEvent, "toolCallId" | "args">): void;
  /**
   * A tool call ended: a nested call's result, or a call an extension blocked. What the call
   * changed, for its `tool_result` (live, when the extension looked): `changes` in the workspace,
   * `extensionFiles` among the code files of Pi's extension folders.
   */
  toolExecutionEnd(
    event: Pick<
      ToolExecutionEndEvent,
      "toolCallId" | "toolName" | "isError" | "durationMs" | "parentToolCallId"
    > & {
      result?: unknown;
    },
    changes?: ChangedPaths,
    extensionFiles?: readonly string[],
  ): PiEvent[];
  /** A nested call as a session file records it. */
  nestedCall(call: NestedCallRead): PiEvent;
  /** `turnIndex` only live: a session file does not say where a run begins. */
  turnEnd(turn: Partial<Pick<TurnEndEvent, "turnIndex">>): PiEvent;
  /** A run is over; `aborted` only live. */
  agentEnd(run?: { aborted?: boolean }): PiEvent;
  /** pi-quests' own `tool_call` handler saw the call: Pi did not refuse it before the extensions'. */
  toolCallSeen(toolCallId: string): void;
  /** A tool call pi-quests' guard kept from running. */
  toolBlocked(
    call: Pick<ToolCallEvent, "toolName" | "input"> & { toolCallId?: string },
    reason: string,
  ): PiEvent;
  /**
   * A `!` command ran live (`exitCode` null: it was cancelled or failed to start); `changes`:
   * what it changed in the workspace, when the extension looked.
   */
  userBash(
    bash: Pick<UserBashEvent, "command" | "excludeFromContext">,
    exitCode: number | null,
    changes?: ChangedPaths,
  ): PiEvent;
  /** A `!` command as a session file stores it. */
  bashExecution(message: BashExecutionRead): PiEvent;
  /**
   * The model changed; a thinking level held for it comes right after. `source` and `origin`
   * (who asked for it) only live.
   */
  modelSelect(model: ModelRead & { source?: "set" | "cycle"; origin?: ActOrigin }): PiEvent[];
  /**
   * The thinking level changed. Live, `currentModel` is Pi's model now: when it is not the last
   * one recorded, a model switch caused this, and the level waits for the model's event; `origin`
   * is who asked for the change.
   */
  thinkingLevelSelect(level: string, currentModel?: ModelRead, origin?: ActOrigin): PiEvent | undefined;
  /**
   * A compaction is about to be made, with these instructions for its summary (live): the next
   * `sessionCompact` carries them. Nothing is recorded for it.
   */
  compactionStarts(compaction: { customInstructions?: string }): void;
  /** A compaction did not happen after all: the instructions it was given are forgotten. */
  compactionFailed(): void;
  sessionCompact(compaction: { summary: string; reason?: "manual" | "threshold" | "overflow" }): PiEvent;
  /** A `/tree` navigation, with the branch summary when one was made. */
  sessionTree(navigation: { summary?: string }): PiEvent;
  /** The session's name changed; `origin` (who asked for it) only live. */
  sessionName(name: string | undefined, origin?: ActOrigin): PiEvent;
  /** Live: the label entries among `entries` past the ones seen before. */
  labels(entries: EntriesRead): PiEvent[];
  /** A label entry as a session file stores it. */
  label(entry: LabelEntryRead): PiEvent;
  /** What a run's system prompt was built with: only the paths and the skill names. */
  contextLoaded(options: {
    contextFiles: readonly { path: string }[];
    skills: readonly { name: string }[];
  }): PiEvent;
};

export function createPiEventTranslator(options: TranslatorOptions = {}): PiEventTranslator {
  // A tool result names its call; the call's arguments come with the assistant message before it.
  const toolInputs = new Map<string, Record<string, unknown>>();
  // What `tool_execution_start` said, until the call's end.
  const executionArgs = new Map<string, Record<string, unknown>>();
  // What a model's call changed, from its `tool_execution_end` until its result message.
  const changesOf = new Map<string, CallChanges>();
  const blocks = createBlockReader(options);
  const inputs = createInputQueue();
  const models = createModelOrder();
  const entries = createEntryCursor();
  let assistantTurns = 0;
  const compaction = createCompactionInstructions();

  return {
    sessionStart({ entries: had = [], model, ...session }) {
      assistantTurns = assistantMessagesIn(had);
      entries.start(had.length);
      models.start(model);
      return sessionStartEvent({
        ...session,
        ...(resumedOf(session.reason, had) ? { resumed: true as const } : {}),
      });
    },
    input({ text, source, streamingBehavior }) {
      inputs.push({ rawText: text, source, streamingBehavior });
    },
    messageEnd(message) {
      switch (message.role) {
        case "user": {
          const pending = inputs.take(messageText(message.content));
          return inputEvent({ content: message.content, ...pending });
        }
        case "assistant":
          if (answered(message)) assistantTurns++;
          // Another extension's message_end handler may hand on a message without content:
          // Pi fills it in only after every handler has run.
          for (const block of message.content ?? []) {
            if (block.type === "toolCall") toolInputs.set(block.id, block.arguments);
          }
          return undefined;
        case "toolResult": {
          const { toolName, toolCallId, isError } = message;
          const input = toolInputs.get(toolCallId) ?? {};
          toolInputs.delete(toolCallId);
          const changed = changesOf.get(toolCallId);
          changesOf.delete(toolCallId);
          return toolResultEvent({ toolName, toolCallId, isError, input, ...changed });
        }
        default:
          return undefined;
      }
    },
    toolExecutionStart({ toolCallId, args }) {
      // As the session file keeps a nested call's arguments: through JSON.
      executionArgs.set(toolCallId, JSON.parse(JSON.stringify(args ?? {})));
    },
    toolExecutionEnd(
      { toolCallId, toolName, isError, durationMs, parentToolCallId, result },
      changes,
      extensionFiles,
    ) {
      const input = executionArgs.get(toolCallId) ?? {};
      executionArgs.delete(toolCallId);
      const events: PiEvent[] = [];
      const reason = blocks.ended(toolCallId, {
        isError,
        ...(durationMs !== undefined ? { durationMs } : {}),
        result,
      });
      if (reason !== undefined) events.push(toolBlockedEvent({ toolName, input, reason }));
      const changed: CallChanges = {
        ...(changes !== undefined ? { changes } : {}),
        ...(extensionFiles?.length ? { extensionFiles } : {}),
      };
      if (parentToolCallId !== undefined) {
        events.push(toolResultEvent({ toolName, toolCallId, isError, input, parentToolCallId, ...changed }));
      } else if (Object.keys(changed).length > 0) {
        changesOf.set(toolCallId, changed);
      }
      return events;
    },
    nestedCall: nestedCallResult,
    turnEnd: ({ turnIndex }) => turnEndEvent({ assistantTurns, turnIndex }),
    agentEnd({ aborted } = {}) {
      inputs.clear();
      return agentEndEvent({ assistantTurns, aborted });
    },
    toolCallSeen: blocks.seen,
    toolBlocked({ toolName, input, toolCallId }, reason) {
      if (toolCallId !== undefined) blocks.guarded(toolCallId);
      return toolBlockedEvent({ toolName, input, reason });
    },
    userBash: ({ command, excludeFromContext }, exitCode, changes) =>
      userBashEvent({ command, exitCode, excludeFromContext, changes }),
    bashExecution: ({ command, exitCode, excludeFromContext }) =>
      userBashEvent({ command, exitCode, excludeFromContext }),
    modelSelect: ({ provider, id, source, origin }) =>
      models.modelSelected({ provider, id }, modelSelectEvent({ provider, modelId: id, source, origin })),
    thinkingLevelSelect: (level, currentModel, origin) =>
      models.thinkingSelected(thinkingLevelSelectEvent({ level, origin }), currentModel),
    compactionStarts: ({ customInstructions }) => compaction.start(customInstructions),
    compactionFailed: () => {
      compaction.take();
    },
    sessionCompact: ({ summary, reason }) => sessionCompactEvent({ summary, reason, ...compaction.take() }),
    sessionTree: ({ summary }) => sessionTreeEvent({ summary }),
    sessionName: (name, origin) => sessionNameEvent({ name, origin }),
    labels: (now) =>
      entries
        .fresh(now)
        .flatMap((entry) => (entry.type === "label" ? [labelEventOf(entry as LabelEntryRead)] : [])),
    label: labelEventOf,
    contextLoaded: ({ contextFiles, skills }) =>
      contextLoadedEvent({
        contextFiles: contextFiles.map((file) => file.path),
        skills: skills.map((skill) => skill.name),
      }),
  };
}

/** How many assistant messages a session already holds (a resumed or forked one). */
function assistantMessagesIn(had: EntriesRead): number {
  return had.filter((entry) => {
    if (entry.type !== "message") return false;
    const message = (entry as { message?: { role?: string; stopReason?: string } }).message;
    return message?.role === "assistant" && answered(message);
  }).length;
}

/** Whether an assistant message is a reply of the model's: not one that failed before it answered. */
function answered(message: { stopReason?: string }): boolean {
  return message.stopReason !== "error";
}

/** A nested call as a session file records it, as the tool_result it was. */
function nestedCallResult({ id, name, arguments: input, status }: NestedCallRead): PiEvent {
  return toolResultEvent({
    toolName: name,
    toolCallId: id,
    isError: status === "unfinished" ? undefined : status === "error",
    input,
    // Pi names a nested call `<caller>/<n>`; an id without a caller names none.
    parentToolCallId: id.includes("/") ? id.slice(0, id.lastIndexOf("/")) : undefined,
  });
}

/** A saved session opened again: `/resume`, or a start with messages already (Pi says `startup` for `pi --continue`). */
function resumedOf(reason: SessionStartEvent["reason"] | undefined, had: EntriesRead): boolean {
  return reason === "resume" || (reason === "startup" && had.some((entry) => entry.type === "message"));
}

function labelEventOf({ targetId, label }: LabelEntryRead): PiEvent {
  return labelEvent({ label, entryId: targetId });
}

/** What `session_before_compact` said the summary should keep, until its compaction ends or fails. */
function createCompactionInstructions() {
  let pending: string | undefined;
  return {
    start(instructions: string | undefined): void {
      pending = instructions?.trim() ? instructions : undefined;
    },
    /** The instructions, once: the next compaction has its own. */
    take(): { instructions?: string } {
      const instructions = pending;
      pending = undefined;
      return instructions === undefined ? {} : { instructions };
    },
  };
}
