/**
 * A local npm registry for the release tests: verdaccio (a pinned dev dependency) on loopback,
 * with no uplink, so only what a test publishes can be installed and nothing reaches another
 * registry. Its config, storage and users file live in a temporary folder; the web UI is off and
 * nobody can sign up (`max_users: -1`); anyone may publish, which is all a test needs.
 *
 * verdaccio renames itself (`process.title = "verdaccio"`), so its command line no longer names
 * the config: it is found and stopped only by the pid `spawn` returned, never by name. It runs in
 * its own process group (detached), so the group can be killed if SIGTERM is not enough. Every
 * process of a run carries a marker in its environment (`MARKER`), which is how a test proves
 * afterwards that none is left: verdaccio, and every npm or pi started with `env`.
 *
 * Each step is bounded: the start (a clear error when verdaccio exits early or never answers
 * `GET /-/ping`, with what it printed), each publish, the stop.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { get } from "node:http";
import { connect, createServer } from "node:net";
import { tmpdir } from "node:os";
import { delimiter, dirname, join, resolve } from "node:path";
import { execa } from "execa";

const REPO = resolve(import.meta.dirname, "../..");
export const VERDACCIO = join(REPO, "node_modules/verdaccio/bin/verdaccio");
/** The environment variable every process of a run carries; its value is the run's id. */
export const MARKER = "PI_QUESTS_REGISTRY_RUN";
/** Any token will do (`publish: $all`); npm 11 refuses to publish without one (ENEEDAUTH). */
const TOKEN = "pi-quests-test";
const HOST = "127.0.0.1";
const START_MS = 30_000;
const STEP_MS = 60_000;
const STOP_MS = 5_000;
const PING_EVERY_MS = 50;
const LOG_LIMIT = 64 * 1024;

export type RegistryOptions = {
  /** How long verdaccio may take to answer `/-/ping` (30 s by default). */
  startTimeoutMs?: number;
  /** The script to run instead of verdaccio's (a test of the failure paths). */
  verdaccio?: string;
  /** A fixed port instead of a free one (a test of the failure paths). */
  port?: number;
  /** How long a stop waits after SIGTERM before it kills the group (5 s by default). */
  stopGraceMs?: number;
};

export type LocalRegistry = {
  /** `http://127.0.0.1:PORT/`, as npm wants it. */
  readonly url: string;
  readonly port: number;
  readonly pid: number;
  /** The run's id, the value of `MARKER` in every process of the run. */
  readonly run: string;
  /** The temporary folder: config, storage, the client's home, npm config and cache. */
  readonly root: string;
  /** The client's home: an empty folder, so nothing of the real home is read. */
  readonly home: string;
  /**
   * A complete environment for npm and pi (use it with `extendEnv: false`): PATH (this Node's
   * folder first), the temporary home, npm's user and global config in the temporary folder (the
   * user one holds the token), the registry, a temporary cache, no update notifier, audit or
   * fund requests, and the marker.
   */
  readonly env: Record<string, string>;
  /** `npm publish <tarball>`; returns npm's output, throws with it when npm fails. */
  publish(tarball: string): Promise<string>;
  /** What verdaccio printed (its last 64 KB). */
  log(): string;
  /** Stops verdaccio by its pid (SIGTERM, then SIGKILL to its group) and removes the folder. */
  stop(): Promise<void>;
};

/** verdaccio exited or never answered; it has been stopped. `run` and `pid` say which it was. */
export class RegistryStartError extends Error {
  readonly run: string;
  readonly pid: number;
  constructor(message: string, run: string, pid: number) {
    super(message);
    this.name = "RegistryStartError";
    this.run = run;
    this.pid = pid;
  }
}

