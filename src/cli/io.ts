/** What every command gets: where to write, where it runs, its environment; and shared helpers. */
import { homedir } from "node:os";
import { join, resolve } from "node:path";
import type { Writer } from "./output.ts";

export type CliIo = { stdout: Writer; stderr: Writer; cwd: string; env: NodeJS.ProcessEnv };

export const processIo = (): CliIo => ({
  stdout: (text) => process.stdout.write(text),
  stderr: (text) => process.stderr.write(text),
  cwd: process.cwd(),
  env: process.env,
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
  return io.env.PI_CODING_AGENT_DIR
    ? resolve(io.cwd, io.env.PI_CODING_AGENT_DIR)
    : join(homedir(), ".pi", "agent");
}
