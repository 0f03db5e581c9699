/**
 * Pi's terminal-only commands a play may type, read into the play control that does the same
 * (src/core/play-controls.ts; the extension is src/extension/play-controls.ts). Where the
 * terminal UI's command opens a dialog, the words after it are the learner's choice in it:
 *
 *   /reload
 *   /tree "TEXT" [summarize] [label=NAME] [instructions="..."]   the message TEXT picked in the
 *                          tree; summarize: "Summarize" chosen (instructions: "Summarize with
 *                          custom prompt"); label=NAME: the label typed for it
 *   /trust | /trust session | /trust no    "Trust", "Trust (this session only)", "Do not trust"
 *   /resume NAME           the session named NAME picked in the picker
 */
import type { PlayControl } from "../../core/play-controls.ts";

export type ControlRead = { ok: true; control: PlayControl } | { ok: false; why: string };

const TREE_FORM = '/tree "TEXT" [summarize] [label=NAME] [instructions="..."]';

/** The control `/word rest` stands for, or why the form is not one; undefined for another word. */
export function readControlCommand(word: string, rest: string): ControlRead | undefined {
  switch (word) {
    case "reload":
      return rest === ""
        ? { ok: true, control: { action: "reload", args: {} } }
        : { ok: false, why: "it takes nothing after it" };
    case "trust":
      return readTrust(rest);
    case "resume": {
      const name = unquoted(rest);
      return name
        ? { ok: true, control: { action: "resume", args: { name } } }
        : { ok: false, why: "it needs the session's name (the one picked in the picker): /resume NAME" };
    }
    case "tree":
      return readTree(rest);
    default:
      return undefined;
  }
}

function readTrust(rest: string): ControlRead {
  const decision = rest === "" ? "yes" : rest === "session" ? "session" : rest === "no" ? "no" : undefined;
  return decision
    ? { ok: true, control: { action: "trust", args: { decision } } }
    : {
        ok: false,
        why: `"${rest}" is not a choice of the trust dialog: /trust, /trust session or /trust no`,
      };
}

function readTree(rest: string): ControlRead {
  const words = tokens(rest);
  if (!words.ok) return { ok: false, why: `${words.why}: ${TREE_FORM}` };
  const [first, ...options] = words.tokens;
  if (!first?.quoted || first.text === "")
    return { ok: false, why: `it needs the text of the message to go back to, in quotes: ${TREE_FORM}` };
  const args: Extract<PlayControl, { action: "tree" }>["args"] = { target: first.text };
  for (const option of options) {
    const [key, value] = option.quoted ? [undefined, undefined] : splitOption(option.text);
    if (key === "summarize" && value === undefined) args.summarize = true;
    else if (key === "label" && value) args.label = value;
    else if (key === "instructions" && value) args.instructions = value;
    else return { ok: false, why: `"${option.text}" is not one of its words: ${TREE_FORM}` };
  }
  if (args.instructions !== undefined && !args.summarize)
    return { ok: false, why: "instructions are for the summary: add summarize" };
  return { ok: true, control: { action: "tree", args } };
}

/** `key=value` (the value maybe quoted), or a bare word. */
function splitOption(text: string): [string, string | undefined] {
  const equals = text.indexOf("=");
  return equals < 0 ? [text, undefined] : [text.slice(0, equals), text.slice(equals + 1)];
}

/** A word, and whether it began with a quote (the message's text, not an option). */
type Token = { text: string; quoted: boolean };

/** Words split at spaces; a "..." part (\" and \\ inside it) is kept whole, also after `key=`. */
function tokens(text: string): { ok: true; tokens: Token[] } | { ok: false; why: string } {
  const found: Token[] = [];
  let at = 0;
  while (at < text.length) {
    if (text[at] === " ") {
      at++;
      continue;
    }
    const quoted = text[at] === '"';
    let word = "";
    while (at < text.length && text[at] !== " ") {
      if (text[at] !== '"') {
        word += text[at++];
        continue;
      }
      at++;
      while (at < text.length && text[at] !== '"') {
        if (text[at] === "\\" && at + 1 < text.length) at++;
        word += text[at++];
      }
      if (at >= text.length) return { ok: false, why: "a quote is not closed" };
      at++;
    }
    found.push({ text: word, quoted });
  }
  return { ok: true, tokens: found };
}

/** The text without the quotes around it, if it has them. */
function unquoted(text: string): string {
  return text.length >= 2 && text.startsWith('"') && text.endsWith('"') ? text.slice(1, -1) : text;
}