/** Starts verdaccio on a free loopback port and waits until it answers `GET /-/ping`. */
export async function startLocalRegistry(options: RegistryOptions = {}): Promise<LocalRegistry> {
  const root = mkdtempSync(join(tmpdir(), "pi-quests-registry-"));
  const run = root.slice(root.lastIndexOf("-") + 1);
  const port = options.port ?? (await freePort());
  const url = `http://${HOST}:${port}/`;
  const config = writeConfig(root);
  const env = clientEnv(root, port, run);
  const child = spawn(
    process.execPath,
    [options.verdaccio ?? VERDACCIO, "--config", config, "--listen", `${HOST}:${port}`],
    {
      cwd: root,
      detached: true,
      stdio: ["ignore", "pipe", "pipe"],
      env: { PATH: process.env.PATH ?? "", HOME: env.HOME ?? root, [MARKER]: run },
    },
  );
  const pid = child.pid;
  if (pid === undefined) {
    rmSync(root, { recursive: true, force: true });
    throw new Error(`verdaccio did not start (${process.execPath} ${VERDACCIO}): no pid`);
  }
  let output = "";
  const keep = (chunk: Buffer) => {
    output = (output + chunk.toString("utf8")).slice(-LOG_LIMIT);
  };
  child.stdout?.on("data", keep);
  child.stderr?.on("data", keep);
  const exit = exitOf(child);
  const stop = () =>
    stopGroup(child, pid, exit, options.stopGraceMs ?? STOP_MS).finally(() =>
      rmSync(root, { recursive: true, force: true }),
    );

  try {
    await waitForPing(url, exit, options.startTimeoutMs ?? START_MS);
  } catch (error) {
    await stop();
    throw new RegistryStartError(
      `${(error as Error).message}\nverdaccio printed:\n${output || "(nothing)"}`,
      run,
      pid,
    );
  }
  return {
    url,
    port,
    pid,
    run,
    root,
    home: env.HOME ?? root,
    env,
    publish: (tarball) => publish(tarball, env),
    log: () => output,
    stop,
  };
}

function writeConfig(root: string): string {
  const storage = join(root, "storage");
  mkdirSync(storage);
  const htpasswd = join(root, "htpasswd");
  writeFileSync(htpasswd, "");
  const config = join(root, "config.yaml");
  writeFileSync(
    config,
    [
      `storage: ${JSON.stringify(storage)}`,
      "auth:",
      "  htpasswd:",
      `    file: ${JSON.stringify(htpasswd)}`,
      "    max_users: -1",
      "uplinks: {}",
      "packages:",
      "  '**':",
      "    access: $all",
      "    publish: $all",
      "    unpublish: $all",
      "web:",
      "  enable: false",
      "log: { type: stdout, format: json, level: warn }",
      "",
    ].join("\n"),
  );
  return config;
}

function clientEnv(root: string, port: number, run: string): Record<string, string> {
  const home = join(root, "home");
  mkdirSync(home);
  const userconfig = join(root, "npmrc");
  writeFileSync(userconfig, `//${HOST}:${port}/:_authToken=${TOKEN}\n`);
  const globalconfig = join(root, "npmrc-global");
  writeFileSync(globalconfig, "");
  return {
    // This Node first, so `npm` (Pi's too: it runs the `npm` on PATH) is the npm beside it, if any.
    PATH: [dirname(process.execPath), process.env.PATH ?? ""].join(delimiter),
    HOME: home,
    npm_config_userconfig: userconfig,
    npm_config_globalconfig: globalconfig,
    npm_config_registry: `http://${HOST}:${port}/`,
    npm_config_cache: join(root, "npm-cache"),
    npm_config_update_notifier: "false",
    npm_config_audit: "false",
    npm_config_fund: "false",
    [MARKER]: run,
  };
}

/** A port the machine had free a moment ago: bound on loopback with port 0, then released. */
function freePort(): Promise<number> {
  return new Promise((resolvePort, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, HOST, () => {
      const address = server.address();
      const port = typeof address === "object" && address ? address.port : 0;
      server.close(() => (port ? resolvePort(port) : reject(new Error("no port from 127.0.0.1:0"))));
    });
  });
}

