/**
 * The Pi events pi-quests records, built by the same functions whether they come from Pi's live
 * extension events (the extension) or from a saved session file (src/cli/session-file.ts), so a check
 * sees the same names and payloads either way. Pure: no Pi import, no I/O.
 *
 * Event and payload                       Live, in the extension                   From a session file
 * session_start {sessionId, cwd}          session_start, once per session id       the header line (id, cwd)
 * input {text}                            message_end of a user message            a user message
 * tool_result {toolName, toolCallId,      message_end of a toolResult message,     a toolResult message, input
 *   isError, input}                         input from the assistant's tool call     from its tool call
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
 *   branches, in file order); live, count them in the session's entries at `turn_end`.
 * - `turnIndex` is Pi's index of the turn within one agent run; it restarts with every run (each
 *   prompt, each retry), which the file does not mark, so the session parser leaves it out.
 *   Checks should use `assistantTurns`.
 * - `agent_end` from a file is a reading: a run that continues without a tool call (a steering or
 *   follow-up message, an extension's `continue`) gets an extra `agent_end`; a run stopped by a
 *   terminating tool result gets none.
 * - `user_bash` exit code: Pi's `user_bash` event comes before the command runs, so the
 *   extension gets the code by wrapping the bash operations. A `!` command typed while the agent
 *   runs is stored after the run, and a session file places it there. `exitCode` is null when
 *   the command was cancelled.
 */
import type { VerifierEvent } from "./schema.ts";

/** A recorded event before it gets its session id and sequence number. */
export type PiEvent = Pick<VerifierEvent, "name" | "payload">;

export const PI_EVENTS = {
  sessionStart: "session_start",
  input: "input",
  toolResult: "tool_result",
  toolBlocked: "tool_blocked",
  turnEnd: "turn_end",
  agentEnd: "agent_end",
  userBash: "user_bash",
} as const;

/** A message's content as Pi stores it: a string, or blocks of which the text ones count. */
export type MessageContent = string | readonly { type: string; text?: unknown }[];

export function sessionStartEvent(session: { sessionId: string; cwd: string }): PiEvent {
  return { name: PI_EVENTS.sessionStart, payload: { sessionId: session.sessionId, cwd: session.cwd } };
}

export function inputEvent(content: MessageContent): PiEvent {
  return { name: PI_EVENTS.input, payload: { text: messageText(content) } };
}

export function toolResultEvent(result: {
  toolName: string;
  toolCallId: string;
  isError: boolean;
  /** The tool call's arguments; `{}` when the call is not known. */
  input: Record<string, unknown>;
}): PiEvent {
  const { toolName, toolCallId, isError, input } = result;
  return { name: PI_EVENTS.toolResult, payload: { toolName, toolCallId, isError, input } };
}

/** A tool call that never ran because pi-quests' guard blocked it (src/extension/record-guard.ts). */
export function toolBlockedEvent(call: {
  toolName: string;
  input: Record<string, unknown>;
  reason: string;
}): PiEvent {
  const { toolName, input, reason } = call;
  return { name: PI_EVENTS.toolBlocked, payload: { toolName, input, reason } };
}

export function turnEndEvent(turn: { assistantTurns: number; turnIndex?: number }): PiEvent {
  const payload: Record<string, unknown> = { assistantTurns: turn.assistantTurns };
  if (turn.turnIndex !== undefined) payload.turnIndex = turn.turnIndex;
  return { name: PI_EVENTS.turnEnd, payload };
}

/** `assistantTurns` here too, so `min_assistant_turns` can ask how long a whole run was. */
export function agentEndEvent(run: { assistantTurns: number }): PiEvent {
  return { name: PI_EVENTS.agentEnd, payload: { assistantTurns: run.assistantTurns } };
}

export function userBashEvent(bash: {
  command: string;
  exitCode?: number | null;
  excludeFromContext?: boolean;
}): PiEvent {
  return {
    name: PI_EVENTS.userBash,
    payload: {
      command: bash.command,
      // JSON has no undefined: a cancelled command (no exit code) records null.
      exitCode: bash.exitCode ?? null,
      excludeFromContext: bash.excludeFromContext ?? false,
    },
  };
}

/** The text of a message: a string as is, or its text blocks joined by new lines (images left out). */
export function messageText(content: MessageContent): string {
  if (typeof content === "string") return content;
  return content
    .flatMap((block) => (block.type === "text" && typeof block.text === "string" ? [block.text] : []))
    .join("\n");
}
