/**
 * A saved Pi session replayed through the translator: its entries, in file order, become the
 * events the extension would have recorded live (translator.ts has the table of sources). A
 * file has no turn or run boundaries, so they are read from the messages: a turn ends when the
 * next message that is not one of its tool results arrives, or at the end of the file; it ends
 * the run when Pi's loop would stop there.
 *
 * Entries Pi writes without an event are not events here either:
 * - The setup prefix. Before the first message, Pi writes the model and thinking level a new
 *   session starts with (`model_change`, then always a `thinking_level_change`), and `--name`
 *   a `session_info` even before them, all before any extension runs. Every entry up to and
 *   including the first `thinking_level_change` is skipped when no message comes before it;
 *   what comes after it (a `set_model` before the first prompt) is an event. A file whose first
 *   `thinking_level_change` comes after a message is a session an older Pi started without one:
 *   Pi 1.6 appends it when it resumes the session, again without an event, so it is skipped too.
 * - Repeats. Pi appends a `model_change` for every `setModel`, but announces only a different
 *   model, and re-records the model or thinking level a branch implies at a run's start; so a
 *   `model_change` or `thinking_level_change` equal to the previous one of its kind, in file
 *   order (the skipped setup entries count), is skipped.
 *
 * What the file cannot know stays out of the payloads (the translator leaves those fields out
 * when not given them): `reason`, `rawText`, `source`, `streamingBehavior`, `turnIndex`,
 * `aborted`, and for nested calls the outcome of one that never finished and arguments Pi left
 * out for their size. docs/quest-format.md lists where a file reads differently from a live
 * session.
 */
import type { PiEvent } from "./names.ts";
import {
  type AssistantMessageRead,
  type BashExecutionRead,
  createPiEventTranslator,
  type NestedCallRead,
  type PiEventTranslator,
  type ToolResultMessageRead,
  type UserMessageRead,
} from "./translator.ts";

/** The messages of a session file the replay uses, as the session-file reader checked them. */
export type SessionMessage =
  | UserMessageRead
  | (AssistantMessageRead & { stopReason: string })
  /** `nestedCalls`: the calls the tool made (`ctx.executeTool`), as Pi records them on its result. */
  | (ToolResultMessageRead & { nestedCalls?: { readonly calls: readonly NestedCallRead[] } })
  | (BashExecutionRead & { role: "bashExecution" });

/** The entries other than messages that the replay uses, with the fields it reads. */
export type SessionEntryRead =
  | { type: "model_change"; provider: string; modelId: string }
  | { type: "thinking_level_change"; thinkingLevel: string }
  | { type: "compaction"; summary: string }
  | { type: "branch_summary"; summary: string }
  /** No `label`: it was cleared. */
  | { type: "label"; targetId: string; label?: string }
  /** No `name`: it was cleared. */
  | { type: "session_info"; name?: string }
  /** A message of a role the replay does not use (system, custom, a newer Pi's): it only ends the setup prefix. */
  | { type: "message" };

/** One entry of a session file: a message the replay uses, or another entry. */
export type SessionRecord = SessionMessage | SessionEntryRead;

export type SessionHeaderRead = { sessionId: string; cwd: string; parentSession?: string };

