/** The port through which the quest controller reaches Pi's UI (src/extension/index.ts implements it). */
import type { HudState } from "./hud.ts";
import type { QuestText } from "./quest-message.ts";

export type NotifyLevel = "info" | "warning" | "error";

export type ConfirmOptions = {
  /**
   * The answer a learner who just presses Enter gives. Pi's confirm dialog has no default (its
   * cursor starts on Yes): with `false`, the TUI asks with a No/Yes selector instead, No first.
   */
  defaultAnswer?: boolean;
};

/** What the controller needs from Pi's UI. Without a UI (print mode) the HUD calls do nothing. */
export type QuestUi = {
  readonly hasUI: boolean;
  showHud(state: HudState): void;
  /** A message with Markdown parts is drawn as Markdown in the TUI, as plain text elsewhere. */
  notify(message: QuestText, level: NotifyLevel): void;
  /** Asks yes or no; undefined when there is no one to ask. */
  confirm(title: string, message: string, options?: ConfirmOptions): Promise<boolean | undefined>;
  /** Command output: a notification in Pi's UI; printed without one (Pi sends it to stderr in print mode). */
  say(text: QuestText): void;
};
