import type { CheckStatus } from "../verifier/results.ts";

/** The CLI contract's exit codes. */
export const EXIT = { pass: 0, fail: 1, pending: 2, invalid: 3 } as const;

export function exitCodeFor(status: CheckStatus): number {
  return EXIT[status];
}
