/**
 * PID namespaces: how a check makes sure nothing it started outlives it, even a process that
 * left its process group (`setsid`), cleared its environment (`env -i`), double-forked or ignores
 * SIGTERM. A namespace is opened by a small holder (`unshare --pid --fork --kill-child`), whose
 * first process is the namespace's init; the check joins it with `nsenter`, which stays outside
 * as the check's parent and re-raises the signal that killed it, so exit codes and signals read
 * as they do without a namespace. When the init dies the kernel kills every process in the
 * namespace, and the holder exits only once they are all gone: that exit is the proof.
 *
 * The init reads its stdin, a pipe only this process writes to: when this process dies, even
 * by SIGKILL, the pipe closes, the init returns, and the namespace goes with it.
 *
 * Linux only, and only where namespaces may be made: as root, or through an unprivileged user
 * namespace. Elsewhere `pidNamespaceSupport` says why not, and callers fall back to process groups.
 *
 * `ownProc`: the namespace also gets a mount namespace with its own /proc
 * (`unshare --mount-proc`), joined with `nsenter --mount`. Without it a process inside sees the
 * machine's /proc, where `/proc/self` is its machine id and not its `$$`: fine for a check (and
 * what tests/support/host-pid.ts relies on), wrong for a whole play, where pi-quests itself runs
 * inside and reads /proc to find and wait for the processes of its own checks (a check then
 * opens its own namespace inside the play's). A joiner keeps its working folder (`--wd=.`:
 * entering a mount namespace would otherwise move it to /).
 */
import { type ChildProcess, spawn } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import { createInterface } from "node:readline";

/** The flags that make a namespace, and those that join it, for one way of making it. */
type Variant = { name: string; unshare: string[]; nsenter: string[] };

const VARIANTS: readonly Variant[] = [
  // Privileged (root with CAP_SYS_ADMIN): no user namespace, so file access stays exactly as it is.
  { name: "privileged", unshare: [], nsenter: [] },
  // Unprivileged: a user namespace that maps only the learner's own user onto itself.
  {
    name: "user namespace",
    unshare: ["--user", "--map-current-user"],
    nsenter: ["--user", "--preserve-credentials"],
  },
];

/** How long the holder may take to start its init, and to exit once the init is killed. */
const HOLDER_START_MS = 5000;
const HOLDER_EXIT_MS = 5000;

export type PidNamespaceOptions = {
  /** A /proc of the namespace's own (see above); default false. */
  ownProc?: boolean;
};

export type PidNamespaceSupport =
  | { ok: true; variant: Variant; ownProc: boolean }
  | { ok: false; reason: string };

export type PidNamespace = {
  /** The command and arguments that run `file args...` inside the namespace. */
  enter(file: string, args: readonly string[]): { file: string; args: string[] };
  /** Kills every process in the namespace; resolves true once the kernel says they are gone. */
  close(): Promise<boolean>;
};

const support = new Map<string, Promise<PidNamespaceSupport>>();

/**
 * Whether PID namespaces work here, probed once per process (per `init` shell and kind): a
 * namespace is opened, `true` run inside it (with `ownProc`, a check that /proc/self is there),
 * and the namespace closed.
 */
export function pidNamespaceSupport(
  init = "bash",
  options: PidNamespaceOptions = {},
): Promise<PidNamespaceSupport> {
  const ownProc = options.ownProc === true;
  const key = `${init}\0${ownProc}`;
  let known = support.get(key);
  if (!known) {
    known = probe(init, ownProc);
    support.set(key, known);
  }
  return known;
}

async function probe(init: string, ownProc: boolean): Promise<PidNamespaceSupport> {
  if (process.platform !== "linux") return { ok: false, reason: "PID namespaces are Linux only" };
  const reasons: string[] = [];
  for (const variant of VARIANTS) {
    const opened = await openWith(variant, init, ownProc);
    if (!opened.ok) {
      reasons.push(`${variant.name}: ${opened.message}`);
      continue;
    }
    const { file, args } = ownProc
      ? opened.namespace.enter(init, ["-c", "test -r /proc/self/stat"])
      : opened.namespace.enter("true", []);
    const ran = await new Promise<string | undefined>((resolve) => {
      const child = spawn(file, args, { stdio: ["ignore", "ignore", "pipe"] });
      let stderr = "";
      child.stderr?.on("data", (chunk: Buffer) => {
        stderr += chunk.toString("utf8");
      });
      child.once("error", (error) => resolve(error.message));
      child.once("close", (code, signal) =>
        resolve(code === 0 ? undefined : `nsenter ended with ${signal ?? code}: ${stderr.trim()}`),
      );
    });
    const closed = await opened.namespace.close();
    if (ran === undefined && closed) return { ok: true, variant, ownProc };
    reasons.push(`${variant.name}: ${ran ?? "the namespace did not close"}`);
  }
  return { ok: false, reason: reasons.join("; ") };
}

type Opened = { ok: true; namespace: PidNamespace; alive: () => boolean } | { ok: false; message: string };

/**
 * One namespace opened ahead, per init shell: opening costs about 10 ms (two processes start),
 * which would otherwise come on top of every check. It idles until taken; it ends with this
 * process like any other (its init reads our pipe).
 */
