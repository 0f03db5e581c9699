/**
 * Runs a check script: `bash -c <content> <script>`, so `$0` is the script's name. Where PID
 * namespaces work, the script runs in one of its own and the namespace is closed once the script
 * is done, so nothing it started outlives the check, not even a process that left its group
 * (os/pid-namespace.ts). Everywhere the script also leads its own process group, and the whole
 * group is killed once it is done: where namespaces do not work, that is all there is.
 */
import { execa } from "execa";
import type { Containment } from "../verifier/checks/command.ts";
import type { ScriptOutcome, ScriptRequest } from "../verifier/probes.ts";
import { GROUP_LEADER } from "./os/group-leader.ts";
import type { PidNamespace } from "./os/pid-namespace.ts";
import { containProcesses } from "./os/process-containment.ts";
import { killGroup, signalGroup } from "./os/process-group.ts";

export type CheckScript = (request: ScriptRequest) => Promise<ScriptOutcome>;

/** How much of stdout, of stderr and of the mix is kept: the last bytes, where failures show. */
const OUTPUT_LIMIT = 1024 * 1024;
/** Largest delay a Node timer (and execa's `timeout`) accepts. */
const MAX_DELAY = 2 ** 31 - 1;
/** How long the check waits for a killed group to disappear before giving up on it. */
const GROUP_EXIT_WAIT_MS = 3000;
/** How long the output may stay open after the group is killed (a process that left the group). */
const PIPE_CLOSE_WAIT_MS = 1000;

export function bashCheck(bash = "bash"): CheckScript {
  return (request) => runScript(bash, request);
}

/** What the outcome says about containment: how the run was contained, and why not better. */
type ContainmentFields = { containment: Containment; containmentNote?: string };

/** One run: the shell, what it was asked, and the output it gave so far. */
type Run = { bash: string; request: ScriptRequest; output: CapturedOutput };

async function runScript(bash: string, request: ScriptRequest): Promise<ScriptOutcome> {
  const run: Run = { bash, request, output: capturedOutput() };
  if (request.signal?.aborted) {
    const message = `${request.script} was stopped before it started`;
    return { ok: false, kind: "stopped", message, ...run.output.report() };
  }
  const contained = await containProcesses(bash, request.env?.PATH ?? process.env.PATH);
  const namespace = contained.containment === "pid-namespace" ? contained.namespace : undefined;
  const containment: ContainmentFields = {
    containment: contained.containment,
    ...(contained.containment === "process-group" ? { containmentNote: contained.note } : {}),
  };
  let subprocess: Running;
  try {
    subprocess = start(bash, request, namespace);
  } catch (error) {
    // Arguments execa refuses before spawning, such as a NUL byte in the script.
    await namespace?.close();
    return unavailable(run, error instanceof Error ? error.message : String(error));
  }
  run.output.follow(subprocess);
  const result = await untilEnded(subprocess, namespace);
  if (namespace && !(await namespace.close())) {
    const message = `the processes ${request.script} started could not be stopped (their PID namespace did not close)`;
    return { ok: false, kind: "unavailable", message, ...run.output.report(), ...containment };
  }
  return outcomeOf(run, result, subprocess.pid !== undefined, containment);
}

function unavailable({ bash, request, output }: Run, reason: string): ScriptOutcome {
  const message = `could not start ${request.script} with ${bash} in ${request.cwd}: ${reason}`;
  return { ok: false, kind: "unavailable", message, ...output.report() };
}

/**
 * Waits for the script, then kills its group and waits (bounded) until no member is left. The
 * script's exit ends the check, even when something it started still holds its output open.
 */
async function untilEnded(subprocess: Running, namespace: PidNamespace | undefined): Promise<Ended> {
  const pid = subprocess.pid;
  let stopReading: NodeJS.Timeout | undefined;
  if (pid !== undefined) {
    // Killing the group closes the pipes, so the result below can settle.
    subprocess.nodeChildProcess.once("exit", () => {
      signalGroup(pid, "SIGKILL");
      void namespace?.close();
      // Unless a process left the group (`setsid`) and holds them: then stop reading.
      stopReading = setTimeout(() => {
        subprocess.stdout.destroy();
        subprocess.stderr.destroy();
      }, PIPE_CLOSE_WAIT_MS);
    });
  }
  const result = await subprocess;
  clearTimeout(stopReading);
  if (pid !== undefined) await killGroup(pid, GROUP_EXIT_WAIT_MS);
  return result;
}

