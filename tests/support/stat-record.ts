/**
 * What the tests of stat records share: the racy window narrowed to the timestamp granularity, as
 * if dirty pages were written back at once (the default also waits out the kernel's writeback,
 * 42 s with its defaults, longer than a test should sleep; tests/receipts/fingerprinter.test.ts
 * shows the default refusing what this accepts), a wait past it, and a fingerprint's value.
 */
import { type FingerprintOutcome, TIMESTAMP_GRANULARITY_MS } from "../../src/receipts/fingerprint.ts";

export const NARROW = { racyWindowMs: TIMESTAMP_GRANULARITY_MS };

/** Files written before this resolves are outside the racy window of any scan after it. */
export const pastRacyWindow = () =>
  new Promise((resolve) => setTimeout(resolve, TIMESTAMP_GRANULARITY_MS + 300));

/** The fingerprint's value, failing the test when there is none. */
export function valueIn(outcome: FingerprintOutcome): string {
  if (!outcome.ok) throw new Error(`no fingerprint: ${outcome.reason}`);
  return outcome.fingerprint.value;
}
