/**
 * Reads a Pi session file (JSONL, Pi's docs/session-format.md) into the events the extension
 * would have recorded live (src/events/translator.ts says how each is made).
 *
 * Two steps: each line is checked and kept as the record the replay reads (a message, a model
 * or thinking level change, a compaction, a branch summary, a label, a session name), then the
 * records are replayed in file order into events (src/events/session-replay.ts, which also
 * skips what Pi wrote without an event). Every event is cut to the sizes the live event log
 * keeps (src/events/bounds.ts), so a long summary reads the same either way.
 *
 * It reads what can be read and says where the rest is. Only the first line, the session
 * header, must be right: without it nothing is read (a failure). After it, entry types and
 * message roles this reader does not use (usage, custom entries, system messages) are skipped
 * without a word, as are fields it does not use; a type or role no tested Pi writes, or a newer
 * session format, is skipped too and said once ("this Pi is untested": src/core/untested-pi.ts,
 * printed by `pi-quests check` on stderr with the other warnings); a line that is not JSON (a last
 * line Pi was still writing), or a known entry with a field it cannot use, is a warning naming
 * its line, and reading goes on. Where the rest of an entry stands on its own it is kept: an
 * assistant message without its broken tool call still counts as a turn, a tool's result
 * without a broken nested call record still counts. Never throws.
 */
import { z } from "zod";
import { couldNotRead } from "../core/untested-pi.ts";
import { boundPayload } from "../events/bounds.ts";
import type { VerifierEvent } from "../events/schema.ts";
import { replaySession, type SessionHeaderRead, type SessionRecord } from "../events/session-replay.ts";
import type { NestedCallRead } from "../events/translator.ts";

/** A line of the file, and what is wrong with it. */
export type SessionFileProblem = { file: string; line: number; message: string };

export type SessionFileResult =
  /** `warnings`: one a line that was not read, or not read whole. */
  | { ok: true; sessionId: string; events: VerifierEvent[]; warnings: SessionFileProblem[] }
  /** The header is missing or unusable: nothing was read. */
  | { ok: false; errors: SessionFileProblem[] };

// Loose objects: Pi adds fields over time, and only the fields below are ours to check.
const EntrySchema = z.looseObject({ type: z.string() });
const HeaderSchema = z.looseObject({ type: z.literal("session"), id: z.string().min(1), cwd: z.string() });
const MessageEntrySchema = z.looseObject({
  type: z.literal("message"),
  message: z.looseObject({ role: z.string() }),
});
const BlockSchema = z.looseObject({ type: z.string() });
const ToolCallSchema = z.looseObject({
  type: z.literal("toolCall"),
  id: z.string(),
  name: z.string(),
  arguments: z.record(z.string(), z.unknown()),
});
const NestedCallsSchema = z.looseObject({ calls: z.array(z.unknown()) });
const NestedCallSchema = z.looseObject({
  id: z.string(),
  name: z.string(),
  // Absent when Pi left them out for their size (it then says how big they were).
  arguments: z.record(z.string(), z.unknown()).optional(),
  status: z.enum(["ok", "error", "unfinished"]),
});

/** The message roles we read; other roles are skipped. */
const MessageSchemas = {
  user: z.looseObject({ content: z.union([z.string(), z.array(BlockSchema)]) }),
  assistant: z.looseObject({ content: z.array(BlockSchema), stopReason: z.string() }),
  toolResult: z.looseObject({ toolCallId: z.string(), toolName: z.string(), isError: z.boolean() }),
  bashExecution: z.looseObject({
    command: z.string(),
    // Pi leaves exitCode out (undefined) when the command was cancelled.
    exitCode: z.number().nullish(),
    excludeFromContext: z.boolean().optional(),
  }),
};

/**
 * What Pi 1.5 and 1.6 write that we do not read: skipped without a word. Any other entry type or
 * message role is a newer Pi's, which pi-quests was not tested with: skipped too, and said once
 * per file as "this Pi is untested: an entry of this Pi's session file could not be read".
 */
