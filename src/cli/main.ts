/**
 * The `pi-quests` command line: dispatches to each command (one module each) from a table. The
 * table is static text; a command's module is imported only when it is the one chosen, so a
 * start loads what that command needs and nothing of the others (`lint` needs no git, no Pi).
 */
import { type CliCommand, synopsisOf } from "./command.ts";
import { EXIT } from "./exit-codes.ts";
import { type CliIo, processIo } from "./io.ts";
import {
  CHECK_USAGE,
  INIT_USAGE,
  LINT_USAGE,
  PACKS_USAGE,
  PLAY_USAGE,
  RECEIPTS_USAGE,
  SANDBOX_USAGE,
  TEST_USAGE,
} from "./usage.ts";

export type { CliIo } from "./io.ts";

/** In the order `pi-quests help` lists them. */
export const COMMANDS: readonly CliCommand[] = [
  {
    name: "lint",
    summary: "check quest files and packs (exit 0 valid, 3 invalid)",
    usage: LINT_USAGE,
    load: async () => (await import("./lint.ts")).lint,
  },
  {
    name: "check",
    summary: "evaluate a quest (exit 0 pass, 1 fail, 2 pending, 3 invalid input)",
    usage: CHECK_USAGE,
    load: async () => (await import("./check.ts")).check,
  },
  {
    name: "test",
    summary: "prove a pack: play its solutions in the real Pi (exit 0 proven, 1 not, 3 invalid input)",
    usage: TEST_USAGE,
    load: async () => (await import("./test.ts")).test,
  },
  {
    name: "sandbox",
    summary: "set up the workspace a learner would start a quest in",
    usage: SANDBOX_USAGE,
    load: async () => (await import("./sandbox.ts")).sandbox,
  },
  {
    name: "play",
    summary: "try a pack by hand in the real Pi, in a fresh workspace",
    usage: PLAY_USAGE,
    load: async () => (await import("./play.ts")).play,
  },
  {
    name: "receipts",
    summary: "reassess recorded receipts against the files, running nothing",
    usage: RECEIPTS_USAGE,
    load: async () => (await import("./receipts.ts")).receiptsCommand,
  },
  {
    name: "packs",
    summary: "list the quest packs Pi would offer in a folder, and why others are not",
    usage: PACKS_USAGE,
    load: async () => (await import("./packs.ts")).packs,
  },
  {
    name: "init",
    summary: "create a new quest pack, ready to publish as a Pi package",
    usage: INIT_USAGE,
    load: async () => (await import("./init.ts")).init,
  },
];

const HELP_WORDS: ReadonlySet<string> = new Set(["help", "--help", "-h"]);
/** Not in the overview (it is pinned as it was); prints package.json's version. */
const VERSION_WORDS: ReadonlySet<string> = new Set(["version", "--version", "-v"]);

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
    if (VERSION_WORDS.has(name)) {
      io.stdout(`${(await import("../core/version.ts")).VERSION}\n`);
      return EXIT.pass;
    }
    const command = findCommand(name);
    if (command) return await (await command.load())(rest, io);
    io.stderr(`pi-quests: unknown command "${name}"; the commands are ${commandNames()}\n\n${USAGE}`);
    return EXIT.invalid;
  } catch (error) {
    const unwritable = unwritableFileSentence(error);
    if (unwritable) {
      io.stderr(unwritable);
      return EXIT.pending;
    }
    // A bug of ours, not the user's input: say so in a sentence; the stack only on request.
    io.stderr(`pi-quests: internal error: ${(error as Error).message ?? error}\n`);
    if (io.env.PI_QUESTS_DEBUG) io.stderr(`${(error as Error).stack}\n`);
    return EXIT.pending;
  }
}

const UNWRITABLE: Record<string, string> = {
  EROFS: "a read-only file system",
  EACCES: "permission denied",
  EPERM: "not permitted",
  ENOSPC: "no space left",
};

/**
 * The sentence for a file pi-quests could not write (its records in a read-only data dir: a
 * `pi-quests check` run from Pi's sandboxed bash, where the data dir is a read-only empty folder).
 */
export function unwritableFileSentence(error: unknown): string | undefined {
  const { code, path } = (error ?? {}) as { code?: unknown; path?: unknown };
  const why = typeof code === "string" ? UNWRITABLE[code] : undefined;
  if (!why || typeof path !== "string") return undefined;
  return `pi-quests: cannot write ${path} (${why}). pi-quests keeps its records in its data dir ({agent_dir}/quests, or --data-dir DIR): run it where that folder can be written. Inside Pi, the agent's bash sees the data dir as an empty, read-only folder (docs/security.md, 13).\n`;
}
