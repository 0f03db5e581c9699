/**
 * The one Pi-to-event translator: Pi's events and messages in, the events pi-quests records
 * out (their names and payloads are in names.ts). The extension feeds it Pi's live events; the
 * session-file reader feeds it the messages a saved session holds (session-replay.ts), so a
 * check sees the same events either way. It holds what a message alone does not say: the
 * arguments of each tool call until its result comes, and how many assistant messages the
 * session has. Pure: Pi's types only, no I/O.
 *
 * Event and payload                       Live, in the extension                   From a session file
 * session_start {sessionId, cwd}          session_start, once per session id       the header line (id, cwd)
 * input {text}                            message_end of a user message            a user message
 * tool_result {toolName, toolCallId,      message_end of a toolResult message,     a toolResult message, input
 *   isError, input}                         input from the assistant's tool call     from its tool call
 * tool_blocked {toolName, input, reason}  tool_call that pi-quests' guard blocked  (never in a file)
 * turn_end {assistantTurns, turnIndex?}   turn_end                                 after an assistant message
 *                                                                                    and its tool results
 * agent_end {assistantTurns}              agent_end                                after a turn that ends the run
 * user_bash {command, exitCode,           user_bash, plus the exit code of the     a bashExecution message
 *   excludeFromContext}                     command it wraps
 *
 * Why these live sources, and what a session file cannot tell:
 * - `input` and `tool_result` are recorded from `message_end`, which sees exactly the messages the
 *   file stores. Pi's own `input` event has the raw text, before `/skill:` and prompt templates
 *   expand; Pi's `tool_result` event skips calls that never ran (blocked, unknown tool) and comes
 *   in completion order when tools run in parallel, while the file keeps the assistant's order.
 * - `assistantTurns` counts the assistant messages in the session so far, this one included (all
 *   branches, in file order). Live, the count starts from the session's entries at
 *   `session_start` (a resumed session has some) and goes up with each assistant `message_end`:
 *   Pi stores every assistant message it ends, and no other.
 * - `turnIndex` is Pi's index of the turn within one agent run; it restarts with every run (each
 *   prompt, each retry), which the file does not mark, so the session replay leaves it out.
 *   Checks should use `assistantTurns`.
 * - `agent_end` from a file is a reading: a run that continues without a tool call (a steering or
 *   follow-up message, an extension's `continue`) gets an extra `agent_end`; a run stopped by a
 *   terminating tool result gets none.
 * - `user_bash` exit code: Pi's `user_bash` event comes before the command runs, so the
 *   extension gets the code by wrapping the bash operations. Pi stores a `!` command as a
 *   bashExecution message without a `message_end`; one typed while the agent runs is stored
 *   after the run, and a session file places it there. `exitCode` is null when the command was
 *   cancelled.
 */
import type { AssistantMessage, ToolCall, ToolResultMessage, UserMessage } from "@earendil-works/pi-ai";
import type {
  MessageEndEvent,
  SessionEntry,
  ToolCallEvent,
  TurnEndEvent,
  UserBashEvent,
} from "@earendil-works/pi-coding-agent";
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
} from "./names.ts";

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
};
export type ToolResultMessageRead = Pick<ToolResultMessage, "role" | "toolCallId" | "toolName" | "isError">;
export type BashExecutionRead = Pick<BashExecutionMessage, "command" | "exitCode" | "excludeFromContext">;
/** Any message Pi ends; the other roles (system, custom, summaries, ...) record nothing. */
export type MessageRead =
  | UserMessageRead
  | AssistantMessageRead
  | ToolResultMessageRead
  | Exclude<AgentMessage, { role: "user" | "assistant" | "toolResult" }>;

export type PiEventTranslator = {
  /** A session begins; `entries` are the ones it already has (a resumed or forked session). */
  sessionStart(session: { sessionId: string; cwd: string; entries?: readonly SessionEntry[] }): PiEvent;
  /** A message ended: a user's input, an assistant's tool calls (kept), a tool's result. */
  messageEnd(message: MessageRead): PiEvent | undefined;
  /** `turnIndex` only live: a session file does not say where a run begins. */
  turnEnd(turn: Partial<Pick<TurnEndEvent, "turnIndex">>): PiEvent;
  agentEnd(): PiEvent;
  /** A tool call pi-quests' guard kept from running. */
  toolBlocked(call: Pick<ToolCallEvent, "toolName" | "input">, reason: string): PiEvent;
  /** A `!` command ran live (`exitCode` null: it was cancelled or failed to start). */
  userBash(bash: Pick<UserBashEvent, "command" | "excludeFromContext">, exitCode: number | null): PiEvent;
  /** A `!` command as a session file stores it. */
  bashExecution(message: BashExecutionRead): PiEvent;
};

export function createPiEventTranslator(): PiEventTranslator {
  // A tool result names its call; the call's arguments come with the assistant message before it.
  const toolInputs = new Map<string, Record<string, unknown>>();
  let assistantTurns = 0;

  return {
    sessionStart({ sessionId, cwd, entries = [] }) {
      assistantTurns = entries.filter(
        (entry) => entry.type === "message" && entry.message.role === "assistant",
      ).length;
      return sessionStartEvent({ sessionId, cwd });
    },
    messageEnd(message) {
      switch (message.role) {
        case "user":
          return inputEvent(message.content);
        case "assistant":
          assistantTurns++;
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
          return toolResultEvent({ toolName, toolCallId, isError, input });
        }
        default:
          return undefined;
      }
    },
    turnEnd: ({ turnIndex }) => turnEndEvent({ assistantTurns, turnIndex }),
    agentEnd: () => agentEndEvent({ assistantTurns }),
    toolBlocked: ({ toolName, input }, reason) => toolBlockedEvent({ toolName, input, reason }),
    userBash: ({ command, excludeFromContext }, exitCode) =>
      userBashEvent({ command, exitCode, excludeFromContext }),
    bashExecution: ({ command, exitCode, excludeFromContext }) =>
      userBashEvent({ command, exitCode, excludeFromContext }),
  };
}
