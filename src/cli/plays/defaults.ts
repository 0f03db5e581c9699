/** What every play's Pi runs with: pi-quests' own extension files, and how long it may take. */
import { join } from "node:path";

/** The extension files a play's Pi loads: the scripted model, then pi-quests itself. */
export const EXTENSION_FILES: readonly [scriptedModel: string, piQuests: string] = [
  join(import.meta.dirname, "..", "..", "extension", "scripted-model.ts"),
  join(import.meta.dirname, "..", "..", "extension", "index.ts"),
];

/** How long one step, one quest start and one confirm dialog may take. */
export const PLAY_TIMEOUTS = { stepMs: 90_000, startMs: 60_000, dialogMs: 10_000 };
