/**
 * A client of the real `pi` in RPC mode (`pi --mode rpc`: one JSON command a line on stdin, one
 * JSON line a response or event on stdout). What a play runner drives, and what the demo and the
 * end-to-end tests drive through scripts/pi-rpc.ts. It sends commands and prompts, waits for
 * their answers, keeps every line Pi printed, reads back what an extension showed (every
 * `setWidget`, `setStatus` and `notify`), and answers dialogs.
 *
 * Nothing is chosen for the caller: which Pi (`cli`), its flags, the extensions, the folder and
 * the whole environment (nothing of this process's environment is passed unless given).
 */
import { type ChildProcess, spawn } from "node:child_process";
import { createInterface } from "node:readline";

export type RpcLine = { type: string; [key: string]: unknown };
export type UiRequest = RpcLine & { type: "extension_ui_request"; id: string; method: string };

export type PiRpcClientOptions = {
  /** Pi's entry script (`…/pi-coding-agent/dist/bundle/cli.js`), run with `node`. */
  cli: string;
  /** The Node that runs it (default: this process's). */
  node?: string;
  /** The folder Pi runs in. */
  cwd: string;
  /** Pi's whole environment. */
  env: Record<string, string>;
  /** Loaded with `-e`, in this order, after `args`. */
  extensions?: readonly string[];
  /** Pi's flags besides `--mode rpc` (e.g. `--offline`, `--provider`, `--model`, `--no-session`). */
  args?: readonly string[];
  /** Runs the command through something else (e.g. `nsenter` into a PID namespace). */
  wrap?(file: string, args: string[]): { file: string; args: string[] };
  /** Starts Pi as the leader of its own process group (see src/probes/os/group-leader.ts). */
  detached?: boolean;
  /** How long a wait lasts unless a call says otherwise (default 45 s). */
  waitMs?: number;
};

export type PiRpcClient = {
  /** The process started (Pi, or the wrapper around it). */
  readonly pid: number | undefined;
  /** Every JSON line Pi printed, in order. */
  readonly lines: readonly RpcLine[];
  send(command: Record<string, unknown>): void;
  /**
   * Sends a command with a fresh id and waits for its response (a prompt that starts a run is
   * answered when it starts; see `prompt` to wait for the run). Throws when Pi answers with
   * `success: false`, unless `allowFailure`.
   */
  request(
    command: Record<string, unknown>,
    options?: { allowFailure?: boolean; timeoutMs?: number },
  ): Promise<RpcLine>;
  /**
   * Sends a prompt (a message, or a slash command) and waits until Pi answered it; when it started
   * a run, until the run settled (`agent_settled`). Throws when Pi refuses it.
   */
  prompt(message: string, options?: { timeoutMs?: number }): Promise<RpcLine>;
  /** The first line from index `from` on that satisfies `test`; rejects on a timeout or Pi's exit. */
  waitFor(test: (line: RpcLine) => boolean, from?: number, timeoutMs?: number): Promise<RpcLine>;
  /** Calls `listener` with each line from now on; returns what stops it. */
  onLine(listener: (line: RpcLine, index: number) => void): () => void;
  /** The UI requests (dialogs, HUD, notifications) from index `from` on, of one method or all. */
  uiRequests(method?: string, from?: number): UiRequest[];
  /** The widget lines of every setWidget from index `from` on, in order. */
  widgets(from?: number): string[][];
  statuses(from?: number): string[];
  notifications(from?: number): string[];
  /** The HUD as it stands: the last widget and status. */
  hud(): { widget: string[] | undefined; status: string | undefined };
  /** Answers a dialog (`confirmed` for a confirm, `value` for a select or input, or `cancelled`). */
  respond(request: UiRequest, answer: { confirmed: boolean } | { value: string } | { cancelled: true }): void;
  /** Answers the next confirm dialog from index `from` on. */
  answerConfirm(confirmed: boolean, from?: number): Promise<UiRequest>;
  stderr(): string;
  /** Resolves when the process has exited, with its code (null when a signal ended it). */
  readonly exited: Promise<number | null>;
  /** Ends stdin (Pi shuts down) and waits for the exit; SIGKILL after `graceMs` (15 s). */
  close(options?: { graceMs?: number }): Promise<number | null>;
  kill(): void;
};

const WAIT_MS = 45_000;
const GRACE_MS = 15_000;

export const isUiRequest = (line: RpcLine, method?: string): line is UiRequest =>
  line.type === "extension_ui_request" && (method === undefined || line.method === method);

