import { type Check, CheckSchema } from "../../src/verifier/checks/registry.ts";

/** A check as a quest file would write it, parsed (defaults applied) and given an id. */
export function check(input: Record<string, unknown>, id = "the-check"): Check {
  return { ...CheckSchema.parse(input), id };
}
