/**
 * What a reviewer's session did, read from its messages: the successful `read` calls it issued
 * before its first `submit_review` (a read in the same message as the judgment, or later, came
 * after the judgment was written: it does not count), every `submit_review`'s arguments, and the
 * calls of tools it does not have. The messages are the session's own record: a tool result is
 * made by the tool, never by the model.
 */
import { posix, relative, resolve } from "node:path";
import type { ReviewRead, ReviewSubmission } from "../verifier/review-judgment.ts";
import { REVIEWER_TOOL_NAMES, SUBMIT_REVIEW } from "./review-tools.ts";

export type SessionMessage = { role: string; content?: unknown; [key: string]: unknown };

type ToolCallBlock = { type: "toolCall"; id: string; name: string; arguments: Record<string, unknown> };
type ToolResult = { toolCallId: string; isError: boolean; text: string; details: unknown };

export type ReviewLedger = {
  reads: ReviewRead[];
  submissions: ReviewSubmission[];
  refusedTools: string[];
};

function toolCallsOf(message: SessionMessage): ToolCallBlock[] {
  if (message.role !== "assistant" || !Array.isArray(message.content)) return [];
  return message.content.filter(
    (block): block is ToolCallBlock =>
      typeof block === "object" && block !== null && (block as { type?: unknown }).type === "toolCall",
  );
}

function resultsOf(messages: readonly SessionMessage[]): Map<string, ToolResult> {
  const results = new Map<string, ToolResult>();
  for (const message of messages) {
    if (message.role !== "toolResult") continue;
    const content = Array.isArray(message.content) ? message.content : [];
    const text = content
      .filter((block): block is { type: "text"; text: string } => block?.type === "text")
      .map((block) => block.text)
      .join("");
    results.set(String(message.toolCallId), {
      toolCallId: String(message.toolCallId),
      isError: message.isError === true,
      text,
      details: message.details,
    });
  }
  return results;
}

/** Pi's own notice after a partial read ("[Showing lines 1-2000 of 5000. ...]"): not the file's text. */
const READ_NOTICE = /\n\n\[(?:Showing lines \d+-\d+ of \d+[^\]]*|\d+ more lines in file\.[^\]]*)\]$/;

/** A read path as the snapshot names it (relative, normalized), or undefined outside it. */
function snapshotPath(root: string, path: unknown): string | undefined {
  if (typeof path !== "string" || path === "") return undefined;
  const rel = relative(root, resolve(root, path.replace(/^@/, "")));
  if (rel === "" || rel.startsWith("..") || posix.isAbsolute(rel)) return undefined;
  return rel.split("\\").join("/");
}

function readOf(root: string, call: ToolCallBlock, result: ToolResult | undefined): ReviewRead | undefined {
  if (!result || result.isError) return undefined;
  const truncation = (result.details as { truncation?: { firstLineExceedsLimit?: boolean } } | undefined)
    ?.truncation;
  if (truncation?.firstLineExceedsLimit) return undefined;
  const path = snapshotPath(root, call.arguments.path);
  if (path === undefined) return undefined;
  const offset = call.arguments.offset;
  const firstLine = typeof offset === "number" && offset >= 1 ? Math.floor(offset) : 1;
  return { path, firstLine, text: result.text.replace(READ_NOTICE, "") };
}

/** The reviewer's reads, judgments and refused calls, from its session's messages. */
export function ledgerOf(root: string, messages: readonly SessionMessage[]): ReviewLedger {
  const results = resultsOf(messages);
  const known = new Set<string>(REVIEWER_TOOL_NAMES);
  const ledger: ReviewLedger = { reads: [], submissions: [], refusedTools: [] };
  let judged = false;
  for (const message of messages) {
    const calls = toolCallsOf(message);
    const judgesHere = calls.some((call) => call.name === SUBMIT_REVIEW);
    for (const call of calls) {
      if (!known.has(call.name)) ledger.refusedTools.push(call.name);
      else if (call.name === SUBMIT_REVIEW) ledger.submissions.push(call.arguments);
      else if (call.name === "read" && !judged && !judgesHere) {
        const read = readOf(root, call, results.get(call.id));
        if (read) ledger.reads.push(read);
      }
    }
    if (judgesHere) judged = true;
  }
  return ledger;
}
