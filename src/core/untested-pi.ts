/**
 * "This Pi is untested": the one module that says it. pi-quests reads some of Pi's texts and
 * internals that Pi does not promise to keep (docs/architecture.md, "What pi-quests reads of
 * Pi", lists each, with how it fails). A Pi that changed one of them is told once, in words,
 * never with a wrong verdict or a crash: the reader that could not read gives up its answer
 * (the check that needed it stays unmet, the model is not registered, the entry is read without)
 * and names what it could not read here.
 *
 * Each is said once per process: the extension keeps what it said in the process's memory
 * (src/extension/process-memory.ts, across Pi's calls of its factory), the CLI in a set of its
 * own. The extension tells on the HUD's notification line, the CLI on stderr.
 */
import { piSupportOf, untestedText } from "./pi-versions.ts";

/** What pi-quests reads of Pi, each in the words the learner is told it "could not be read". */
export const PI_READINGS = {
  modules: "Pi's modules (the index beside the script Pi runs)",
  piAi: "the pi-ai Pi gives its extensions (@earendil-works/pi-ai/compat)",
  piTui: "pi-tui, which draws the HUD",
  refusals: "the text of Pi's own refusal of a tool call",
  sessionEntry: "an entry of this Pi's session file",
  origin: "who changed the model, the thinking level or the session's name",
} as const;

export type PiReading = keyof typeof PI_READINGS;

/** "this Pi (1.7.0) is untested: WHAT could not be read (DETAIL)": the part every notice shares. */
export function couldNotRead(version: string | undefined, reading: PiReading, detail?: string): string {
  const which = version === undefined ? "this Pi" : `this Pi (${version})`;
  return `${which} is untested: ${PI_READINGS[reading]} could not be read${detail ? ` (${detail})` : ""}`;
}

/** The sentence a learner or an author reads: what could not be read, and what follows from it. */
export function unreadText(version: string | undefined, reading: PiReading, detail?: string): string {
  return `pi-quests: ${couldNotRead(version, reading, detail)}. What needs it stays unmet rather than judged on a guess; a newer pi-quests may know this Pi.`;
}

export type PiNotices = {
  /** A session started: a Pi newer than tested says so (the first time in this process). */
  sessionStarted(tell: (text: string) => void): void;
  /** `reading` of this Pi could not be read: said the first time in this process. */
  unread(reading: PiReading, tell: (text: string) => void, detail?: string): void;
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
    unread(reading, tell, detail) {
      once(`unread:${reading}`, unreadText(version, reading, detail), tell);
    },
  };
}
