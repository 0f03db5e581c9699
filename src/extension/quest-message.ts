/**
 * What pi-quests tells the learner, as parts: a title line, plain lines, and Markdown (a quest's
 * goal, its debrief). Pi's TUI draws the Markdown (pi-ui.ts); everywhere else the message is its
 * plain text, the parts one after another on their own lines, Markdown as the author wrote it.
 * Pure, no Pi import (the subcommand table, which loads while Pi starts, uses it).
 */
import type { Quest } from "../verifier/quest.ts";

/** A line in the title style (the quest's name); plain text (its lines kept as they are); Markdown. */
export type MessagePart = { title: string } | string | { markdown: string };

export type QuestMessage = { readonly parts: readonly MessagePart[] };

/** What the UI port shows: plain text, or a message with parts. */
export type QuestText = string | QuestMessage;

export const message = (...parts: MessagePart[]): QuestMessage => ({ parts });

/** A quest's goal, as the learner reads it when the quest starts. */
export const goalOf = (quest: Pick<Quest, "goal">): MessagePart => ({ markdown: quest.goal });

/** A done quest's debrief, after a blank line; nothing for a quest without one. */
export const debriefOf = (quest: Pick<Quest, "debrief">): MessagePart[] =>
  quest.debrief === undefined ? [] : ["", { markdown: quest.debrief }];

/** Every part's own text, without trailing blank lines (a goal from YAML ends with a newline). */
export function partText(part: MessagePart): string {
  if (typeof part === "string") return part;
  return "title" in part ? part.title : part.markdown.trimEnd();
}

/** The message as plain text: each part on its own lines, in order ("" parts are blank lines). */
export function plainText(text: QuestText): string {
  return typeof text === "string" ? text : text.parts.map(partText).join("\n");
}

/**
 * A message read back from where it was kept (a Pi session entry's data, which anything could have
 * written): the message when it has that shape, else undefined.
 */
export function messageFrom(data: unknown): QuestMessage | undefined {
  if (typeof data !== "object" || data === null || !("parts" in data)) return undefined;
  const { parts } = data as { parts: unknown };
  if (!Array.isArray(parts) || !parts.every(isPart)) return undefined;
  return { parts };
}

function isPart(part: unknown): part is MessagePart {
  if (typeof part === "string") return true;
  if (typeof part !== "object" || part === null) return false;
  const keys = Object.keys(part);
  const [key] = keys;
  return (
    keys.length === 1 &&
    (key === "title" || key === "markdown") &&
    typeof (part as Record<string, unknown>)[key] === "string"
  );
}

/** A piece of Markdown: prose (wrapped to the message's width) or a fenced code block (never wrapped narrower). */
export type MarkdownBlock = { code: boolean; text: string };

const FENCE = /^(`{3,}|~{3,})/;

/**
 * Markdown cut at its top-level fenced code blocks (a fence at the start of a line, closed by a
 * fence of the same character at least as long, or by the end), each piece trimmed of blank
 * lines around it; empty pieces are left out. Pure.
 */
export function markdownBlocks(markdown: string): MarkdownBlock[] {
  const blocks: MarkdownBlock[] = [];
  let lines: string[] = [];
  let fence: string | undefined;
  const flush = (code: boolean) => {
    const text = lines
      .join("\n")
      .replace(/^(?:[ \t]*\n)+/, "")
      .trimEnd();
    if (text !== "") blocks.push({ code, text });
    lines = [];
  };
  for (const line of markdown.split("\n")) {
    const opening = FENCE.exec(line)?.[1];
    if (fence === undefined && opening !== undefined) {
      flush(false);
      fence = opening;
      lines.push(line);
    } else if (fence !== undefined && opening !== undefined && closes(fence, opening, line)) {
      lines.push(line);
      flush(true);
      fence = undefined;
    } else {
      lines.push(line);
    }
  }
  flush(fence !== undefined);
  return blocks;
}

/** Whether `line`, which starts with the fence `opening`, closes a block that `fence` opened. */
const closes = (fence: string, opening: string, line: string) =>
  opening[0] === fence[0] && opening.length >= fence.length && line.trim() === opening;

/** A line that starts a block of its own: a list item, a heading, a quote, a table row, a rule, a fence. */
const STARTS_BLOCK = /^(?:[-*+][ \t]|\d{1,9}[.)][ \t]|#{1,6}(?:[ \t]|$)|>|\||`{3,}|~{3,}|[-*_=]{3,}[ \t]*$)/;
/** A line after which the next one stays on its own: a heading, a table row, a hard break. */
const ENDS_LINE = /^[ \t]*(?:#|\|)|(?: {2}|\\)$/;

/**
 * Markdown prose with its soft line breaks joined, so the renderer wraps each paragraph and list
 * item to the width it has (Pi's renderer keeps a newline inside a paragraph as a line break, and
 * a goal written at 95 columns would come out ragged at 60). A line joins the one before it when
 * both have text and it starts no block of its own; hard breaks (two spaces or `\` at the end),
 * headings, tables and fenced code are kept as written. Pure.
 */
export function joinSoftBreaks(markdown: string): string {
  const out: string[] = [];
  let fence: string | undefined;
  for (const line of markdown.split("\n")) {
    const opening = FENCE.exec(line.trimStart())?.[1];
    const previous = out.at(-1);
    if (fence !== undefined) {
      if (opening !== undefined && closes(fence, opening, line.trimStart())) fence = undefined;
      out.push(line);
    } else if (opening !== undefined) {
      fence = opening;
      out.push(line);
    } else if (
      previous !== undefined &&
      previous.trim() !== "" &&
      line.trim() !== "" &&
      !ENDS_LINE.test(previous) &&
      !STARTS_BLOCK.test(line.trimStart())
    ) {
      out[out.length - 1] = `${previous.trimEnd()} ${line.trim()}`;
    } else {
      out.push(line);
    }
  }
  return out.join("\n");
}