const SKIPPED_ENTRY_TYPES = new Set(["custom", "custom_message", "usage", "context_edit"]);
const SKIPPED_ROLES = new Set(["branchSummary", "compactionSummary", "custom", "system"]);
/** The newest session format pi-quests reads (Pi's CURRENT_SESSION_VERSION in 1.5 and 1.6). */
const SESSION_FORMAT = 3;

/** The other entry types we read (Pi's field names); other types are skipped. */
const EntrySchemas = {
  model_change: z.looseObject({ provider: z.string(), modelId: z.string() }),
  thinking_level_change: z.looseObject({ thinkingLevel: z.string() }),
  compaction: z.looseObject({ summary: z.string() }),
  branch_summary: z.looseObject({ summary: z.string() }),
  // A cleared label or name: JSON drops Pi's undefined, so the field is absent (null is taken too).
  label: z.looseObject({ targetId: z.string(), label: z.string().nullish() }),
  session_info: z.looseObject({ name: z.string().nullish() }),
};

type ToolCall = z.infer<typeof ToolCallSchema>;

/**
 * What one line gave: a record (or nothing, for what we skip), and what was wrong with it. A
 * problem without a record: the line was left out; with one: it was read without the part named.
 */
type LineRead = { record?: SessionRecord; problem?: string; unknown?: string };

export function parseSessionFile(text: string, file: string): SessionFileResult {
  const lines = text
    .split(/\r?\n/)
    .map((content, index) => ({ content, number: index + 1 }))
    .filter((line) => line.content.trim() !== "");
  const fail = (line: number, message: string): SessionFileResult => ({
    ok: false,
    errors: [{ file, line, message }],
  });

  const [first, ...rest] = lines;
  if (first === undefined)
    return fail(1, "the file is empty; a Pi session file starts with a session header line");
  const header = readHeader(first.content);
  if ("error" in header) return fail(first.number, header.error);

  const warnings: SessionFileProblem[] = [];
  if (header.problem) warnings.push({ file, line: first.number, message: header.problem });
  const records: SessionRecord[] = [];
  // A last line without its new line is most likely one Pi was still writing.
  const unfinished = !/\n$/.test(text) ? lines.at(-1) : undefined;
  const unknown = new Set<string>();
  for (const line of rest) {
    const read = readLine(line.content, line === unfinished);
    if (read.problem !== undefined) warnings.push({ file, line: line.number, message: read.problem });
    if (read.unknown !== undefined && !unknown.has(read.unknown)) {
      unknown.add(read.unknown);
      const detail = `${read.unknown}, first on this line; read without it`;
      warnings.push({ file, line: line.number, message: couldNotRead(undefined, "sessionEntry", detail) });
    }
    if (read.record) records.push(read.record);
  }

  const events = replaySession(header.session, records).map(
    ({ name, payload }, seq): VerifierEvent => ({
      name,
      sessionId: header.session.sessionId,
      seq,
      // As the live event log records them.
      payload: boundPayload(payload),
    }),
  );
  return { ok: true, sessionId: header.session.sessionId, events, warnings };
}

function readHeader(content: string): { session: SessionHeaderRead; problem?: string } | { error: string } {
  const json = parseJson(content);
  if ("error" in json) return { error: `not a Pi session file: the first line is ${json.error}` };
  const entry = EntrySchema.safeParse(json.value);
  if (!entry.success || entry.data.type !== "session") {
    const found = entry.success ? `a "${entry.data.type}" entry` : 'a line without a "type" field';
    return { error: `not a Pi session file: the first line must be the session header, found ${found}` };
  }
  const header = HeaderSchema.safeParse(json.value);
  if (!header.success) return { error: `session header: ${issues(header.error)}` };
  const read = headerRead(header.data);
  const format = newerFormat(header.data.version);
  if (!format) return read;
  return { session: read.session, problem: read.problem ? `${format}; ${read.problem}` : format };
}

