/**
 * What the learner is told about the Pi that runs pi-quests, each once per Pi process: Pi calls
 * the extension's factory again for every session (`/new`, `/fork`, `/resume`, `/reload`), so
 * what was said lives in the process's memory (process-memory.ts), not in a module variable.
 *
 * - A Pi newer than pi-quests was tested with (src/core/pi-versions.ts) runs, and says so at
 *   its first session start.
 * - Something pi-quests reads of Pi's texts or internals that this Pi did not give as pi-quests
 *   knows it (docs/architecture.md lists each: Pi's refusal texts, who changed the model, ...)
 *   is said when it happens: "this Pi is untested: X could not be read". The check that needed it
 *   stays unmet; nothing is judged on a guess.
 */
import { piSupportOf, unreadText, untestedText } from "../core/pi-versions.ts";

export type PiNotices = {
  /** A session started: an untested Pi says so (the first time in this process). */
  sessionStarted(tell: (text: string) => void): void;
  /** `what` of this Pi could not be read: said the first time in this process. */
  unread(what: string, tell: (text: string) => void): void;
};

/** The notices for the Pi of `version` (undefined: not known); `told` remembers what was said. */
export function createPiNotices(version: string | undefined, told: Set<string>): PiNotices {
  const once = (key: string, text: string, tell: (text: string) => void) => {
    if (told.has(key)) return;
    told.add(key);
    tell(text);
  };
  return {
    sessionStarted(tell) {
      if (piSupportOf(version).kind === "untested") once("untested-pi", untestedText(version), tell);
    },
    unread(what, tell) {
      once(`unread:${what}`, unreadText(version, what), tell);
    },
  };
}
