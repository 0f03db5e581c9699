/**
 * What keeps a play's processes from outliving it: pi, the commands a play runs outside pi
 * (`setup`, `shell` steps), and everything they start, background servers, `setsid` and `nohup`
 * included.
 *
 * Where PID namespaces work, one namespace a play, with its own /proc
 * (src/probes/os/pid-namespace.ts, `ownProc`): every process runs inside it, and closing it
 * ends them all; nothing can leave it. Elsewhere, a fallback: each process started leads its own
 * process group, and every process carries a marker in its environment (`PI_QUESTS_PLAY_ID`); at
 * the close each group is asked to end (SIGTERM, then SIGKILL), then every process still holding
 * the marker is killed (src/probes/os/env-marker.ts). A process that left its group and cleared
 * its environment (`env -i`) escapes the fallback. `kind` and `note` say which was used.
 *
 * Use: start processes with `spawn`/`run`, or give `wrap` and `detached` to a spawner of your own
 * (the RPC client's options of the same names) with `env` added to its environment, then `track`
 * its pid; end a graceful close of pi first (stdin), then `close()` this.
 */
import { type ChildProcess, type StdioOptions, spawn as spawnProcess } from "node:child_process";
import { randomUUID } from "node:crypto";
import { killMarked } from "../../probes/os/env-marker.ts";
import { openPidNamespace, type PidNamespace, pidNamespaceSupport } from "../../probes/os/pid-namespace.ts";
import { forgetAtExit, killAtExit, signalGroup, terminateGroup } from "../../probes/os/process-group.ts";

/** The variable every process of a play carries. */
export const PLAY_MARKER = "PI_QUESTS_PLAY_ID";

/** How long the groups of the fallback get to end on SIGTERM, then to go after SIGKILL; the sweep's bound. */
const GROUP_GRACE_MS = 2000;
const GROUP_KILL_WAIT_MS = 3000;
const SWEEP_MS = 3000;
/** What `run` keeps of each stream: the last bytes. */
const OUTPUT_TAIL = 64 * 1024;

export type RunOutcome = {
  /** The exit code; null when a signal ended it (then `signal`), or it timed out. */
  exitCode: number | null;
  signal: NodeJS.Signals | null;
  /** The last 64 KiB of each. */
  stdout: string;
  stderr: string;
  timedOut: boolean;
  /** Why it could not start, when it could not. */
  error?: string;
};

export type PlayContainment = {
  readonly kind: "pid-namespace" | "process-group";
  /** With `process-group`: why no namespace. */
  readonly note: string | undefined;
  /** What every process of the play must carry in its environment (`PI_QUESTS_PLAY_ID`). */
  readonly env: Readonly<Record<string, string>>;
  /** Whether a process must be started as the leader of its own group (spawn's `detached`). */
  readonly detached: true;
  /** `file args` as the command that runs it inside. */
  wrap(file: string, args: readonly string[]): { file: string; args: string[] };
  /** A process started inside by another spawner (pi): its group is ended at the close. */
  track(pid: number | undefined): void;
  /** Starts `file args` inside: wrapped, leading its group, `env` added, tracked. */
  spawn(
    file: string,
    args: readonly string[],
    options: { cwd: string; env: Record<string, string>; stdio?: StdioOptions },
  ): ChildProcess;
  /**
   * Runs `bash -c command` inside, until that shell exits (what it left in the background keeps
   * running until the close). A timeout kills its group.
   */
  run(
    command: string,
    options: { cwd: string; env: Record<string, string>; timeoutMs?: number },
  ): Promise<RunOutcome>;
  /** Ends every process of the play; ok once none is left. Later calls give the same answer. */
  close(): Promise<{ ok: true } | { ok: false; message: string }>;
};

export type PlayContainmentOptions = {
  /** false: the fallback, even where namespaces work (default true). */
  namespaces?: boolean;
};

