/** What every command gets: where to write, where it runs, its environment; and shared helpers. */
import { homedir } from "node:os";
import { type Diagnostic, formatDiagnostic } from "../core/diagnostics.ts";
import { agentDirFrom } from "../core/paths.ts";
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

/** Runs node:util parseArgs, turning its errors into a usage message. */
export function tryParse<T>(parseArguments: () => T, usage: string, io: CliIo): T | undefined {
  try {
    return parseArguments();
  } catch (error) {
    io.stderr(`pi-quests: ${(error as Error).message}\n\n${usage}`);
    return undefined;
  }
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
