/**
 * Which tool calls that never ran an extension blocked (`tool_blocked`), for the translator.
 *
 * Pi stops at the first extension that blocks a call, so pi-quests may never see its
 * `tool_call`. A call that ended with an error and took no time (no `durationMs`) did not run:
 * Pi refused it (aborted, an unknown tool, invalid arguments, cut arguments) or an extension
 * blocked it, with its reason as the result's text. Pi refuses an unknown tool or invalid
 * arguments before any extension's `tool_call`, so a call pi-quests' guard saw was not refused
 * so (`seen`). One it did not see is told from Pi's refusals by their texts (NOT_A_BLOCK, the
 * texts of Pi 1.5 and 1.6), which a Pi newer than tested may have changed: there (`refusals:
 * "untested"`) a text that is none of them is no block but a reading that failed (`unread`,
 * src/core/untested-pi.ts), never a block on a guess. pi-quests' own guard records its blocks
 * at once (`guarded`).
 */
import type { PiReading } from "../core/untested-pi.ts";

/** How the translator reads what Pi does not promise to keep (src/core/untested-pi.ts). */
export type TranslatorOptions = {
  /**
   * Whether Pi's refusal texts (NOT_A_BLOCK) are this Pi's: "known" on a tested Pi (and for a
   * session file, which never holds a block), "untested" on a newer one.
   */
  refusals?: "known" | "untested";
  /** Something of Pi could not be read; `detail` says what was found instead. */
  unread?: (reading: PiReading, detail: string) => void;
};

/** Pi's own reasons for a tool call that did not run, none of them an extension's block. */
const NOT_A_BLOCK = [
  /^Operation aborted$/,
  /^Tool .* not found$/,
  /^Invalid arguments for tool /,
  /^Validation failed for tool /,
  /was not executed: the response hit the output token limit/,
];

export type BlockReader = {
  /** pi-quests' own `tool_call` handler saw the call. */
  seen(toolCallId: string): void;
  /** pi-quests' guard blocked the call (and recorded it). */
  guarded(toolCallId: string): void;
  /** The call ended: the reason an extension other than pi-quests' guard blocked it, if one did. */
  ended(
    toolCallId: string,
    call: { isError: boolean; durationMs?: number; result?: unknown },
  ): string | undefined;
};

export function createBlockReader(options: TranslatorOptions): BlockReader {
  const seenCalls = new Set<string>();
  const guardBlocked = new Set<string>();
  const readAsBlock = (toolCallId: string, reason: string): boolean => {
    if (seenCalls.has(toolCallId) || options.refusals !== "untested") return true;
    options.unread?.(
      "refusals",
      `a call not run, for: ${JSON.stringify(reason.split("\n")[0]?.slice(0, 120))}`,
    );
    return false;
  };
  return {
    seen: (toolCallId) => void seenCalls.add(toolCallId),
    guarded: (toolCallId) => void guardBlocked.add(toolCallId),
    ended(toolCallId, { isError, durationMs, result }) {
      const reason = notRunFor(isError, durationMs, result);
      const guarded = guardBlocked.delete(toolCallId);
      const block = reason !== undefined && !guarded && readAsBlock(toolCallId, reason);
      seenCalls.delete(toolCallId);
      return block ? reason : undefined;
    },
  };
}

/** The text of a call that did not run, unless it is one of Pi's own refusals. */
function notRunFor(isError: boolean, durationMs: number | undefined, result: unknown): string | undefined {
  if (!isError || durationMs !== undefined) return undefined;
  const text = firstText(result) ?? "";
  return NOT_A_BLOCK.some((pattern) => pattern.test(text)) ? undefined : text;
}

function firstText(result: unknown): string | undefined {
  const content = (result as { content?: unknown } | null | undefined)?.content;
  if (!Array.isArray(content)) return undefined;
  const block = content.find(
    (item): item is { type: "text"; text: string } =>
      typeof item === "object" && item !== null && item.type === "text" && typeof item.text === "string",
  );
  return block?.text;
}
