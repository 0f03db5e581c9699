/** The port through which the quest controller reaches Pi's UI (src/extension/index.ts implements it). */
import type { HudState } from "./hud.ts";

export type NotifyLevel = "info" | "warning" | "error";

/** What the controller needs from Pi's UI. Without a UI (print mode) the HUD calls do nothing. */
export type QuestUi = {
  readonly hasUI: boolean;
  showHud(state: HudState): void;
  notify(message: string, level: NotifyLevel): void;
  /** Asks yes or no; undefined when there is no one to ask. */
  confirm(title: string, message: string): Promise<boolean | undefined>;
  /** Command output: a notification in Pi's UI; printed without one (Pi sends it to stderr in print mode). */
  say(text: string): void;
};
