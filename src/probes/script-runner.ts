/**
 * Runs a check script: `bash -c <content> <script>`, so `$0` is the script's name. Where PID
 * namespaces work, the script runs in one of its own and the namespace is closed once the script
 * is done, so nothing it started outlives the check, not even a process that left its group
 * (src/probes/pid-namespace.ts). Everywhere the script also leads its own process group, and the
 * whole group is killed once it is done: where namespaces do not work, that is all there is.
 */
import { accessSync, constants } from "node:fs";
import { delimiter, isAbsolute, join } from "node:path";
import { execa } from "execa";
import type { ScriptOutcome, ScriptRequest } from "../verifier/probes.ts";
import {
  type Containment,
  openPidNamespace,
  type PidNamespace,
  pidNamespaceSupport,
} from "./pid-namespace.ts";
import { signalGroup, waitForGroupGone } from "./process-group.ts";

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
  return async (request) => {
    const stdout = tail(OUTPUT_LIMIT);
    const stderr = tail(OUTPUT_LIMIT);
    const mixed = tail(OUTPUT_LIMIT);
    const output = () => ({
      report: mixed.text(),
      truncated: stdout.truncated() || stderr.truncated() || mixed.truncated(),
    });
    if (request.signal?.aborted) {
      const message = `${request.script} was stopped before it started`;
      return { ok: false, kind: "stopped", message, ...output() };
    }

    const unavailable = (reason: string): ScriptOutcome => {
      const message = `could not start ${request.script} with ${bash} in ${request.cwd}: ${reason}`;
      return { ok: false, kind: "unavailable", message, ...output() };
    };
    const contained = await containFor(bash, request);
    const containment = {
      containment: contained.containment,
      ...(contained.note === undefined ? {} : { containmentNote: contained.note }),
    };
    let subprocess: Running;
    try {
      subprocess = start(bash, request, contained.namespace);
    } catch (error) {
      // Arguments execa refuses before spawning, such as a NUL byte in the script.
      await contained.namespace?.close();
      return unavailable(error instanceof Error ? error.message : String(error));
    }
    // Chunks reach Node in the order each pipe is read: that is the order `report` keeps.
    subprocess.stdout.on("data", (chunk: Uint8Array) => {
      stdout.push(chunk);
      mixed.push(chunk);
    });
    subprocess.stderr.on("data", (chunk: Uint8Array) => {
      stderr.push(chunk);
      mixed.push(chunk);
    });

    const pid = subprocess.pid;
    let stopReading: NodeJS.Timeout | undefined;
    if (pid !== undefined) {
      // The script's exit ends the check, even when something it started still holds its output
      // open: killing the group closes the pipes, so the result below can settle.
      subprocess.nodeChildProcess.once("exit", () => {
        signalGroup(pid, "SIGKILL");
        void contained.namespace?.close();
        // Unless a process left the group (`setsid`) and holds them: then stop reading.
        stopReading = setTimeout(() => {
          subprocess.stdout.destroy();
          subprocess.stderr.destroy();
        }, PIPE_CLOSE_WAIT_MS);
      });
    }
    const result = await subprocess;
    clearTimeout(stopReading);
    if (pid !== undefined) {
      signalGroup(pid, "SIGKILL");
      await waitForGroupGone(pid, GROUP_EXIT_WAIT_MS, "SIGKILL");
    }
    if (contained.namespace && !(await contained.namespace.close())) {
      const message = `the processes ${request.script} started could not be stopped (their PID namespace did not close)`;
      return { ok: false, kind: "unavailable", message, ...output(), ...containment };
    }

    if (result.timedOut) {
      const message = `${request.script} did not finish within ${request.timeoutMs} ms`;
      return { ok: false, kind: "timeout", message, ...output(), ...containment };
    }
    if (result.isCanceled) {
      return {
        ok: false,
        kind: "stopped",
        message: `${request.script} was stopped`,
        ...output(),
        ...containment,
      };
    }
    if (pid === undefined) {
      return unavailable(result.originalMessage ?? result.shortMessage ?? "unknown error");
    }
    const exitCode = result.exitCode ?? null;
    return {
      ok: true,
      passed: exitCode === 0,
      exitCode,
      ...(result.signal === undefined ? {} : { signal: result.signal }),
      ...output(),
      stdout: stdout.text(),
      stderr: stderr.text(),
      ...containment,
    };
  };
}

/**
 * The namespace a run gets, or why it gets only a process group. A bash that cannot be found
 * runs without one, so it fails to start exactly as it would without namespaces.
 */
async function containFor(
  bash: string,
  request: ScriptRequest,
): Promise<{ containment: Containment; note?: string; namespace?: PidNamespace }> {
  const found = findExecutable(bash, request.env?.PATH ?? process.env.PATH);
  if (!found) return { containment: "process-group", note: `${bash} was not found` };
  // The namespace's init only waits; the smallest shell does that fastest.
  const init = findExecutable("/bin/sh", undefined) ?? found;
  const supported = await pidNamespaceSupport(init);
  if (!supported.ok)
    return {
      containment: "process-group",
      note: `PID namespaces are not available here (${supported.reason})`,
    };
  const opened = await openPidNamespace(supported, init);
  if (!opened.ok)
    return { containment: "process-group", note: `could not open a PID namespace: ${opened.message}` };
  return { containment: "pid-namespace", namespace: opened.namespace };
}

/** `name` as an executable file: itself when it holds a slash, else the first on `path`. */
function findExecutable(name: string, path: string | undefined): string | undefined {
  const candidates = name.includes("/")
    ? [name]
    : (path ?? "")
        .split(delimiter)
        .filter((dir) => isAbsolute(dir))
        .map((dir) => join(dir, name));
  return candidates.find((candidate) => {
    try {
      accessSync(candidate, constants.X_OK);
      return true;
    } catch {
      return false;
    }
  });
}

/** Starts `bash -c <content> <script>`; throws only for arguments execa refuses. */
function start(bash: string, request: ScriptRequest, namespace: PidNamespace | undefined) {
  const { file, args } = namespace
    ? namespace.enter(bash, ["-c", request.content, request.script])
    : { file: bash, args: ["-c", request.content, request.script] };
  return execa(file, args, {
    cwd: request.cwd,
    ...(request.env ? { env: request.env } : {}),
    stdin: "ignore",
    encoding: "buffer",
    // Output is kept by `tail`: execa's own buffer would kill the script at `maxBuffer`.
    buffer: false,
    reject: false,
    // Spawns the script as a process group leader and sends every kill to the whole group. Unlike
    // `detached: true`, it keeps execa's kill-on-exit, so quitting Pi also ends the script.
    killDescendants: true,
    killSignal: "SIGKILL",
    forceKillAfterDelay: false,
    timeout: toDelay(request.timeoutMs),
    cancelSignal: request.signal,
  });
}

type Running = ReturnType<typeof start>;

/** A timeout execa accepts: a positive integer no larger than a timer allows. */
function toDelay(ms: number): number {
  return Number.isFinite(ms) ? Math.min(Math.max(Math.ceil(ms), 1), MAX_DELAY) : MAX_DELAY;
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
