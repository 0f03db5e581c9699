/**
 * The events pi-quests records: one row a name, with the function that makes its payload from
 * what its source knows. The translator (translator.ts) fills them from Pi, live or from a
 * session file; the quest controller records the lifecycle ones. Adding an event starts with a
 * row here. No schema library and nothing of Pi at run time: print mode records through this
 * and must start fast.
 */
import type { VerifierEvent } from "./schema.ts";

/** A recorded event before it gets its session id and sequence number. */
export type PiEvent = Pick<VerifierEvent, "name" | "payload">;

type Payload = Record<string, unknown>;

/**
 * A message's content as Pi stores it: a string, or blocks of which the text ones count. Wider
 * than Pi's own type, so a session file's blocks of kinds this Pi does not know still fit.
 */
export type MessageContent = string | readonly { type: string; text?: unknown }[];

/**
 * What `quest_activated` pins: `baseline` is HEAD at activation (what "commits since the quest
 * started" count from; null outside git), `oracleBaseline` the sandbox template's own commit,
 * where a sandbox quest's tests and other protected files come from (absent without a sandbox:
 * the oracle is then `baseline`).
 */
export type QuestActivation = { quest: string; baseline: string | null; oracleBaseline?: string };

const PAYLOADS = {
  session_start: (session: { sessionId: string; cwd: string }) => ({
    sessionId: session.sessionId,
    cwd: session.cwd,
  }),
  input: (content: MessageContent) => ({ text: messageText(content) }),
  tool_result: (result: {
    toolName: string;
    toolCallId: string;
    isError: boolean;
    /** The tool call's arguments; `{}` when the call is not known. */
    input: Record<string, unknown>;
  }) => {
    const { toolName, toolCallId, isError, input } = result;
    return { toolName, toolCallId, isError, input };
  },
  /** A tool call that never ran because pi-quests' guard blocked it (src/extension/record-guard.ts). */
  tool_blocked: (call: { toolName: string; input: Record<string, unknown>; reason: string }) => {
    const { toolName, input, reason } = call;
    return { toolName, input, reason };
  },
  turn_end: (turn: { assistantTurns: number; turnIndex?: number }) => {
    const payload: Payload = { assistantTurns: turn.assistantTurns };
    if (turn.turnIndex !== undefined) payload.turnIndex = turn.turnIndex;
    return payload;
  },
  /** `assistantTurns` here too, so `min_assistant_turns` can ask how long a whole run was. */
  agent_end: (run: { assistantTurns: number }) => ({ assistantTurns: run.assistantTurns }),
  user_bash: (bash: { command: string; exitCode?: number | null; excludeFromContext?: boolean }) => ({
    command: bash.command,
    // JSON has no undefined: a cancelled command (no exit code) records null.
    exitCode: bash.exitCode ?? null,
    excludeFromContext: bash.excludeFromContext ?? false,
  }),
  quest_activated: (activation: QuestActivation) => ({
    quest: activation.quest,
    baseline: activation.baseline,
    ...(activation.oracleBaseline !== undefined ? { oracleBaseline: activation.oracleBaseline } : {}),
  }),
  /** What `after: quest-id` looks for. */
  quest_completed: (completion: { quest: string }) => ({ quest: completion.quest }),
} satisfies Record<string, (source: never) => Payload>;

export type RecordedEventName = keyof typeof PAYLOADS;
/** What an event's payload is made from. */
export type EventSource<N extends RecordedEventName> = Parameters<(typeof PAYLOADS)[N]>[0];

// The same table, typed so that one generic call can look a row up by its name.
const PAYLOAD_OF: { [N in RecordedEventName]: (source: EventSource<N>) => Payload } = PAYLOADS;

export function recordedEvent<N extends RecordedEventName>(name: N, source: EventSource<N>): PiEvent {
  const payload: (source: EventSource<N>) => Payload = PAYLOAD_OF[name];
  return { name, payload: payload(source) };
}

const builder =
  <N extends RecordedEventName>(name: N) =>
  (source: EventSource<N>): PiEvent =>
    recordedEvent(name, source);

export const sessionStartEvent = builder("session_start");
export const inputEvent = builder("input");
export const toolResultEvent = builder("tool_result");
export const toolBlockedEvent = builder("tool_blocked");
export const turnEndEvent = builder("turn_end");
export const agentEndEvent = builder("agent_end");
export const userBashEvent = builder("user_bash");
export const questActivatedEvent = builder("quest_activated");
export const questCompletedEvent = builder("quest_completed");

/** The names code refers to; the type keeps each one a row of the table. */
export const PI_EVENTS = {
  sessionStart: "session_start",
  input: "input",
  toolResult: "tool_result",
  toolBlocked: "tool_blocked",
  turnEnd: "turn_end",
  agentEnd: "agent_end",
  userBash: "user_bash",
} as const satisfies Record<string, RecordedEventName>;
export const QUEST_ACTIVATED_EVENT = "quest_activated" satisfies RecordedEventName;
export const QUEST_COMPLETED_EVENT = "quest_completed" satisfies RecordedEventName;

/** Kept when the log drops its oldest events, since `after: quest-id` needs them. */
export const LIFECYCLE_EVENTS: ReadonlySet<string> = new Set([QUEST_ACTIVATED_EVENT, QUEST_COMPLETED_EVENT]);

/** The text of a message: a string as is, or its text blocks joined by new lines (images left out). */
export function messageText(content: MessageContent): string {
  if (typeof content === "string") return content;
  return content
    .flatMap((block) => (block.type === "text" && typeof block.text === "string" ? [block.text] : []))
    .join("\n");
}
