/**
 * Pi's UI as the quest controller sees it (`QuestUi`): the HUD as a themed widget in the TUI,
 * plain lines in RPC, nothing without a UI; notifications, confirmations and plain answers. In
 * the TUI a message with Markdown (a goal, a debrief) is kept in the session as a custom entry
 * that Pi draws with `questMessageComponent` (Markdown wrapped at 60 columns; not sent to the
 * model); in RPC it is a notification in plain text, the Markdown as written.
 * Pi's types only: what of Pi's it calls at run time comes from the extension's entry
 * (src/extension/index.ts), which has them from the running Pi (src/runtime/pi-host.ts).
 */
import type { ExtensionContext, Theme, ThemeColor } from "@earendil-works/pi-coding-agent";
import type { Component, MarkdownTheme } from "@earendil-works/pi-tui";
import { type HudLine, type HudState, type HudTone, hudLines, hudStatus } from "./hud.ts";
import {
  joinSoftBreaks,
  type MessagePart,
  markdownBlocks,
  messageFrom,
  plainText,
  type QuestMessage,
  type QuestText,
} from "./quest-message.ts";
import type { ConfirmOptions, NotifyLevel, QuestUi } from "./quest-ui.ts";

const HUD_KEY = "pi-quests";
/** The custom entry type of pi-quests' messages in a Pi session (drawn by `questMessageComponent`). */
export const QUEST_MESSAGE_ENTRY = "pi-quests";
/** The widest a message's Markdown is drawn, padding included. */
export const MESSAGE_COLUMNS = 60;

/** Cuts a styled line to a width in terminal columns (Pi's `truncateToWidth`). */
export type FitToWidth = (text: string, width: number) => string;

/** What the UI needs of Pi at run time, given by the extension's entry. */
export type PiUiTools = {
  fitToWidth: FitToWidth;
  /** Keeps a message in the session as a `QUEST_MESSAGE_ENTRY` entry (Pi's `appendEntry`). */
  appendMessage(message: QuestMessage): void;
};

/** Repeated identical HUD states are not sent again. */
export function questUi(ctx: ExtensionContext, tools: PiUiTools): QuestUi {
  let lastWidget = "";
  let lastStatus = "";
  /** An info message with parts is drawn in the TUI; anything else is a notification. */
  const show = (text: QuestText, level: NotifyLevel) => {
    if (ctx.mode === "tui" && typeof text !== "string" && level === "info") tools.appendMessage(text);
    else ctx.ui.notify(plainText(text), level);
  };
  return {
    hasUI: ctx.hasUI,
    showHud(state: HudState) {
      if (!ctx.hasUI) return;
      const lines = hudLines(state);
      const status = hudStatus(state);
      const key = JSON.stringify(lines);
      if (key !== lastWidget) {
        lastWidget = key;
        showWidget(ctx, lines, tools.fitToWidth);
      }
      if (status !== lastStatus) {
        lastStatus = status;
        ctx.ui.setStatus(HUD_KEY, ctx.mode === "tui" ? ctx.ui.theme.fg("accent", status) : status);
      }
    },
    notify(message: QuestText, level: NotifyLevel) {
      if (ctx.hasUI) show(message, level);
      else if (level !== "info") process.stderr.write(`${plainText(message)}\n`);
    },
    async confirm(title: string, message: string, options: ConfirmOptions = {}) {
      if (!ctx.hasUI) return undefined;
      // Pi's confirm starts on Yes; a No/Yes selector starts on No. RPC clients ask their own way.
      if (options.defaultAnswer === false && ctx.mode === "tui") {
        return (await ctx.ui.select(`${title}\n${message}`, ["No", "Yes"])) === "Yes";
      }
      return ctx.ui.confirm(title, message);
    },
    say(text: QuestText) {
      if (ctx.hasUI) show(text, "info");
      else process.stdout.write(`${plainText(text)}\n`);
    },
  };
}

