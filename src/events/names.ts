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

/**
 * The workspace paths one tool call or `!` command created, deleted or changed, as the look
 * before it and the look after it saw them (src/receipts/changed-paths.ts): relative,
 * `/`-separated, sorted, at most MAX_CHANGED_PATHS (bounds.ts) of them; `truncated` when there
 * were more. Live only, and only while the active quest has a check that reads it.
 */
export type ChangedPaths = { paths: readonly string[]; truncated: boolean };

/**
 * The payload field that lists them; `changedPathsTruncated` goes with it. A check that reads a
 * field starting with this name makes the extension look (verifier/checks/event.ts).
 */
export const CHANGED_PATHS_FIELD = "changedPaths";

/** The tool_result field that lists the extension code files a call changed (live only). */
export const EXTENSION_FILES_FIELD = "extensionFilesChanged";

/** `changedPaths`, and `changedPathsTruncated: true` only when the list was cut; nothing without a look. */
const changedPathsFields = (changes: ChangedPaths | undefined): Payload =>
  changes === undefined
    ? {}
    : { changedPaths: [...changes.paths], ...(changes.truncated ? { changedPathsTruncated: true } : {}) };

/** Whatever Pi does not say is left out of a payload, never guessed (JSON has no undefined). */
const present = (fields: Payload): Payload =>
  Object.fromEntries(Object.entries(fields).filter(([, value]) => value !== undefined));

/**
 * Who made Pi change its model, its thinking level or the session's name, which only a live
 * session knows: the learner through Pi's own interface (the terminal UI, an RPC client), an
 * extension through Pi's API (`pi.setModel`, `pi.setThinkingLevel`, `pi.setSessionName`), or
 * "unknown" when pi-quests could not read it
 * (src/extension/act-origin.ts says how it is read, and when it cannot be).
 */
export type ActOrigin = "learner" | "extension" | "unknown";

/** How an input reached Pi, which only a live session knows. */
export type InputDetails = {
  /** The text as typed: `/skill:` and prompt templates not yet expanded. */
  rawText?: string;
  source?: "interactive" | "rpc" | "extension";
  /** Absent when Pi was idle. */
  streamingBehavior?: "steer" | "followUp";
};

const PAYLOADS = {
  /**
   * `reason` only live: a file cannot tell a fork from a clone. `resumed` (live only, present when
   * true): a saved session was opened again, with `/resume` or from the shell (`pi --continue`,
   * `pi --resume`, `pi --session`), which Pi reports as a start.
   */
  session_start: (session: {
    sessionId: string;
    cwd: string;
    reason?: "startup" | "new" | "resume" | "fork" | "reload";
    parentSession?: string;
    resumed?: true;
  }) => present({ ...session }),
  input: (input: { content: MessageContent } & InputDetails) =>
    present({
      text: messageText(input.content),
      rawText: input.rawText,
      source: input.source,
      streamingBehavior: input.streamingBehavior,
    }),
  tool_result: (result: {
    toolName: string;
    toolCallId: string;
    /** Absent only for a nested call that a session file says never finished. */
    isError?: boolean;
    /** The tool call's arguments; `{}` when the call is not known, absent when a file left them out. */
    input?: Record<string, unknown>;
    /** Set for a call another tool made (`ctx.executeTool`). */
    parentToolCallId?: string;
    /** What the call changed in the workspace (live only, when a look was taken). */
    changes?: ChangedPaths;
    /**
     * The code files of the folders Pi loads extensions from that the call created, changed or
     * deleted (absolute paths; live only, present when there was one): code Pi's tools wrote,
     * which Pi loads into its own process at its next start or `/reload`.
     */
    extensionFiles?: readonly string[];
  }) => {
    const { toolName, toolCallId, isError, input, parentToolCallId, changes, extensionFiles } = result;
    return {
      ...present({ toolName, toolCallId, isError, input, parentToolCallId }),
      ...changedPathsFields(changes),
      ...(extensionFiles?.length ? { [EXTENSION_FILES_FIELD]: [...extensionFiles] } : {}),
    };
  },
  /** A tool call that never ran because an extension (pi-quests' guard or another) blocked it. */
  tool_blocked: (call: { toolName: string; input: Record<string, unknown>; reason: string }) => {
    const { toolName, input, reason } = call;
    return { toolName, input, reason };
  },
  turn_end: (turn: { assistantTurns: number; turnIndex?: number }) =>
    present({ assistantTurns: turn.assistantTurns, turnIndex: turn.turnIndex }),
  /**
   * `assistantTurns` here too, so `min_assistant_turns` can ask how long a whole run was;
   * `aborted` only live (a file does not say who stopped a run).
   */
  agent_end: (run: { assistantTurns: number; aborted?: boolean }) =>
    present({ assistantTurns: run.assistantTurns, aborted: run.aborted }),
  user_bash: (bash: {
    command: string;
    exitCode?: number | null;
    excludeFromContext?: boolean;
    /** What the command changed in the workspace (live only, when a look was taken). */
    changes?: ChangedPaths;
  }) => ({
    command: bash.command,
    // JSON has no undefined: a cancelled command (no exit code) records null.
    exitCode: bash.exitCode ?? null,
    excludeFromContext: bash.excludeFromContext ?? false,
    ...changedPathsFields(bash.changes),
  }),
  /** `source` and `origin` only live. */
  model_select: (model: {
    provider: string;
    modelId: string;
    source?: "set" | "cycle";
    origin?: ActOrigin;
  }) =>
    present({ provider: model.provider, modelId: model.modelId, source: model.source, origin: model.origin }),
  /** `origin` only live. */
  thinking_level_select: (thinking: { level: string; origin?: ActOrigin }) =>
    present({ level: thinking.level, origin: thinking.origin }),
  /**
   * `reason` and `instructions` only live: the instructions `/compact <text>` (or RPC `compact`
   * with `customInstructions`) gave the summary, absent when there were none.
   */
  session_compact: (compaction: {
    summary: string;
    reason?: "manual" | "threshold" | "overflow";
    instructions?: string;
  }) =>
    present({
      reason: compaction.reason,
      summary: compaction.summary,
      instructions: compaction.instructions,
    }),
  /** A `/tree` navigation; only one with a summary leaves a trace in a session file. */
  session_tree: (navigation: { summary?: string }) =>
    navigation.summary === undefined
      ? { summarized: false }
      : { summarized: true, summary: navigation.summary },
  /** `null`: the name was cleared. `origin` only live. */
  session_name: (info: { name: string | undefined; origin?: ActOrigin }) => ({
    name: cleared(info.name),
    ...present({ origin: info.origin }),
  }),
  /** `null`: the label was cleared. */
  label: (label: { label: string | undefined; entryId: string }) => ({
    label: cleared(label.label),
    entryId: label.entryId,
  }),
  /** What Pi put in the system prompt for a run: paths and names, never the contents. */
  context_loaded: (context: { contextFiles: readonly string[]; skills: readonly string[] }) => ({
    contextFiles: [...context.contextFiles],
    skills: [...context.skills],
  }),
  quest_activated: (activation: QuestActivation) => ({
    quest: activation.quest,
    baseline: activation.baseline,
    ...(activation.oracleBaseline !== undefined ? { oracleBaseline: activation.oracleBaseline } : {}),
  }),
  /** What `after: quest-id` looks for. */
  quest_completed: (completion: { quest: string }) => ({ quest: completion.quest }),
} satisfies Record<string, (source: never) => Payload>;

