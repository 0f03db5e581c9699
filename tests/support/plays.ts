/** A play with no steps, named as its file would be: for the tests of how plays are planned and run. */
import { expectationOf, type Play } from "../../src/verifier/play.ts";

export const emptyPlay = (quest: string, name: string): Play => ({
  version: 1,
  steps: [],
  quest,
  name,
  expected: expectationOf(name),
  source: `solutions/${quest}/${name}.yaml`,
});