function showWidget(ctx: ExtensionContext, lines: HudLine[], fitToWidth: FitToWidth): void {
  if (ctx.mode === "tui") {
    ctx.ui.setWidget(HUD_KEY, (_tui, theme) => ({
      render: (width: number) => lines.map((line) => fitToWidth(themed(line, theme), width)),
      invalidate: () => {},
    }));
  } else {
    ctx.ui.setWidget(
      HUD_KEY,
      lines.map((line) => line.text),
    );
  }
}

const TONE_COLOR: Record<HudTone, ThemeColor> = {
  title: "accent",
  pass: "success",
  fail: "error",
  pending: "warning",
  unchecked: "muted",
  muted: "dim",
  notice: "warning",
};

function themed(line: HudLine, theme: Theme): string {
  const colored = theme.fg(TONE_COLOR[line.tone], line.text);
  return line.tone === "title" ? theme.bold(colored) : colored;
}

/** pi-tui's components, given by the extension's entry (`new Markdown(...)`, `new Text(...)`). */
export type MessageComponents = {
  markdown(text: string, theme: MarkdownTheme): Component;
  text(text: string): Component;
};

/** One piece of a drawn message, and whether it is prose to keep to `MESSAGE_COLUMNS`; none is a blank line. */
type Piece = { component: Component | undefined; narrow: boolean };

/**
 * A kept message as Pi's TUI draws it: the title bold in the accent color, plain lines as they
 * are, Markdown by pi-tui's renderer, its prose (paragraphs, lists, quotes) at most
 * `MESSAGE_COLUMNS` wide with the author's line breaks inside a paragraph joined (so it wraps
 * evenly), and its fenced code blocks at the terminal's width, so that code is not broken at 60
 * columns. Undefined (nothing drawn) for an entry that is not a message.
 */
export function questMessageComponent(
  data: unknown,
  theme: Theme,
  make: MessageComponents,
): Component | undefined {
  const message = messageFrom(data);
  if (!message) return undefined;
  const markdownTheme = themedMarkdown(theme);
  const pieces = message.parts.flatMap((part) => piecesOf(part, theme, markdownTheme, make));
  return {
    render: (width: number) =>
      pieces.flatMap(({ component, narrow }) =>
        component ? [...component.render(narrow ? Math.min(width, MESSAGE_COLUMNS) : width)] : [""],
      ),
    invalidate: () => {
      for (const { component } of pieces) component?.invalidate();
    },
  };
}

function piecesOf(
  part: MessagePart,
  theme: Theme,
  markdownTheme: MarkdownTheme,
  make: MessageComponents,
): Piece[] {
  if (typeof part === "string")
    return [{ component: part === "" ? undefined : make.text(part), narrow: false }];
  if ("title" in part)
    return [{ component: make.text(theme.bold(theme.fg("accent", part.title))), narrow: false }];
  return markdownBlocks(part.markdown).flatMap((block, index): Piece[] => [
    ...(index > 0 ? [{ component: undefined, narrow: false }] : []),
    {
      component: make.markdown(block.code ? block.text : joinSoftBreaks(block.text), markdownTheme),
      narrow: !block.code,
    },
  ]);
}

/** Pi's Markdown colors from the theme Pi hands the renderer (the host's, whichever copy of Pi this is). */
function themedMarkdown(theme: Theme): MarkdownTheme {
  const fg = (color: ThemeColor) => (text: string) => theme.fg(color, text);
  return {
    heading: fg("mdHeading"),
    link: fg("mdLink"),
    linkUrl: fg("mdLinkUrl"),
    code: fg("mdCode"),
    codeBlock: fg("mdCodeBlock"),
    codeBlockBorder: fg("mdCodeBlockBorder"),
    quote: fg("mdQuote"),
    quoteBorder: fg("mdQuoteBorder"),
    hr: fg("mdHr"),
    listBullet: fg("mdListBullet"),
    bold: (text) => theme.bold(text),
    italic: (text) => theme.italic(text),
    underline: (text) => theme.underline(text),
    strikethrough: (text) => theme.strikethrough(text),
  };
}