function headerRead({ id: sessionId, cwd, parentSession }: z.infer<typeof HeaderSchema>): {
  session: SessionHeaderRead;
  problem?: string;
} {
  const session = { sessionId, cwd };
  // The parent's file, set for a fork or clone; as live, an empty one is none.
  if (typeof parentSession === "string")
    return parentSession === "" ? { session } : { session: { ...session, parentSession } };
  if (parentSession === undefined || parentSession === null) return { session };
  return {
    session,
    problem: `session header: parentSession: expected the parent session's file, found ${typeof parentSession}; read without it`,
  };
}

/** A session format newer than pi-quests reads: its entries are read as far as they are known. */
function newerFormat(version: unknown): string | undefined {
  if (typeof version !== "number" || version <= SESSION_FORMAT) return undefined;
  const detail = `its header says session format ${version}; pi-quests reads up to ${SESSION_FORMAT}; read as far as its entries are known`;
  return couldNotRead(undefined, "sessionEntry", detail);
}

function readLine(content: string, unfinished: boolean): LineRead {
  const json = parseJson(content);
  if ("error" in json) {
    const cut = unfinished ? "; the file ends in the middle of this line (was Pi still writing it?)" : "";
    return { problem: `${json.error}${cut}` };
  }
  const entry = EntrySchema.safeParse(json.value);
  if (!entry.success) return { problem: 'expected a JSON object with a "type" field' };
  const type = entry.data.type;
  if (type === "session") return { problem: "a second session header; only the first line may be one" };
  if (type === "message") {
    const messageEntry = MessageEntrySchema.safeParse(json.value);
    if (!messageEntry.success) return { problem: `message entry: ${issues(messageEntry.error)}` };
    return readMessage(messageEntry.data.message);
  }
  if (isReadEntry(type)) return readEntry(type, json.value);
  return SKIPPED_ENTRY_TYPES.has(type) ? {} : { unknown: `a "${type}" entry` };
}

const isReadEntry = (type: string): type is keyof typeof EntrySchemas => Object.hasOwn(EntrySchemas, type);

function readEntry(type: keyof typeof EntrySchemas, value: unknown): LineRead {
  const problem = (error: z.ZodError) => ({ problem: `${type} entry: ${issues(error)}` });
  switch (type) {
    case "model_change": {
      const change = EntrySchemas.model_change.safeParse(value);
      if (!change.success) return problem(change.error);
      const { provider, modelId } = change.data;
      return { record: { type, provider, modelId } };
    }
    case "thinking_level_change": {
      const change = EntrySchemas.thinking_level_change.safeParse(value);
      if (!change.success) return problem(change.error);
      return { record: { type, thinkingLevel: change.data.thinkingLevel } };
    }
    case "compaction":
    case "branch_summary": {
      const summary = EntrySchemas[type].safeParse(value);
      if (!summary.success) return problem(summary.error);
      return { record: { type, summary: summary.data.summary } };
    }
    case "label": {
      const label = EntrySchemas.label.safeParse(value);
      if (!label.success) return problem(label.error);
      const { targetId, label: text } = label.data;
      return { record: { type, targetId, ...(typeof text === "string" ? { label: text } : {}) } };
    }
    case "session_info": {
      const info = EntrySchemas.session_info.safeParse(value);
      if (!info.success) return problem(info.error);
      const { name } = info.data;
      return { record: { type, ...(typeof name === "string" ? { name } : {}) } };
    }
  }
}

