/**
 * The bash sandbox: a shell command of the agent's runs where pi-quests' data dir
 * (`{agent_dir}/quests`: receipts, events, progress, the seal key) is an empty read-only folder,
 * and everything else is as it was.
 *
 * How: `unshare --user --map-root-user --mount` makes a user namespace in which the learner's user
 * is root, and a mount namespace it owns; there an empty read-only tmpfs is mounted over the data
 * dir (and over every other path at which the same folder is reached, see `hiddenPathsOf`). Then
 * a second, nested user namespace maps the learner's own uid and gid back (`unshare --user
 * --map-user --map-group --mount`), with a mount namespace of its own, copied from the first.
 * Mounts copied into a mount namespace of a less privileged user namespace are locked: nothing in
 * it can unmount the tmpfs, nor bind the folder under it somewhere else (the kernel refuses a
 * bind that would drop a locked mount), even a command that makes namespaces of its own or, as a
 * root learner, is root in its namespace. A process in a child user namespace may not read
 * /proc/<pid>/root, /proc/<pid>/fd or /proc/<pid>/mem of one outside it (the kernel's ptrace
 * rule), so Pi's own view of the files is out of reach too; and Node opens every file
 * close-on-exec, so nothing of Pi's is inherited but stdin, stdout and stderr.
 *
 * The namespaces are made once per folder the commands run in, and kept by a small process (the
 * keeper, which waits on a pipe from this process and so ends with it); each command enters them
 * with `nsenter` into the keeper's working folder, which costs two programs' starts where making
 * them costs five (docs/benchmarks.md). Each step is `exec`: the command's shell ends up in the
 * process Pi started, so exit codes, signals, the process group Pi kills on abort or timeout, and
 * background processes (which keep running after their command, as without the sandbox) are all
 * as they are without it. The keeper is made again when it is gone, or when the data dir or the
 * folder is no longer the one it was made over (removed and made again: a mount stays with the
 * folder it was made on).
 *
 * The programs come from the system's own folders, never from PATH, which the agent can write
 * to: a look-alike `unshare` on PATH would otherwise run the command outside while saying it had
 * not. Linux only, and only where user namespaces may be made and mounted in (not under Ubuntu's
 * AppArmor restriction of unprivileged user namespaces, not with util-linux before 2.38, which
 * has no `--map-user`): the probe finds out once per data dir and process, and says why not.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { accessSync, constants, existsSync, mkdirSync, readFileSync, realpathSync, statSync } from "node:fs";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { hiddenPathsOf, isWithin } from "./mount-paths.ts";

/** The folders the sandbox's programs are taken from: root's, never the learner's. */
export const SYSTEM_FOLDERS: readonly string[] = [
  "/usr/bin",
  "/bin",
  "/usr/sbin",
  "/sbin",
  "/run/current-system/sw/bin",
];

/** What the probe found: commands run in the sandbox, or only the record guard stands. */
export type BashSandbox =
  | {
      protection: "namespaces";
      /** The paths hidden: the data dir's real path first, then its other paths (bind mounts). */
      hidden: readonly string[];
      /** The POSIX shell, from the system's folders, that runs what an entry's `wrap` gives. */
      outerShell: string;
      /**
       * The sandbox for commands run in `cwd`: its namespaces, made on first use and again when
       * they are gone. Rejects when they cannot be made: the command must not run then.
       */
      enter(cwd: string): Promise<SandboxEntry>;
    }
  | { protection: "guard"; reason: string };

export type SandboxEntry = {
  /**
   * The text the system's POSIX shell runs (`sh -c TEXT`) to run `command` with `shell -c` in the
   * sandbox, in the folder entered.
   */
  wrap(shell: string, command: string): string;
  /** The process that keeps the namespaces. */
  keeperPid: number;
};

export type BashSandboxOptions = {
  /** `{agent_dir}/quests`. */
  dataDir: string;
  /** Where the programs are looked for (default SYSTEM_FOLDERS): tests give a folder of fakes. */
  systemFolders?: readonly string[];
  platform?: NodeJS.Platform;
  /** The user and group the command runs as (default this process's). */
  uid?: number;
  gid?: number;
  /** /proc/self/mountinfo's text (default read from it). */
  mountinfo?: () => string;
};

const probes = new Map<string, Promise<BashSandbox>>();

