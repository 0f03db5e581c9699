/** One `pi-quests` command, as the command table in main.ts lists it. */
import type { CliIo } from "./io.ts";

export type CliCommand = {
  readonly name: string;
  /** Its line in `pi-quests help`. */
  readonly summary: string;
  /** What `pi-quests COMMAND --help` prints; its first line is `Usage: pi-quests SYNOPSIS`. */
  readonly usage: string;
  /** Runs it with the arguments after its name; resolves to the exit code. */
  run(args: string[], io: CliIo): Promise<number>;
};

/** The command line a usage text starts with, without `Usage: pi-quests `. */
export function synopsisOf(command: CliCommand): string {
  const [first = ""] = command.usage.split("\n");
  return first.replace(/^Usage: pi-quests /, "");
}
