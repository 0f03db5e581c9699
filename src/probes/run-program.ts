/**
 * Runs one program to its end and keeps what it wrote, as bytes: the way the git runner starts
 * git. Arguments are an array (never a shell), the environment is exactly the one given, input is
 * written whole and closed (no input: stdin is /dev/null), and the output is kept byte for byte
 * (no decoding, no trailing newline removed). A program that runs past its time is asked to stop
 * (SIGTERM, so git removes its lock files) and killed a moment later; one that writes more than
 * the limit is killed too, and the result says which.
 *
 * Node's own child_process, not execa: starting git is on the path of every check, and execa's
 * modules cost a start of pi-quests about as much as the two looks at an unchanged workspace.
 */
import { spawn } from "node:child_process";

export type ProgramOptions = {
  cwd: string;
  env: Record<string, string>;
  /** Written to stdin, which is then closed; absent: stdin is /dev/null. */
  input?: Buffer | string;
  timeoutMs: number;
  /** stdout and stderr together may hold this many bytes; more, and the program is killed. */
  maxOutputBytes: number;
};

export type ProgramResult = {
  /** How it ended; undefined when it was killed, or never started. */
  exitCode: number | undefined;
  stdout: Buffer;
  stderr: Buffer;
  /** Stopped because it ran past `timeoutMs`. */
  timedOut: boolean;
  /** Why there is no exit code besides a timeout: it could not be started, or wrote too much. */
  failure?: string;
};

/** After SIGTERM, how long a program has before SIGKILL. */
export const KILL_AFTER_MS = 5_000;

/**
 * After the program exits, how long its output pipes may stay open (held by a process it left
 * behind) before they are closed and the result is given without waiting for them.
 */
const PIPES_AFTER_EXIT_MS = 1_000;

export function runProgram(
  file: string,
  args: readonly string[],
  options: ProgramOptions,
): Promise<ProgramResult> {
  return new Promise((resolve) => {
    const child = spawn(file, args, {
      cwd: options.cwd,
      env: options.env,
      stdio: [options.input === undefined ? "ignore" : "pipe", "pipe", "pipe"],
    });
    const stdout: Buffer[] = [];
    const stderr: Buffer[] = [];
    let bytes = 0;
    let timedOut = false;
    let failure: string | undefined;
    let exitCode: number | undefined;
    let settled = false;
    let killTimer: NodeJS.Timeout | undefined;
    let pipesTimer: NodeJS.Timeout | undefined;

    const stop = () => {
      child.kill("SIGTERM");
      killTimer ??= setTimeout(() => child.kill("SIGKILL"), KILL_AFTER_MS);
    };
    const timer = setTimeout(() => {
      timedOut = true;
      stop();
    }, options.timeoutMs);
    const finish = () => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      clearTimeout(killTimer);
      clearTimeout(pipesTimer);
      child.stdout?.destroy();
      child.stderr?.destroy();
      resolve({
        exitCode: timedOut || failure !== undefined ? undefined : exitCode,
        stdout: Buffer.concat(stdout),
        stderr: Buffer.concat(stderr),
        timedOut,
        ...(failure !== undefined ? { failure } : {}),
      });
    };
    const keep = (into: Buffer[]) => (chunk: Buffer) => {
      bytes += chunk.length;
      if (bytes > options.maxOutputBytes) {
        failure ??= `it wrote more than ${options.maxOutputBytes} bytes`;
        stop();
        return;
      }
      into.push(chunk);
    };
    child.stdout?.on("data", keep(stdout));
    child.stderr?.on("data", keep(stderr));
    child.once("error", (error) => {
      // Not started (no such program, not executable), or a signal that could not be sent.
      failure ??= error.message;
      if (child.pid === undefined) finish();
    });
    child.once("exit", (code) => {
      exitCode = code ?? undefined;
      pipesTimer = setTimeout(finish, PIPES_AFTER_EXIT_MS);
    });
    child.once("close", finish);
    if (options.input !== undefined && child.stdin) {
      // A program that exits without reading all of it closes the pipe: not an error of ours.
      child.stdin.on("error", () => {});
      child.stdin.end(options.input);
    }
  });
}