export function replaySession(header: SessionHeaderRead, records: readonly SessionRecord[]): PiEvent[] {
  const translator = createPiEventTranslator();
  const events: PiEvent[] = [translator.sessionStart(header)];
  const add = (event: PiEvent | readonly PiEvent[] | undefined) => {
    if (event === undefined) return;
    if ("name" in event) events.push(event);
    else events.push(...event);
  };
  // `waiting`: the tool calls of the turn's assistant message that have no result yet.
  let openTurn: { endsRun: boolean; waiting: Set<string> } | undefined;
  const closeTurn = () => {
    if (openTurn === undefined) return;
    add(translator.turnEnd({}));
    if (openTurn.endsRun) add(translator.agentEnd());
    openTurn = undefined;
  };
  // An entry that is not a message (a model, a level, a compaction, a summary, a label, a name)
  // closes the open turn, as a `!` command does: live, such events come between turns (the
  // user's commands run while Pi is idle, compaction and /tree happen at a turn's boundary, so
  // after its turn_end). Except while the turn still waits for its tool results: then a tool
  // wrote the entry while it ran (an extension's `pi.setLabel` or `pi.setModel`), and live the
  // event comes before that tool's result and the turn's end, as here. What the file cannot
  // place: an entry written after a run's last message but before the run settled (an
  // automatic compaction at the run's end) reads after the agent_end, live before it.
  const betweenTurns = () => {
    if (openTurn !== undefined && openTurn.waiting.size === 0) closeTurn();
  };

  const skipped = setupPrefixLength(records);
  const repeated = repeatTracker();
  for (const [index, record] of records.entries()) {
    if (!("role" in record)) {
      // Every model and level counts as the previous one for the next, the skipped ones too.
      const repeat = repeated(record);
      if (record.type === "message" || index < skipped || repeat) continue;
      betweenTurns();
      add(entryEvent(translator, record));
      continue;
    }
    switch (record.role) {
      case "user":
        closeTurn();
        add(translator.messageEnd(record));
        break;
      case "assistant": {
        closeTurn();
        add(translator.messageEnd(record));
        const ends = endsRun(record);
        const calls = ends
          ? []
          : record.content.flatMap((block) => (block.type === "toolCall" ? [block.id] : []));
        openTurn = { endsRun: ends, waiting: new Set(calls) };
        break;
      }
      case "toolResult":
        // Live, a nested call ends before the tool that made it returns.
        for (const call of record.nestedCalls?.calls ?? []) add(translator.nestedCall(call));
        add(translator.messageEnd(record));
        openTurn?.waiting.delete(record.toolCallId);
        break;
      case "bashExecution":
        closeTurn();
        add(translator.bashExecution(record));
        break;
    }
  }
  closeTurn();
  return events;
}

/** The event an entry other than a message stands for. */
function entryEvent(
  translator: PiEventTranslator,
  record: Exclude<SessionEntryRead, { type: "message" }>,
): PiEvent | readonly PiEvent[] | undefined {
  switch (record.type) {
    case "model_change":
      return translator.modelSelect({ provider: record.provider, id: record.modelId });
    case "thinking_level_change":
      return translator.thinkingLevelSelect(record.thinkingLevel);
    case "compaction":
      return translator.sessionCompact({ summary: record.summary });
    case "branch_summary":
      return translator.sessionTree({ summary: record.summary });
    case "label":
      return translator.label(record);
    case "session_info":
      return translator.sessionName(record.name);
  }
}

/**
 * Whether a model or thinking level change is one Pi wrote without announcing it: equal to the
 * previous one of its kind, or the first thinking level (the level the session started, or an
 * older Pi's session resumed, with).
 */
function repeatTracker(): (record: SessionEntryRead) => boolean {
  let lastModel: string | undefined;
  let lastThinkingLevel: string | undefined;
  return (record) => {
    if (record.type === "model_change") {
      const model = JSON.stringify([record.provider, record.modelId]);
      const repeat = model === lastModel;
      lastModel = model;
      return repeat;
    }
    if (record.type === "thinking_level_change") {
      const repeat = lastThinkingLevel === undefined || record.thinkingLevel === lastThinkingLevel;
      lastThinkingLevel = record.thinkingLevel;
      return repeat;
    }
    return false;
  };
}

/**
 * How many leading entries are the setup Pi wrote before the session started: up to and
 * including the first `thinking_level_change`, when no message comes before it; else none.
 */
function setupPrefixLength(records: readonly SessionRecord[]): number {
  const end = records.findIndex(
    (record) => "role" in record || record.type === "message" || record.type === "thinking_level_change",
  );
  const first = records[end];
  return first !== undefined && !("role" in first) && first.type === "thinking_level_change" ? end + 1 : 0;
}

/** Pi's loop stops after an error or an abort, or when the model asked for no tool. */
function endsRun(message: AssistantMessageRead & { stopReason: string }): boolean {
  const { stopReason, content } = message;
  return (
    stopReason === "error" || stopReason === "aborted" || !content.some((block) => block.type === "toolCall")
  );
}
