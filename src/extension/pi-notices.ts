/**
 * The extension's side of "this Pi is untested" (src/core/untested-pi.ts, which words it and
 * says each thing once per process): where it is told. A newer Pi's start and an origin that
 * could not be read go to the session they happen in; what the translator could not read
 * (src/events/blocks.ts) to the latest session's notifications, or stderr in print mode.
 */
import type { ExtensionContext } from "@earendil-works/pi-coding-agent";
import { piSupportOf } from "../core/pi-versions.ts";
import { createPiNotices } from "../core/untested-pi.ts";
import type { TranslatorOptions } from "../events/translator.ts";
import { processMemory } from "./process-memory.ts";

type Notify = (ctx: ExtensionContext, text: string) => void;

export type ExtensionPiNotices = {
  /** How the translator reads Pi's refusal texts on this Pi, and where it says what it could not. */
  translatorOptions: TranslatorOptions;
  /** A session started (told in it from now on): a newer Pi says it is untested, once. */
  sessionStarted(ctx: ExtensionContext): void;
  /** An origin could not be read (act-origin.ts's `text`); on a newer Pi, said as this Pi's change. */
  originUnread(ctx: ExtensionContext, text: string): void;
};

export function extensionPiNotices(version: string | undefined, notify: Notify): ExtensionPiNotices {
  const notices = createPiNotices(version, processMemory().told);
  const untested = piSupportOf(version).kind === "untested";
  let session: ExtensionContext | undefined;
  const tell = (text: string) => (session?.hasUI ? notify(session, text) : process.stderr.write(`${text}\n`));
  return {
    translatorOptions: {
      refusals: untested ? "untested" : "known",
      unread: (reading, detail) => notices.unread(reading, tell, detail),
    },
    sessionStarted(ctx) {
      session = ctx;
      notices.sessionStarted((text) => notify(ctx, text));
    },
    originUnread(ctx, text) {
      if (untested) notices.unread("origin", (said) => notify(ctx, said));
      else notify(ctx, text);
    },
  };
}
