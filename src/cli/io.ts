/** What every command gets: where to write, where it runs, its environment; and shared helpers. */
import { homedir } from "node:os";
import { type Diagnostic, formatDiagnostic } from "../core/diagnostics.ts";
import { agentDirFrom } from "../core/paths.ts";
import { closestName } from "../core/suggest.ts";
import { EXIT } from "./exit-codes.ts";

/** A stream the CLI writes to (stdout or stderr; a buffer in tests). */
export type Writer = (text: string) => void;

export type CliIo = {
  stdout: Writer;
  stderr: Writer;
  cwd: string;
  env: NodeJS.ProcessEnv;
  /** Node's own arguments this process started with (`process.execArgv`); none when absent. */
  execArgv?: readonly string[];
};

export const processIo = (): CliIo => ({
  stdout: (text) => process.stdout.write(text),
  stderr: (text) => process.stderr.write(text),
  cwd: process.cwd(),
  env: process.env,
  execArgv: process.execArgv,
});

/**
 * Runs node:util parseArgs, turning its errors into a usage message; an unknown flag is answered
 * with the closest flag the usage lists (`--jobz`: did you mean --jobs?).
 */
export function tryParse<T>(parseArguments: () => T, usage: string, io: CliIo): T | undefined {
  try {
    return parseArguments();
  } catch (error) {
    io.stderr(`pi-quests: ${unknownFlagSentence(error, usage) ?? (error as Error).message}\n\n${usage}`);
    return undefined;
  }
}

/** `unknown flag --jobz (did you mean --jobs?)` for parseArgs' unknown-option error; else undefined. */
export function unknownFlagSentence(error: unknown, usage: string): string | undefined {
  if ((error as { code?: unknown })?.code !== "ERR_PARSE_ARGS_UNKNOWN_OPTION") return undefined;
  const given = /'(-[^']*)'/.exec((error as Error).message)?.[1];
  if (given === undefined) return undefined;
  const flag = given.split("=")[0] ?? given;
  // Every command takes --help, whether its usage lists it or not.
  const flags = [...new Set([...(usage.match(/(?<![\w-])--[a-z][a-z-]*/g) ?? []), "--help"])];
  const closest = flag.startsWith("--")
    ? closestName(
        flag.slice(2),
        flags.map((name) => name.slice(2)),
      )
    : undefined;
  const mean =
    closest === undefined ? `; the flags are ${flags.join(", ")}` : ` (did you mean --${closest}?)`;
  return `unknown flag ${flag}${mean}`;
}

/** Pi's agent dir: PI_CODING_AGENT_DIR, else ~/.pi/agent. */
export function agentDirOf(io: CliIo): string {
  return agentDirFrom(io.env, io.cwd, homedir());
}

/** Each diagnostic on its own `file:line:col: message` line of stderr; the exit code of invalid input. */
export function printDiagnostics(io: CliIo, diagnostics: readonly Diagnostic[]): number {
  for (const diagnostic of diagnostics) io.stderr(`${formatDiagnostic(diagnostic)}\n`);
  return EXIT.invalid;
}
