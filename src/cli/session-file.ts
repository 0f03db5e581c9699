/**
 * Reads a Pi session file (JSONL, docs/session-format.md) into the events the extension would have
 * recorded live (src/events/translator.ts says how each is made).
 *
 * Two steps: each line is checked and kept as the message the translator reads, then the
 * messages are replayed in file order into events (src/events/session-replay.ts). The first
 * line must be the session header. Entry types and message roles this reader does not use
 * (model changes, labels, compactions, system messages, ...) are skipped, so newer Pi versions
 * with new entry types still read; a known entry that lacks a field we use is an error naming
 * its line. Never throws.
 */
import { z } from "zod";
import type { VerifierEvent } from "../events/schema.ts";
import { replaySession, type SessionMessage } from "../events/session-replay.ts";

export type SessionFileError = { file: string; line: number; message: string };

export type SessionFileResult =
  | { ok: true; sessionId: string; events: VerifierEvent[] }
  | { ok: false; errors: SessionFileError[] };

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

type ToolCall = z.infer<typeof ToolCallSchema>;

type LineResult = { entry?: SessionMessage } | { error: string };

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

  const entries: SessionMessage[] = [];
  const errors: SessionFileError[] = [];
  for (const line of rest) {
    const result = readLine(line.content);
    if ("error" in result) errors.push({ file, line: line.number, message: result.error });
    else if (result.entry) entries.push(result.entry);
  }
  if (errors.length > 0) return { ok: false, errors };

  const events = replaySession({ sessionId: header.id, cwd: header.cwd }, entries).map(
    ({ name, payload }, seq) => ({
      name,
      sessionId: header.id,
      seq,
      payload,
    }),
  );
  return { ok: true, sessionId: header.id, events };
}

function readHeader(content: string): { id: string; cwd: string } | { error: string } {
  const json = parseJson(content);
  if ("error" in json) return { error: `not a Pi session file: the first line is ${json.error}` };
  const entry = EntrySchema.safeParse(json.value);
  if (!entry.success || entry.data.type !== "session") {
    const found = entry.success ? `a "${entry.data.type}" entry` : 'a line without a "type" field';
    return { error: `not a Pi session file: the first line must be the session header, found ${found}` };
  }
  const header = HeaderSchema.safeParse(json.value);
  if (!header.success) return { error: `session header: ${issues(header.error)}` };
  return { id: header.data.id, cwd: header.data.cwd };
}

function readLine(content: string): LineResult {
  const json = parseJson(content);
  if ("error" in json) return json;
  const entry = EntrySchema.safeParse(json.value);
  if (!entry.success) return { error: 'expected a JSON object with a "type" field' };
  if (entry.data.type === "session")
    return { error: "a second session header; only the first line may be one" };
  if (entry.data.type !== "message") return {};

  const messageEntry = MessageEntrySchema.safeParse(json.value);
  if (!messageEntry.success) return { error: `message entry: ${issues(messageEntry.error)}` };
  return readMessage(messageEntry.data.message);
}

function readMessage(message: { role: string; [key: string]: unknown }): LineResult {
  const problem = (error: z.ZodError, prefix?: string) => ({
    error: `${message.role} message: ${issues(error, prefix)}`,
  });
  switch (message.role) {
    case "user": {
      const user = MessageSchemas.user.safeParse(message);
      return user.success ? { entry: { role: "user", content: user.data.content } } : problem(user.error);
    }
    case "assistant": {
      const assistant = MessageSchemas.assistant.safeParse(message);
      if (!assistant.success) return problem(assistant.error);
      // Any block type may come; tool calls are the ones we need whole.
      const toolCalls: ToolCall[] = [];
      for (const [index, block] of assistant.data.content.entries()) {
        if (block.type !== "toolCall") continue;
        const call = ToolCallSchema.safeParse(block);
        if (!call.success) return problem(call.error, `content.${index}`);
        toolCalls.push(call.data);
      }
      // The translator reads an assistant message's tool calls and nothing else of its content.
      return { entry: { role: "assistant", content: toolCalls, stopReason: assistant.data.stopReason } };
    }
    case "toolResult": {
      const result = MessageSchemas.toolResult.safeParse(message);
      if (!result.success) return problem(result.error);
      const { toolCallId, toolName, isError } = result.data;
      return { entry: { role: "toolResult", toolCallId, toolName, isError } };
    }
    case "bashExecution": {
      const bash = MessageSchemas.bashExecution.safeParse(message);
      if (!bash.success) return problem(bash.error);
      const { command, exitCode, excludeFromContext } = bash.data;
      // The translator takes Pi's type, where a cancelled command's exit code is undefined.
      return {
        entry: { role: "bashExecution", command, exitCode: exitCode ?? undefined, excludeFromContext },
      };
    }
    default:
      return {};
  }
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