export async function openPlayContainment(options: PlayContainmentOptions = {}): Promise<PlayContainment> {
  const marker = randomUUID();
  let namespace: PidNamespace | undefined;
  let note: string | undefined;
  if (options.namespaces === false) note = "PID namespaces were not asked for";
  else {
    // The namespace's init only waits; the smallest shell does that fastest.
    const supported = await pidNamespaceSupport("/bin/sh", { ownProc: true });
    if (!supported.ok) note = `PID namespaces are not available here (${supported.reason})`;
    else {
      const opened = await openPidNamespace(supported, "/bin/sh");
      if (opened.ok) namespace = opened.namespace;
      else note = `could not open a PID namespace: ${opened.message}`;
    }
  }
  return containment(namespace, note, marker);
}

function containment(
  namespace: PidNamespace | undefined,
  note: string | undefined,
  marker: string,
): PlayContainment {
  const groups = new Set<number>();
  const env = { [PLAY_MARKER]: marker };
  let closing: Promise<{ ok: true } | { ok: false; message: string }> | undefined;

  const wrap = (file: string, args: readonly string[]) =>
    namespace ? namespace.enter(file, args) : { file, args: [...args] };
  const track = (pid: number | undefined) => {
    if (pid === undefined || closing) return;
    groups.add(pid);
    // Without a namespace nothing else ends a detached group if this process exits first.
    if (!namespace) killAtExit(pid);
  };
  const spawn: PlayContainment["spawn"] = (file, args, { cwd, env: given, stdio }) => {
    const command = wrap(file, args);
    const child = spawnProcess(command.file, command.args, {
      cwd,
      env: { ...given, ...env },
      stdio: stdio ?? ["ignore", "pipe", "pipe"],
      detached: true,
    });
    child.once("spawn", () => track(child.pid));
    return child;
  };

  return {
    kind: namespace ? "pid-namespace" : "process-group",
    note,
    env,
    detached: true,
    wrap,
    track,
    spawn,
    run: (command, options) => runToExit(spawn("bash", ["-c", command], options), options.timeoutMs),
    close() {
      closing ??= (async () => {
        if (namespace) {
          const ended = await namespace.close();
          return ended
            ? { ok: true }
            : { ok: false, message: "the play's PID namespace did not end in time" };
        }
        for (const group of groups) {
          await terminateGroup(group, GROUP_GRACE_MS, GROUP_KILL_WAIT_MS);
          forgetAtExit(group);
        }
        const left = await killMarked(PLAY_MARKER, marker, SWEEP_MS);
        return left.length === 0
          ? { ok: true }
          : { ok: false, message: `processes of the play are still running: ${left.join(", ")}` };
      })();
      return closing;
    },
  };
}

/** The outcome once the child exits (not once its streams close: a background process may hold them). */
function runToExit(child: ChildProcess, timeoutMs: number | undefined): Promise<RunOutcome> {
  const output = { stdout: "", stderr: "" };
  const keep = (stream: "stdout" | "stderr") => (chunk: Buffer) => {
    output[stream] = (output[stream] + chunk.toString("utf8")).slice(-OUTPUT_TAIL);
  };
  child.stdout?.on("data", keep("stdout"));
  child.stderr?.on("data", keep("stderr"));
  let timedOut = false;
  const timer =
    timeoutMs === undefined
      ? undefined
      : setTimeout(() => {
          timedOut = true;
          if (child.pid !== undefined) signalGroup(child.pid, "SIGKILL");
        }, timeoutMs);
  return new Promise((resolve) => {
    child.once("error", (error) => {
      clearTimeout(timer);
      resolve({ exitCode: null, signal: null, ...output, timedOut, error: error.message });
    });
    child.once("exit", (exitCode, signal) => {
      clearTimeout(timer);
      // What the shell wrote is read a moment longer; a background process holding the pipe is not waited for.
      let finished = false;
      const finish = () => {
        if (finished) return;
        finished = true;
        child.stdout?.destroy();
        child.stderr?.destroy();
        resolve({ exitCode: timedOut ? null : exitCode, signal, ...output, timedOut });
      };
      const grace = setTimeout(finish, 100);
      child.once("close", () => {
        clearTimeout(grace);
        finish();
      });
    });
  });
}
