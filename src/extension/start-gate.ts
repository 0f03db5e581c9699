/**
 * Why this copy of pi-quests must not start in this Pi process, asked before anything heavy is
 * imported: a checkout whose libraries are not installed (checkout-setup.ts: it would fail on its
 * first import) or a second copy (load-guard.ts: it would record every event twice). Either one
 * registers nothing but its notice, and Pi itself keeps working.
 */
import { missingSetup } from "./checkout-setup.ts";
import { claimProcess } from "./load-guard.ts";

export type Refusal = { message: string; level: "warning" | "error" };

/** Undefined when the copy whose entry is `entryUrl` (its `import.meta.url`) may start. */
export function whyNotStart(entryUrl: string): Refusal | undefined {
  // Before the claim: a copy that cannot run must not hold the process against one that can.
  const setup = missingSetup(entryUrl);
  if (setup) return { message: setup, level: "error" };
  const claim = claimProcess(entryUrl);
  return claim.ok ? undefined : { message: claim.message, level: "warning" };
}