const spares = new Map<string, Promise<Opened>>();

/**
 * A namespace the way the probe found to work (of the kind it probed: with its own /proc or
 * not): the one opened ahead if it is still alive.
 */
export async function openPidNamespace(
  supported: Extract<PidNamespaceSupport, { ok: true }>,
  init = "bash",
): Promise<{ ok: true; namespace: PidNamespace } | { ok: false; message: string }> {
  const key = `${init}\0${supported.ownProc}`;
  const ready = spares.get(key);
  spares.set(key, openWith(supported.variant, init, supported.ownProc));
  const taken = ready ? await ready : undefined;
  if (taken?.ok && taken.alive()) return taken;
  if (taken?.ok) await taken.namespace.close();
  return openWith(supported.variant, init, supported.ownProc);
}

async function openWith(variant: Variant, init: string, ownProc: boolean): Promise<Opened> {
  const unshare = [
    ...variant.unshare,
    "--pid",
    "--fork",
    "--kill-child",
    ...(ownProc ? ["--mount-proc"] : []),
  ];
  const nsenter = [...variant.nsenter, "--pid", ...(ownProc ? ["--mount", "--wd=."] : [])];
  let holder: ChildProcess;
  try {
    holder = spawn(
      "unshare",
      [...unshare, "--", init, "-c", "echo ready; read -r _"],
      // Its own group: a Ctrl-C meant for the host must not end the namespace under a check.
      { stdio: ["pipe", "pipe", "pipe"], detached: true },
    );
  } catch (error) {
    return { ok: false, message: (error as Error).message };
  }
  let stderr = "";
  holder.stderr?.on("data", (chunk: Buffer) => {
    stderr += chunk.toString("utf8");
  });
  // Nothing is ever written to the init's pipe; ending it after the init died must not throw.
  holder.stdin?.on("error", () => {});
  const exited = new Promise<void>((resolve) => {
    holder.once("close", () => resolve());
    holder.once("error", () => resolve());
  });
  // The holder must not keep this process alive, nor its pipe to the init.
  holder.unref();
  const ready = await new Promise<string | undefined>((resolve) => {
    const timer = setTimeout(() => resolve(`no answer within ${HOLDER_START_MS} ms`), HOLDER_START_MS);
    const lines = createInterface({ input: holder.stdout as NodeJS.ReadableStream });
    lines.once("line", (line) => {
      clearTimeout(timer);
      resolve(line === "ready" ? undefined : `unexpected output: ${line}`);
    });
    holder.once("error", (error) => {
      clearTimeout(timer);
      resolve(error.message);
    });
    holder.once("exit", () => {
      clearTimeout(timer);
      // Let stderr arrive before reading it.
      setImmediate(() => resolve(`unshare exited: ${stderr.trim() || "no message"}`));
    });
  });
  const holderPid = holder.pid;
  const initPid = ready === undefined && holderPid !== undefined ? childOf(holderPid) : undefined;
  const stop = async (): Promise<boolean> => {
    if (initPid !== undefined) kill(initPid);
    else if (holderPid !== undefined) kill(holderPid);
    (holder.stdin as NodeJS.WritableStream | null)?.end();
    let timer: NodeJS.Timeout | undefined;
    const inTime = await Promise.race([
      exited.then(() => true),
      new Promise<boolean>((resolve) => {
        timer = setTimeout(() => resolve(false), HOLDER_EXIT_MS);
      }),
    ]);
    clearTimeout(timer);
    holder.stdout?.destroy();
    holder.stderr?.destroy();
    return inTime;
  };
  if (initPid === undefined) {
    await stop();
    return { ok: false, message: ready ?? "the namespace's first process could not be found" };
  }
  (holder.stdout as NodeJS.ReadableStream & { unref?: () => void }).resume();
  for (const stream of [holder.stdin, holder.stdout, holder.stderr]) {
    (stream as unknown as { unref?: () => void } | null)?.unref?.();
  }
  let closing: Promise<boolean> | undefined;
  return {
    ok: true,
    alive: () => closing === undefined && holder.exitCode === null && holder.signalCode === null,
    namespace: {
      enter: (file, args) => ({
        file: "nsenter",
        args: ["--target", String(initPid), ...nsenter, "--", file, ...args],
      }),
      close: () => {
        closing ??= stop();
        return closing;
      },
    },
  };
}

function kill(pid: number): void {
  try {
    process.kill(pid, "SIGKILL");
  } catch {
    // Already gone.
  }
}

/** The one child of `parent` (the holder forks exactly one: the namespace's init). */
function childOf(parent: number): number | undefined {
  try {
    const listed = readFileSync(`/proc/${parent}/task/${parent}/children`, "utf8").trim();
    const first = Number(listed.split(/\s+/)[0]);
    if (Number.isInteger(first) && first > 0) return first;
  } catch {
    // Kernels without CONFIG_PROC_CHILDREN: look through every process's parent instead.
  }
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, "utf8");
      const ppid = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
      if (ppid === parent) return Number(entry);
    } catch {
      // Gone meanwhile.
    }
  }
  return undefined;
}