type Exit = { code: number | null; signal: NodeJS.Signals | null };

function exitOf(child: ChildProcess): Promise<Exit> {
  return new Promise((resolveExit) => {
    child.once("exit", (code, signal) => resolveExit({ code, signal }));
    child.once("error", () => resolveExit({ code: null, signal: null }));
  });
}

async function waitForPing(url: string, exit: Promise<Exit>, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let exited: Exit | undefined;
  void exit.then((how) => {
    exited = how;
  });
  for (;;) {
    if (exited)
      throw new Error(
        `verdaccio exited (${exited.signal ?? `code ${exited.code}`}) before answering ${url}-/ping`,
      );
    if (await pings(url)) return;
    if (Date.now() > deadline)
      throw new Error(`verdaccio did not answer ${url}-/ping within ${timeoutMs} ms`);
    await new Promise((wake) => setTimeout(wake, PING_EVERY_MS));
  }
}

/** One `GET /-/ping`, on a connection of its own (no pooled socket outlives the registry). */
function pings(url: string): Promise<boolean> {
  return new Promise((answer) => {
    const request = get(`${url}-/ping`, { agent: false, timeout: 2_000 }, (response) => {
      response.resume();
      answer(response.statusCode === 200);
    });
    request.once("timeout", () => request.destroy());
    request.once("error", () => answer(false));
  });
}

function within<T>(promise: Promise<T>, ms: number): Promise<T | "timeout"> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<"timeout">((wake) => {
    timer = setTimeout(() => wake("timeout"), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

/** SIGTERM to the pid; if it has not exited in time, SIGKILL to its group; then anything left in the group. */
async function stopGroup(
  child: ChildProcess,
  pid: number,
  exit: Promise<Exit>,
  grace: number,
): Promise<void> {
  if (child.exitCode === null && child.signalCode === null) {
    signal(pid, "SIGTERM");
    if ((await within(exit, grace)) === "timeout") {
      signal(-pid, "SIGKILL");
      if ((await within(exit, STOP_MS)) === "timeout")
        throw new Error(`verdaccio (pid ${pid}) did not exit after SIGKILL`);
    }
  }
  // A process it started would still be in its group (the group id stays taken while it has members).
  signal(-pid, "SIGKILL");
  child.stdout?.destroy();
  child.stderr?.destroy();
}

function signal(pid: number, name: NodeJS.Signals): void {
  try {
    process.kill(pid, name);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "ESRCH") throw error;
  }
}

async function publish(tarball: string, env: Record<string, string>): Promise<string> {
  const result = await execa("npm", ["publish", tarball], {
    cwd: env.HOME,
    env,
    extendEnv: false,
    reject: false,
    stdin: "ignore",
    timeout: STEP_MS,
  });
  const output = `${result.stdout}\n${result.stderr}`.trim();
  if (result.exitCode !== 0)
    throw new Error(`npm publish ${tarball} failed (${result.exitCode}):\n${output}`);
  return output;
}

/** The pids of this machine's processes whose environment carries the run's marker. */
export function processesOfRun(run: string): number[] {
  const wanted = `${MARKER}=${run}`;
  const found: number[] = [];
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const environ = readFileSync(`/proc/${entry}/environ`, "utf8");
      if (environ.split("\0").includes(wanted)) found.push(Number(entry));
    } catch {
      // Gone meanwhile, or not ours to read.
    }
  }
  return found;
}

/** Whether anything accepts a connection on the loopback port. */
export function listening(port: number): Promise<boolean> {
  return new Promise((answer) => {
    const socket = connect({ host: HOST, port });
    socket.setTimeout(2_000);
    socket.once("connect", () => {
      socket.destroy();
      answer(true);
    });
    socket.once("timeout", () => {
      socket.destroy();
      answer(true);
    });
    socket.once("error", () => answer(false));
  });
}
