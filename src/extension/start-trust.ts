/**
 * Whether this Pi process was started with code loaded before pi-quests (src/core/process-start.ts):
 * a preload in NODE_OPTIONS, a loader hook, NODE_PATH... Such a Pi may run patched code, so the
 * receipts of its sessions stay in its memory and no later session trusts them. Read once per
 * process, and the learner is told once per process, at the first quest session.
 */
import { codeLoadedBeforeStart, untrustedStartSentence } from "../core/process-start.ts";
import type { QuestUi } from "./quest-ui.ts";

export type StartTrust = { untrusted: boolean; tellOnce(ui: QuestUi): void };

let known: StartTrust | undefined;

export function startTrust(): StartTrust {
  known ??= judge(codeLoadedBeforeStart({ env: process.env, execArgv: process.execArgv }));
  return known;
}

/** The trust of a start that loaded `found` before pi-quests (exported for tests). */
export function judge(found: readonly string[]): StartTrust {
  let told = found.length === 0;
  return {
    untrusted: found.length > 0,
    tellOnce(ui) {
      if (told) return;
      told = true;
      ui.notify(
        `pi-quests: ${untrustedStartSentence(
          found,
          "its quests are checked as usual, but what this Pi runs is not kept for the next session, which runs each check again (a receipt is only as honest as the process that wrote it). Start Pi without it to keep them.",
        )}`,
        "warning",
      );
    },
  };
}