/** Pi treats an empty name or label as none. */
function cleared(text: string | undefined): string | null {
  const trimmed = text?.trim();
  return trimmed ? trimmed : null;
}

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
export const modelSelectEvent = builder("model_select");
export const thinkingLevelSelectEvent = builder("thinking_level_select");
export const sessionCompactEvent = builder("session_compact");
export const sessionTreeEvent = builder("session_tree");
export const sessionNameEvent = builder("session_name");
export const labelEvent = builder("label");
export const contextLoadedEvent = builder("context_loaded");
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
  modelSelect: "model_select",
  thinkingLevelSelect: "thinking_level_select",
  sessionCompact: "session_compact",
  sessionTree: "session_tree",
  sessionName: "session_name",
  label: "label",
  contextLoaded: "context_loaded",
} as const satisfies Record<string, RecordedEventName>;
export const QUEST_ACTIVATED_EVENT = "quest_activated" satisfies RecordedEventName;
export const QUEST_COMPLETED_EVENT = "quest_completed" satisfies RecordedEventName;

/**
 * The events that change what a quest can see without a turn ending: each schedules an
 * evaluation, debounced like a turn end, so the HUD turns green without another prompt. An
 * input, a tool result or a loaded context is followed by a turn end anyway.
 */
export const EVALUATION_TRIGGERS: ReadonlySet<string> = new Set<RecordedEventName>([
  PI_EVENTS.turnEnd,
  PI_EVENTS.agentEnd,
  PI_EVENTS.userBash,
  PI_EVENTS.modelSelect,
  PI_EVENTS.thinkingLevelSelect,
  PI_EVENTS.sessionCompact,
  PI_EVENTS.sessionTree,
  PI_EVENTS.sessionName,
  PI_EVENTS.label,
]);

/** Kept when the log drops its oldest events, since `after: quest-id` needs them. */
export const LIFECYCLE_EVENTS: ReadonlySet<string> = new Set([QUEST_ACTIVATED_EVENT, QUEST_COMPLETED_EVENT]);

/** The text of a message: a string as is, or its text blocks joined by new lines (images left out). */
export function messageText(content: MessageContent): string {
  if (typeof content === "string") return content;
  return content
    .flatMap((block) => (block.type === "text" && typeof block.text === "string" ? [block.text] : []))
    .join("\n");
}
