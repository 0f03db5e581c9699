/** The `pi-quests` command line: dispatches to lint, check and receipts (one module each). */
import { CHECK_USAGE, check } from "./check.ts";
import { EXIT } from "./exit-codes.ts";
import { type CliIo, processIo } from "./io.ts";
import { LINT_USAGE, lint } from "./lint.ts";
import { RECEIPTS_USAGE, receiptsCommand } from "./receipts.ts";

export type { CliIo } from "./io.ts";

const USAGE = `pi-quests: build and test quest packs for the Pi coding agent

Usage:
  pi-quests lint PATH...        check quest files and packs (exit 0 valid, 3 invalid)
  pi-quests check QUEST.yaml|PACK_DIR [options]
                                evaluate a quest (exit 0 pass, 1 fail, 2 pending, 3 invalid input)
  pi-quests receipts [options]  reassess recorded receipts against the files, running nothing
  pi-quests help [COMMAND]

Run "pi-quests COMMAND --help" for a command's options.
`;

/** Runs the CLI and returns its exit code. Never throws: every problem becomes a sentence. */
export async function main(argv: string[], io: CliIo = processIo()): Promise<number> {
  const [command, ...rest] = argv;
  try {
    switch (command) {
      case "lint":
        return await lint(rest, io);
      case "check":
        return await check(rest, io);
      case "receipts":
        return await receiptsCommand(rest, io);
      case "help":
      case "--help":
      case "-h":
        io.stdout(
          rest[0] === "lint"
            ? LINT_USAGE
            : rest[0] === "check"
              ? CHECK_USAGE
              : rest[0] === "receipts"
                ? RECEIPTS_USAGE
                : USAGE,
        );
        return EXIT.pass;
      case undefined:
        io.stderr(USAGE);
        return EXIT.invalid;
      default:
        io.stderr(
          `pi-quests: unknown command "${command}"; the commands are lint, check and receipts\n\n${USAGE}`,
        );
        return EXIT.invalid;
    }
  } catch (error) {
    // A bug of ours, not the user's input: say so in a sentence; the stack only on request.
    io.stderr(`pi-quests: internal error: ${(error as Error).message ?? error}\n`);
    if (io.env.PI_QUESTS_DEBUG) io.stderr(`${(error as Error).stack}\n`);
    return EXIT.pending;
  }
}