/**
 * The sandbox for `dataDir`, probed once per process (per data dir, folders, user): the real
 * namespaces are made and entered by a command that reports what it sees, and only a data dir
 * seen as another, empty, read-only folder it cannot unmount, by the learner's own uid, counts.
 */
export function probeBashSandbox(options: BashSandboxOptions): Promise<BashSandbox> {
  const key = JSON.stringify([
    options.dataDir,
    options.systemFolders ?? SYSTEM_FOLDERS,
    options.uid,
    options.gid,
    options.platform,
  ]);
  let known = probes.get(key);
  if (!known) {
    known = probe(options).catch(
      (error: unknown): BashSandbox => ({ protection: "guard", reason: (error as Error).message }),
    );
    probes.set(key, known);
  }
  return known;
}

/** The programs the sandbox is made and entered with. */
type Tools = { sh: string; unshare: string; mount: string; nsenter: string };

async function probe(options: BashSandboxOptions): Promise<BashSandbox> {
  const platform = options.platform ?? process.platform;
  if (platform !== "linux") return guard(`the bash sandbox needs Linux (this is ${platform})`);
  const uid = options.uid ?? process.getuid?.();
  const gid = options.gid ?? process.getgid?.();
  if (uid === undefined || gid === undefined) return guard("this process has no user id");
  const folders = options.systemFolders ?? SYSTEM_FOLDERS;
  const found = {
    sh: findIn(folders, "sh"),
    unshare: findIn(folders, "unshare"),
    mount: findIn(folders, "mount"),
    nsenter: findIn(folders, "nsenter"),
  };
  const missing = Object.entries(found).filter(([, path]) => path === undefined);
  if (missing.length > 0) {
    return guard(`${missing.map(([name]) => name).join(", ")} not found in ${folders.join(", ")}`);
  }
  const tools = found as Tools;
  makeFolder(options.dataDir);
  const real = realpathSync(options.dataDir);
  const outside = statSync(real);
  const hidden = hiddenPathsOf(real, (options.mountinfo ?? readMountinfo)());
  const keepers = new Map<string, Promise<Keeper>>();
  const enter = async (cwd: string): Promise<SandboxEntry> => {
    const folder = realpathSync(cwd);
    // A working folder under the tmpfs would still reach the records by relative paths.
    if (hidden.some((path) => isWithin(folder, path)))
      throw new Error(`pi-quests runs no agent command inside its own records folder (${folder})`);
    if (!existsSync(real)) makeFolder(real);
    let keeper = await keepers.get(folder);
    if (!keeper?.sound()) {
      keeper?.close();
      const opening = openKeeper({ tools, uid, gid, hidden, folder });
      keepers.set(folder, opening);
      keeper = await opening;
    }
    const pid = keeper.pid;
    return { keeperPid: pid, wrap: (shell, command) => enterText(tools, pid, shell, command) };
  };
  let entry: SandboxEntry;
  try {
    entry = await enter("/");
  } catch (error) {
    return guard((error as Error).message);
  }
  // Its own programs from the system's folders too: a look-alike on PATH could lie about what it saw.
  const own = (name: string) => quote(findIn(folders, name) ?? name);
  const seen = await runProbe(tools.sh, entry.wrap(tools.sh, probeCommand(real, own)));
  // The probe's own namespaces are not a session's: they go.
  (await keepers.get("/"))?.close();
  keepers.delete("/");
  if (!seen.ok) return guard(seen.message);
  const [user, folder, ...rest] = seen.lines;
  if (user !== String(uid)) return guard(`the command ran as uid ${user ?? "(none)"}, not ${uid}`);
  if (folder === `${outside.dev}:${outside.ino}`) return guard("the data dir was still visible");
  if (rest.includes("unmounted")) return guard("the command could unmount the hidden folder");
  if (rest.includes("writable")) return guard("the hidden folder was writable");
  if (rest.length > 0 || folder === undefined) return guard(`unexpected answer: ${seen.lines.join(" ")}`);
  return { protection: "namespaces", hidden, outerShell: tools.sh, enter };
}

function guard(reason: string): BashSandbox {
  return { protection: "guard", reason };
}

/**
 * What the probe runs inside: its uid, the device and inode of the folder it sees at the data
 * dir's path, and whether it could unmount it or write in it (either would end the sandbox).
 */
function probeCommand(dataDir: string, program: (name: string) => string): string {
  const folder = quote(dataDir);
  return [
    `${program("id")} -u`,
    `${program("stat")} -c '%d:%i' -- ${folder}`,
    `if ${program("umount")} -- ${folder} 2>/dev/null; then echo unmounted; fi`,
    `if ( : > ${quote(join(dataDir, ".probe"))} ) 2>/dev/null; then echo writable; fi`,
  ].join("\n");
}

