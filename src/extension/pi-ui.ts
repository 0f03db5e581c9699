/**
 * Pi's UI as the quest controller sees it (`QuestUi`): the HUD as a themed widget in the TUI,
 * plain lines in RPC, nothing without a UI; notifications, confirmations and plain answers.
 * Pi's types only: the one function of Pi's it calls at run time comes from the extension's
 * entry (src/extension/index.ts), the only module that loads Pi.
 */
import type { ExtensionContext, Theme, ThemeColor } from "@earendil-works/pi-coding-agent";
import { type HudLine, type HudState, type HudTone, hudLines, hudStatus } from "./hud.ts";
import type { NotifyLevel, QuestUi } from "./quest-ui.ts";

const HUD_KEY = "pi-quests";

/** Cuts a styled line to a width in terminal columns (Pi's `truncateToWidth`). */
export type FitToWidth = (text: string, width: number) => string;

/** Repeated identical HUD states are not sent again. */
export function questUi(ctx: ExtensionContext, fitToWidth: FitToWidth): QuestUi {
  let lastWidget = "";
  let lastStatus = "";
  return {
    hasUI: ctx.hasUI,
    showHud(state: HudState) {
      if (!ctx.hasUI) return;
      const lines = hudLines(state);
      const status = hudStatus(state);
      const key = JSON.stringify(lines);
      if (key !== lastWidget) {
        lastWidget = key;
        showWidget(ctx, lines, fitToWidth);
      }
      if (status !== lastStatus) {
        lastStatus = status;
        ctx.ui.setStatus(HUD_KEY, ctx.mode === "tui" ? ctx.ui.theme.fg("accent", status) : status);
      }
    },
    notify(message: string, level: NotifyLevel) {
      if (ctx.hasUI) ctx.ui.notify(message, level);
      else if (level !== "info") process.stderr.write(`${message}\n`);
    },
    async confirm(title: string, message: string) {
      return ctx.hasUI ? ctx.ui.confirm(title, message) : undefined;
    },
    say(text: string) {
      if (ctx.hasUI) ctx.ui.notify(text, "info");
      else process.stdout.write(`${text}\n`);
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
