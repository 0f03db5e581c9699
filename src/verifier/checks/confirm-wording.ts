/** The `confirm` check's wording for people (zod-free: the HUD loads it while Pi starts). */
import type { CheckWording } from "./define.ts";

export const confirmWording = {
  // The learner is the one to act: say how.
  hint: (result) => {
    if (result.status !== "pending" || result.evidence.kind !== "confirm") return undefined;
    return result.evidence.answer === false
      ? "you answered no; /quest check asks again"
      : "/quest check to confirm";
  },
} satisfies CheckWording;