/** A keeper of one folder's namespaces. */
type Keeper = {
  pid: number;
  /** Still alive, and the data dir and the folder are still the ones its namespaces were made over. */
  sound(): boolean;
  close(): void;
};

type KeeperParts = {
  tools: Tools;
  uid: number;
  gid: number;
  /** The data dir first (it must be hidden, or nothing runs), then its other paths. */
  hidden: readonly string[];
  /** The folder the commands run in (the keeper's working folder, which `nsenter --wd` takes). */
  folder: string;
};

/** How long the keeper may take to make its namespaces (a few milliseconds). */
const KEEPER_START_MS = 10_000;

/**
 * Starts a keeper in `parts.folder` and waits until its namespaces are made; rejects, with
 * what went wrong, when they cannot be.
 */
async function openKeeper(parts: KeeperParts): Promise<Keeper> {
  // Device, inode and birth time: a folder removed and made again often gets the same inode.
  const identity = (path: string) => {
    try {
      const seen = statSync(path, { bigint: true });
      return `${seen.dev}:${seen.ino}:${seen.birthtimeNs}`;
    } catch {
      return "gone";
    }
  };
  const [data] = parts.hidden as [string];
  const made = { data: identity(data), folder: identity(parts.folder) };
  let child: ChildProcess;
  try {
    child = spawn(parts.tools.sh, ["-c", keeperText(parts)], {
      cwd: parts.folder,
      stdio: ["pipe", "pipe", "pipe"],
      // Its own process group: a Ctrl-C meant for Pi must not end the sandbox under a command.
      detached: true,
    });
  } catch (error) {
    throw new Error(`the bash sandbox could not start: ${(error as Error).message}`);
  }
  let stderr = "";
  child.stderr?.on("data", (chunk: Buffer) => {
    stderr += chunk.toString("utf8");
  });
  // Nothing is written to the keeper's pipe: it only ends, with this process.
  child.stdin?.on("error", () => {});
  let alive = true;
  child.once("exit", () => {
    alive = false;
  });
  child.once("error", () => {
    alive = false;
  });
  const ready = await new Promise<string | undefined>((resolve) => {
    const timer = setTimeout(() => resolve(`no answer within ${KEEPER_START_MS} ms`), KEEPER_START_MS);
    const lines = createInterface({ input: child.stdout as NodeJS.ReadableStream });
    lines.once("line", (line) => {
      clearTimeout(timer);
      resolve(line === "ready" ? undefined : `unexpected output: ${line}`);
    });
    child.once("error", (error) => {
      clearTimeout(timer);
      resolve(error.message);
    });
    child.once("exit", (code, signal) => {
      clearTimeout(timer);
      // Its stderr may still be on the way: read it once it ends (a process it started may hold
      // it open, so not for ever).
      const said = () => resolve(firstLine(stderr) || `the sandbox ended with ${signal ?? code}`);
      if (child.stderr === null || child.stderr.readableEnded) return said();
      const late = setTimeout(said, STDERR_WAIT_MS);
      child.stderr.once("end", () => {
        clearTimeout(late);
        said();
      });
    });
  });
  const close = () => {
    alive = false;
    child.stdin?.destroy();
    if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
  };
  if (ready !== undefined || child.pid === undefined) {
    close();
    throw new Error(ready ?? "the bash sandbox did not start");
  }
  // The keeper must not keep this process alive; it ends when this process's end closes its pipe.
  child.unref();
  (child.stdout as NodeJS.ReadableStream).resume();
  for (const stream of [child.stdin, child.stdout, child.stderr]) {
    (stream as unknown as { unref?: () => void } | null)?.unref?.();
  }
  keepersAlive.add(close);
  return {
    pid: child.pid,
    sound: () => alive && identity(data) === made.data && identity(parts.folder) === made.folder,
    close: () => {
      keepersAlive.delete(close);
      close();
    },
  };
}

/** Every keeper this process started and has not closed: `closeBashSandboxes` ends them. */
const keepersAlive = new Set<() => void>();

/** Ends every keeper (their namespaces go with the last process in them). For tests and shutdown. */
export function closeBashSandboxes(): void {
  for (const close of keepersAlive) close();
  keepersAlive.clear();
}

