/** One `pi-quests` command, as the command table in main.ts lists it. */
import type { CliIo } from "./io.ts";

/** Runs a command with the arguments after its name; resolves to the exit code. */
export type CommandRun = (args: string[], io: CliIo) => Promise<number>;

export type CliCommand = {
  readonly name: string;
  /** Its line in `pi-quests help`. */
  readonly summary: string;
  /** What `pi-quests COMMAND --help` prints; its first line is `Usage: pi-quests SYNOPSIS`. */
  readonly usage: string;
  /**
   * Loads the module that runs it (an `import()`), only when it is the command chosen: a start
   * loads one command's code, not all six.
   */
  load(): Promise<CommandRun>;
};

/** The command line a usage text starts with, without `Usage: pi-quests `. */
export function synopsisOf(command: Pick<CliCommand, "usage">): string {
  const [first = ""] = command.usage.split("\n");
  return first.replace(/^Usage: pi-quests /, "");
}
