/** What every play's Pi runs with: pi-quests' own extension files, and how long it may take. */
import { join } from "node:path";

const extensionFile = (name: string) => join(import.meta.dirname, "..", "..", "extension", name);

/**
 * The extension files a play's Pi loads: the scripted model, pi-quests itself, then the play
 * controls (after pi-quests, so that pi-quests' listeners see what a control causes first).
 */
export const EXTENSION_FILES: readonly [scriptedModel: string, piQuests: string, playControls: string] = [
  extensionFile("scripted-model.ts"),
  extensionFile("index.ts"),
  extensionFile("play-controls.ts"),
];

/** How long one step, one quest start and one confirm dialog may take. */
export const PLAY_TIMEOUTS = { stepMs: 90_000, startMs: 60_000, dialogMs: 10_000 };
