/**
 * A mistyped flag is answered with the flag the command has that it most likely meant (issue 27,
 * item 10): `pi-quests test pack --jobz 2` says "did you mean --jobs?", exit 3, the usage after.
 */
import { describe, expect, it } from "vitest";
import { unknownFlagSentence } from "../../src/cli/io.ts";
import { TEST_USAGE } from "../../src/cli/usage.ts";
import { REPO, runMain } from "../support/cli.ts";

const parseError = (given: string) =>
  Object.assign(
    new Error(`Unknown option '${given}'. To specify a positional argument starting with a '-', ...`),
    {
      code: "ERR_PARSE_ARGS_UNKNOWN_OPTION",
    },
  );

describe("an unknown flag", () => {
  it.each([
    [["test", "pack", "--jobz", "2"], "pi-quests: unknown flag --jobz (did you mean --jobs?)"],
    [
      ["test", "pack", "--advised_order"],
      "pi-quests: unknown flag --advised_order (did you mean --advised-order?)",
    ],
    [
      ["check", "q.yaml", "--baseine", "HEAD"],
      "pi-quests: unknown flag --baseine (did you mean --baseline?)",
    ],
    [["play", "pack", "--soltion=a.yaml"], "pi-quests: unknown flag --soltion (did you mean --solution?)"],
    [["lint", "--hepl"], "pi-quests: unknown flag --hepl (did you mean --help?)"],
    [["receipts", "--jsn"], "pi-quests: unknown flag --jsn (did you mean --json?)"],
  ])("%j: did you mean, exit 3, the usage after", async (args, first) => {
    const run = await runMain(args, { cwd: REPO, env: {} });
    expect(run.exitCode).toBe(3);
    expect(run.stderr.split("\n")[0]).toBe(first);
    expect(run.stderr).toContain("Usage: pi-quests");
  });

  it("with nothing close, lists the command's flags", () => {
    expect(unknownFlagSentence(parseError("--zzzzzz"), TEST_USAGE)).toBe(
      "unknown flag --zzzzzz; the flags are --merge, --reporter, --quest, --chapter, --jobs, --strict, --advised-order, --keep, --shard, --help",
    );
  });

  it("leaves parseArgs' other errors as they are", () => {
    const missing = Object.assign(new Error("Option '--quest <value>' argument missing"), {
      code: "ERR_PARSE_ARGS_INVALID_OPTION_VALUE",
    });
    expect(unknownFlagSentence(missing, TEST_USAGE)).toBeUndefined();
  });
});
