/** What every play's Pi runs with: pi-quests' own extension files, and how long it may take. */
import { join } from "node:path";
import { packageRoot } from "../../core/package-root.ts";

/**
 * Where pi-quests' Pi extensions are: the bundle's dist/extension/*.js when this code is the
 * bundle (an installed package), the TypeScript sources when it is them (a checkout). Told by
 * this module's own file, so a checkout that also holds a dist/ still plays its sources.
 */
export function extensionFileIn(root: string, built: boolean, name: string): string {
  return built ? join(root, "dist", "extension", `${name}.js`) : join(root, "src", "extension", `${name}.ts`);
}

const root = packageRoot(import.meta.dirname);
const built = !import.meta.url.endsWith(".ts");
const extensionFile = (name: string) => extensionFileIn(root, built, name);

/**
 * The extension files a play's Pi loads: the scripted model, pi-quests itself, then the play
 * controls (after pi-quests, so that pi-quests' listeners see what a control causes first).
 */
export const EXTENSION_FILES: readonly [scriptedModel: string, piQuests: string, playControls: string] = [
  extensionFile("scripted-model"),
  extensionFile("index"),
  extensionFile("play-controls"),
];

/** How long one step, one quest start and one confirm dialog may take. */
export const PLAY_TIMEOUTS = { stepMs: 90_000, startMs: 60_000, dialogMs: 10_000 };