export function startPiRpcClient(options: PiRpcClientOptions): PiRpcClient {
  const waitMs = options.waitMs ?? WAIT_MS;
  const piArgs = [
    options.cli,
    "--mode",
    "rpc",
    ...(options.args ?? []),
    ...(options.extensions ?? []).flatMap((extension) => ["-e", extension]),
  ];
  const node = options.node ?? process.execPath;
  const command = options.wrap ? options.wrap(node, piArgs) : { file: node, args: piArgs };
  const child: ChildProcess = spawn(command.file, command.args, {
    cwd: options.cwd,
    env: options.env,
    stdio: ["pipe", "pipe", "pipe"],
    ...(options.detached ? { detached: true } : {}),
  });
  const lines: RpcLine[] = [];
  const listeners = new Set<(line: RpcLine, index: number) => void>();
  let stderr = "";
  const waiters = new Set<() => void>();
  let exitCode: number | null | undefined;
  const exited = new Promise<number | null>((resolve) => {
    const done = (code: number | null) => {
      if (exitCode !== undefined) return;
      exitCode = code;
      for (const wake of waiters) wake();
      resolve(code);
    };
    child.on("exit", (code) => done(code));
    child.on("error", (error) => {
      stderr += `${error.message}\n`;
      done(null);
    });
  });
  // Pi may be gone before it read everything sent.
  child.stdin?.on("error", () => {});
  child.stderr?.on("data", (chunk: Buffer) => {
    stderr += chunk.toString("utf8");
  });
  createInterface({ input: child.stdout as NodeJS.ReadableStream }).on("line", (text) => {
    if (!text.startsWith("{")) return;
    let line: RpcLine;
    try {
      line = JSON.parse(text) as RpcLine;
    } catch {
      return;
    }
    lines.push(line);
    for (const listener of listeners) listener(line, lines.length - 1);
    for (const wake of waiters) wake();
  });

  const waitFor = (test: (line: RpcLine) => boolean, from = 0, timeoutMs = waitMs): Promise<RpcLine> =>
    new Promise((resolve, reject) => {
      let seen = from;
      const check = () => {
        for (; seen < lines.length; seen++) {
          const line = lines[seen] as RpcLine;
          if (test(line)) return finish(() => resolve(line));
        }
        if (exitCode !== undefined)
          finish(() => reject(new Error(`pi exited (${exitCode}) first.\n${stderr}`)));
      };
      const timer = setTimeout(
        () =>
          finish(() =>
            reject(new Error(`timed out after ${timeoutMs} ms waiting in pi's RPC output.\n${stderr}`)),
          ),
        timeoutMs,
      );
      const finish = (settle: () => void) => {
        clearTimeout(timer);
        waiters.delete(check);
        settle();
      };
      waiters.add(check);
      check();
    });

  const send = (command: Record<string, unknown>) => {
    child.stdin?.write(`${JSON.stringify(command)}\n`);
  };

  let requests = 0;
  const freshId = () => `rpc-${++requests}-${Math.random().toString(16).slice(2)}`;
  const answered = async (id: string, from: number, timeoutMs: number | undefined) =>
    waitFor((line) => line.type === "response" && line.id === id, from, timeoutMs);

  const uiRequests = (method?: string, from = 0) =>
    lines.slice(from).filter((line): line is UiRequest => isUiRequest(line, method));

  const client: PiRpcClient = {
    get pid() {
      return child.pid;
    },
    lines,
    send,
    waitFor,
    exited,
    async request(command, { allowFailure = false, timeoutMs } = {}) {
      const id = freshId();
      const from = lines.length;
      send({ ...command, id });
      const response = await answered(id, from, timeoutMs);
      if (!response.success && !allowFailure) {
        throw new Error(`pi refused ${JSON.stringify(command)}: ${JSON.stringify(response)}`);
      }
      return response;
    },
    async prompt(message, { timeoutMs } = {}) {
      const id = freshId();
      const from = lines.length;
      send({ id, type: "prompt", message });
      const response = await answered(id, from, timeoutMs);
      if (!response.success) throw new Error(`pi refused the prompt: ${JSON.stringify(response)}`);
      if ((response.data as { disposition?: string } | undefined)?.disposition === "started") {
        await waitFor((line) => line.type === "agent_settled", from, timeoutMs);
      }
      return response;
    },
    onLine(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    uiRequests,
    widgets: (from = 0) =>
      uiRequests("setWidget", from).map((line) => (line.widgetLines as string[] | undefined) ?? []),
    statuses: (from = 0) => uiRequests("setStatus", from).map((line) => String(line.statusText ?? "")),
    notifications: (from = 0) => uiRequests("notify", from).map((line) => String(line.message)),
    hud() {
      return { widget: client.widgets().at(-1), status: client.statuses().at(-1) };
    },
    respond(request, answer) {
      send({ type: "extension_ui_response", id: request.id, ...answer });
    },
    async answerConfirm(confirmed, from = 0) {
      const request = (await waitFor((line) => isUiRequest(line, "confirm"), from)) as UiRequest;
      client.respond(request, { confirmed });
      return request;
    },
    stderr: () => stderr,
    async close({ graceMs = GRACE_MS } = {}) {
      child.stdin?.end();
      const timer = setTimeout(() => child.kill("SIGKILL"), graceMs);
      const code = await exited;
      clearTimeout(timer);
      return code;
    },
    kill() {
      child.kill("SIGKILL");
    },
  };
  return client;
}