function readMessage(message: { role: string; [key: string]: unknown }): LineRead {
  const problem = (error: z.ZodError, prefix?: string) => `${message.role} message: ${issues(error, prefix)}`;
  switch (message.role) {
    case "user": {
      const user = MessageSchemas.user.safeParse(message);
      if (!user.success) return { problem: problem(user.error) };
      return { record: { role: "user", content: user.data.content } };
    }
    case "assistant": {
      const assistant = MessageSchemas.assistant.safeParse(message);
      if (!assistant.success) return { problem: problem(assistant.error) };
      // Any block type may come; tool calls are the ones we need whole. A broken one is left
      // out, not the message: it still counts as an assistant turn.
      const toolCalls: ToolCall[] = [];
      const broken: string[] = [];
      for (const [index, block] of assistant.data.content.entries()) {
        if (block.type !== "toolCall") continue;
        const call = ToolCallSchema.safeParse(block);
        if (call.success) toolCalls.push(call.data);
        else broken.push(problem(call.error, `content.${index}`));
      }
      // The translator reads an assistant message's tool calls and nothing else of its content.
      const record: SessionRecord = {
        role: "assistant",
        content: toolCalls,
        stopReason: assistant.data.stopReason,
      };
      if (broken.length === 0) return { record };
      const those = broken.length === 1 ? "that tool call" : "those tool calls";
      return { record, problem: `${broken.join("; ")}; the message is read without ${those}` };
    }
    case "toolResult": {
      const result = MessageSchemas.toolResult.safeParse(message);
      if (!result.success) return { problem: problem(result.error) };
      const { toolCallId, toolName, isError } = result.data;
      const nested = readNestedCalls(toolCallId, message.nestedCalls);
      const record: SessionRecord = {
        role: "toolResult",
        toolCallId,
        toolName,
        isError,
        ...(nested.calls.length > 0 ? { nestedCalls: { calls: nested.calls } } : {}),
      };
      if (nested.problems.length === 0) return { record };
      return {
        record,
        problem: `${message.role} message: ${nested.problems.join("; ")}; the result is read without ${nested.without}`,
      };
    }
    case "bashExecution": {
      const bash = MessageSchemas.bashExecution.safeParse(message);
      if (!bash.success) return { problem: problem(bash.error) };
      const { command, exitCode, excludeFromContext } = bash.data;
      // The translator takes Pi's type, where a cancelled command's exit code is undefined.
      return {
        record: { role: "bashExecution", command, exitCode: exitCode ?? undefined, excludeFromContext },
      };
    }
    default: {
      // System prompts, extensions' custom messages, summaries; a newer Pi's roles are said.
      const known = SKIPPED_ROLES.has(message.role);
      return { record: { type: "message" }, ...(known ? {} : { unknown: `a "${message.role}" message` }) };
    }
  }
}

/**
 * The nested calls Pi recorded on a tool's result (absent when the tool made none). A record
 * whose id is not under the calling tool's own (`<caller>/<n>`, deeper for a call a nested tool
 * made) would name a wrong caller: it is a problem, like a record without its fields.
 */
function readNestedCalls(
  toolCallId: string,
  value: unknown,
): { calls: NestedCallRead[]; problems: string[]; without: string } {
  if (value === undefined) return { calls: [], problems: [], without: "" };
  const nested = NestedCallsSchema.safeParse(value);
  if (!nested.success)
    return { calls: [], problems: [issues(nested.error, "nestedCalls")], without: "its nested calls" };
  const calls: NestedCallRead[] = [];
  const problems: string[] = [];
  for (const [index, item] of nested.data.calls.entries()) {
    const where = `nestedCalls.calls.${index}`;
    const call = NestedCallSchema.safeParse(item);
    if (!call.success) problems.push(issues(call.error, where));
    else if (!call.data.id.startsWith(`${toolCallId}/`))
      problems.push(
        `${where}.id: "${call.data.id}" is not a call made under this tool call (${toolCallId}/…)`,
      );
    else {
      const { id, name, arguments: input, status } = call.data;
      calls.push({ id, name, status, ...(input !== undefined ? { arguments: input } : {}) });
    }
  }
  return { calls, problems, without: problems.length === 1 ? "that nested call" : "those nested calls" };
}

function parseJson(content: string): { value: unknown } | { error: string } {
  try {
    return { value: JSON.parse(content) };
  } catch (error) {
    return { error: `not valid JSON (${error instanceof Error ? error.message : String(error)})` };
  }
}

/** Zod's issues on one line, e.g. `toolCallId: Invalid input: expected string, received undefined`. */
function issues(error: z.ZodError, prefix?: string): string {
  return error.issues
    .map((issue) => {
      const where = [prefix, ...issue.path.map(String)].filter((part) => part !== undefined).join(".");
      return where === "" ? issue.message : `${where}: ${issue.message}`;
    })
    .join("; ");
}
