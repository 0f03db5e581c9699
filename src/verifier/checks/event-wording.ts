/** The `event` check's wording for people (zod-free: the HUD loads it while Pi starts). */
import type { CheckWording } from "./define.ts";

/** What the HUD says for an event that has not happened: the event count is for /quest status. */
export const NOT_YET = "not yet";

export const eventWording = {
  hint: (result) =>
    result.status === "fail" && result.evidence.kind === "event" && result.evidence.matched === 0
      ? NOT_YET
      : undefined,
} satisfies CheckWording;