/**
 * The keeper's text: in the first namespace the tmpfs is mounted over the data dir and each other
 * path of it still there (a failed mount stops everything), then the nested namespace is made and
 * the keeper says `ready` and waits on its pipe.
 */
export function keeperText(parts: KeeperParts): string {
  const { tools } = parts;
  // -n: no entry in /run/mount/utab (nothing outside the namespace reads it).
  const hide = `${quote(tools.mount)} -n -t tmpfs -o ro,nosuid,nodev,noexec,size=4k,mode=0555 pi-quests`;
  const fail = '{ echo "pi-quests could not hide $1" >&2; exit 126; }';
  const inFirst = [
    `hide() { ${hide} "$1" || ${fail}; }`,
    'hide "$1"; shift',
    'for other do if [ -d "$other" ]; then hide "$other"; fi; done',
    `exec ${quote(tools.unshare)} --user --map-user=${parts.uid} --map-group=${parts.gid} --mount -- ${quote(tools.sh)} -c 'echo ready; read -r _'`,
  ].join("; ");
  return [
    "exec",
    quote(tools.unshare),
    "--user --map-root-user --mount --",
    quote(tools.sh),
    "-c",
    quote(inFirst),
    "sh",
    ...parts.hidden.map(quote),
  ].join(" ");
}

/**
 * The text that runs `shell -c command` in a keeper's namespaces: `nsenter` into its user
 * namespace, then its mount namespace, the learner's uid and groups kept, in its working folder
 * (`--wd` with no folder: the keeper's, opened through /proc; a folder named here would be
 * opened outside, and `..` from it would walk the unhidden tree).
 */
function enterText(tools: Tools, keeper: number, shell: string, command: string): string {
  return [
    "exec",
    quote(tools.nsenter),
    `--target ${keeper} --user --mount --preserve-credentials --wd --`,
    quote(shell),
    "-c",
    quote(command),
  ].join(" ");
}

/** A word for a POSIX shell: single-quoted, each `'` closed, escaped and reopened. */
export function quote(word: string): string {
  return `'${word.replaceAll("'", `'\\''`)}'`;
}

function readMountinfo(): string {
  return readFileSync("/proc/self/mountinfo", "utf8");
}

/** The data dir, made as pi-quests makes it (0700) when it is not there: a mount needs a folder. */
function makeFolder(path: string): void {
  try {
    mkdirSync(path, { recursive: true, mode: 0o700 });
  } catch (error) {
    // Already there, read-only (inside another Pi's sandbox): the mount is made over it anyway.
    if (!existsSync(path)) throw error;
  }
}

function findIn(folders: readonly string[], name: string): string | undefined {
  for (const folder of folders) {
    const path = join(folder, name);
    try {
      accessSync(path, constants.X_OK);
      return path;
    } catch {
      // Not in this folder.
    }
  }
  return undefined;
}

/** How long the probe may take: two namespaces and a mount are a few milliseconds. */
const PROBE_TIMEOUT_MS = 10_000;

/** How long a sandbox that ended waits for the rest of its stderr. */
const STDERR_WAIT_MS = 1_000;

async function runProbe(
  sh: string,
  text: string,
): Promise<{ ok: true; lines: string[] } | { ok: false; message: string }> {
  return new Promise((resolve) => {
    let child: ReturnType<typeof spawn>;
    try {
      child = spawn(sh, ["-c", text], { stdio: ["ignore", "pipe", "pipe"], cwd: "/" });
    } catch (error) {
      resolve({ ok: false, message: (error as Error).message });
      return;
    }
    let stdout = "";
    let stderr = "";
    child.stdout?.on("data", (chunk: Buffer) => {
      stdout += chunk.toString("utf8");
    });
    child.stderr?.on("data", (chunk: Buffer) => {
      stderr += chunk.toString("utf8");
    });
    const timer = setTimeout(() => child.kill("SIGKILL"), PROBE_TIMEOUT_MS);
    child.once("error", (error) => {
      clearTimeout(timer);
      resolve({ ok: false, message: error.message });
    });
    child.once("close", (code, signal) => {
      clearTimeout(timer);
      if (code === 0) resolve({ ok: true, lines: stdout.split("\n").filter((line) => line !== "") });
      else resolve({ ok: false, message: firstLine(stderr) || `the probe ended with ${signal ?? code}` });
    });
  });
}

function firstLine(text: string): string {
  return text.trim().split("\n")[0] ?? "";
}
