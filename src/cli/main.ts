/** The `pi-quests` command line: dispatches to each command (one module each) from a table. */
import { CHECK_COMMAND } from "./check.ts";
import { type CliCommand, synopsisOf } from "./command.ts";
import { EXIT } from "./exit-codes.ts";
import { type CliIo, processIo } from "./io.ts";
import { LINT_COMMAND } from "./lint.ts";
import { PLAY_COMMAND } from "./play.ts";
import { RECEIPTS_COMMAND } from "./receipts.ts";
import { SANDBOX_COMMAND } from "./sandbox.ts";
import { TEST_COMMAND } from "./test.ts";

export type { CliIo } from "./io.ts";

/** In the order `pi-quests help` lists them. */
const COMMANDS: readonly CliCommand[] = [
  LINT_COMMAND,
  CHECK_COMMAND,
  TEST_COMMAND,
  SANDBOX_COMMAND,
  PLAY_COMMAND,
  RECEIPTS_COMMAND,
];

const HELP_WORDS: ReadonlySet<string> = new Set(["help", "--help", "-h"]);

/** Where the summaries start, two spaces after the synopses that fit before it. */
const SUMMARY_COLUMN = 32;

function overviewLine(synopsis: string, summary?: string): string {
  const line = `  pi-quests ${synopsis}`;
  if (summary === undefined) return line;
  const width = SUMMARY_COLUMN - 2;
  return line.length <= width
    ? `${line.padEnd(width)}  ${summary}`
    : `${line}\n${" ".repeat(SUMMARY_COLUMN)}${summary}`;
}

const USAGE = `pi-quests: build and test quest packs for the Pi coding agent

Usage:
${[...COMMANDS.map((command) => overviewLine(synopsisOf(command), command.summary)), overviewLine("help [COMMAND]")].join("\n")}

Run "pi-quests COMMAND --help" for a command's options.
`;

/** "lint, check, receipts and sandbox" */
const commandNames = (): string => {
  const names = COMMANDS.map((command) => command.name);
  return names.length > 1 ? `${names.slice(0, -1).join(", ")} and ${names.at(-1)}` : names.join("");
};

const findCommand = (name: string | undefined) => COMMANDS.find((command) => command.name === name);

/** Runs the CLI and returns its exit code. Never throws: every problem becomes a sentence. */
export async function main(argv: string[], io: CliIo = processIo()): Promise<number> {
  const [name, ...rest] = argv;
  try {
    if (name === undefined) {
      io.stderr(USAGE);
      return EXIT.invalid;
    }
    if (HELP_WORDS.has(name)) {
      io.stdout(findCommand(rest[0])?.usage ?? USAGE);
      return EXIT.pass;
    }
    const command = findCommand(name);
    if (command) return await command.run(rest, io);
    io.stderr(`pi-quests: unknown command "${name}"; the commands are ${commandNames()}\n\n${USAGE}`);
    return EXIT.invalid;
  } catch (error) {
    // A bug of ours, not the user's input: say so in a sentence; the stack only on request.
    io.stderr(`pi-quests: internal error: ${(error as Error).message ?? error}\n`);
    if (io.env.PI_QUESTS_DEBUG) io.stderr(`${(error as Error).stack}\n`);
    return EXIT.pending;
  }
}