/** The outcome once the script ended: timed out, stopped, never started, or finished with an exit code. */
function outcomeOf(run: Run, result: Ended, started: boolean, containment: ContainmentFields): ScriptOutcome {
  const { request, output } = run;
  if (result.timedOut) {
    const message = `${request.script} did not finish within ${request.timeoutMs} ms`;
    return { ok: false, kind: "timeout", message, ...output.report(), ...containment };
  }
  if (result.isCanceled) {
    return {
      ok: false,
      kind: "stopped",
      message: `${request.script} was stopped`,
      ...output.report(),
      ...containment,
    };
  }
  if (!started) return unavailable(run, result.originalMessage ?? result.shortMessage ?? "unknown error");
  const exitCode = result.exitCode ?? null;
  return {
    ok: true,
    passed: exitCode === 0,
    exitCode,
    ...(result.signal === undefined ? {} : { signal: result.signal }),
    ...output.report(),
    ...output.streams(),
    ...containment,
  };
}

/** Starts `bash -c <content> <script>`; throws only for arguments execa refuses. */
function start(bash: string, request: ScriptRequest, namespace: PidNamespace | undefined) {
  const { file, args } = namespace
    ? namespace.enter(bash, ["-c", request.content, request.script])
    : { file: bash, args: ["-c", request.content, request.script] };
  return execa(file, args, {
    ...GROUP_LEADER,
    cwd: request.cwd,
    ...(request.env ? { env: request.env } : {}),
    stdin: "ignore",
    encoding: "buffer",
    // Output is kept by `tail`: execa's own buffer would kill the script at `maxBuffer`.
    buffer: false,
    reject: false,
    timeout: toDelay(request.timeoutMs),
    cancelSignal: request.signal,
  });
}

type Running = ReturnType<typeof start>;
type Ended = Awaited<Running>;

/** A timeout execa accepts: a positive integer no larger than a timer allows. */
function toDelay(ms: number): number {
  return Number.isFinite(ms) ? Math.min(Math.max(Math.ceil(ms), 1), MAX_DELAY) : MAX_DELAY;
}

type CapturedOutput = ReturnType<typeof capturedOutput>;

/** The script's stdout, its stderr and the two mixed, each bounded to its last OUTPUT_LIMIT bytes. */
function capturedOutput() {
  const stdout = tail(OUTPUT_LIMIT);
  const stderr = tail(OUTPUT_LIMIT);
  const mixed = tail(OUTPUT_LIMIT);
  return {
    follow(subprocess: Running): void {
      // Chunks reach Node in the order each pipe is read: that is the order `report` keeps.
      subprocess.stdout.on("data", (chunk: Uint8Array) => {
        stdout.push(chunk);
        mixed.push(chunk);
      });
      subprocess.stderr.on("data", (chunk: Uint8Array) => {
        stderr.push(chunk);
        mixed.push(chunk);
      });
    },
    report: () => ({
      report: mixed.text(),
      truncated: stdout.truncated() || stderr.truncated() || mixed.truncated(),
    }),
    streams: () => ({ stdout: stdout.text(), stderr: stderr.text() }),
  };
}

/** Keeps the last `limit` bytes of a stream, so endless output costs bounded memory. */
function tail(limit: number) {
  const chunks: Buffer[] = [];
  let size = 0;
  let dropped = false;
  return {
    push(chunk: Uint8Array) {
      chunks.push(Buffer.from(chunk));
      size += chunk.length;
      while (size > limit) {
        const first = chunks[0];
        if (first === undefined) break;
        const excess = size - limit;
        if (first.length <= excess) {
          chunks.shift();
          size -= first.length;
        } else {
          chunks[0] = first.subarray(excess);
          size -= excess;
        }
        dropped = true;
      }
    },
    text(): string {
      let bytes = Buffer.concat(chunks);
      // A cut can land inside a UTF-8 character: skip its continuation bytes.
      if (dropped) {
        let start = 0;
        while (start < 3 && start < bytes.length && ((bytes[start] ?? 0) & 0xc0) === 0x80) start++;
        bytes = bytes.subarray(start);
      }
      return bytes.toString("utf8");
    },
    truncated: () => dropped,
  };
}
