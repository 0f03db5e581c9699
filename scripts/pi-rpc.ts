/**
 * The real `pi` in RPC mode, offline, with the scripted model and (by default) the pi-quests
 * extension: what `npm run demo` and the end-to-end tests drive. A caller sends prompts and slash commands, answers dialogs, and reads back exactly
 * what the extension showed: every `setWidget`, `setStatus` and `notify` Pi emitted.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { createInterface } from "node:readline";

const REPO = resolve(import.meta.dirname, "..");
export const PI = join(REPO, "node_modules/@earendil-works/pi-coding-agent/dist/bundle/cli.js");
export const SCRIPTED_MODEL = join(REPO, "fixtures/pi/scripted-model.ts");
export const EXTENSION = join(REPO, "src/extension/index.ts");
/** A test-only extension for what RPC cannot do natively (nested tool calls, /tree, labels, a blocker). */
export const TEST_CONTROLS = join(REPO, "fixtures/pi/test-controls.ts");

/** A JSON value, as a tool call's arguments hold them. */
export type JsonValue = string | number | boolean | null | JsonValue[] | { [key: string]: JsonValue };
/**
 * One scripted model turn: text, or tool calls (fixtures/pi/scripted-model.ts plays them in
 * order; summarization requests do not use up a turn); `delayMs` makes it answer that much later
 * (an abort ends the wait).
 */
export type ScriptedTurn = {
  text?: string;
  tools?: Array<{ name: string; arguments: Record<string, JsonValue> }>;
  delayMs?: number;
};
/** Longer than the extension's turn-end debounce (250 ms) with room for a slow machine. */
const QUIET_MS = 800;
const WAIT_MS = 45_000;

export type RpcLine = { type: string; [key: string]: unknown };
export type UiRequest = RpcLine & { type: "extension_ui_request"; id: string; method: string };

export type PiRpcOptions = {
  workspace: string;
  /** The agent dir (PI_CODING_AGENT_DIR); a fresh temporary one by default. Reuse it to restart. */
  agentDir?: string;
  script?: ScriptedTurn[];
  /** Load pi-quests with `-e` (default true); false to rely on an installed package. */
  withExtension?: boolean;
  /** PI_QUESTS_PACK: a quest pack other than the built-in one. */
  pack?: string;
  /** Keep a session file (default: --no-session). */
  session?: boolean;
  /** More extensions to load with `-e`, after the scripted model and pi-quests. */
  extensions?: string[];
  env?: Record<string, string>;
};

export type PiRpc = {
  readonly agentDir: string;
  readonly lines: RpcLine[];
  /** Sends a prompt and waits until Pi answered the request; a started run is waited for too. */
  prompt(message: string): Promise<RpcLine>;
  send(command: Record<string, unknown>): void;
  /**
   * Sends a command with a fresh id and waits for its response (a prompt that starts a run is
   * answered when it starts; see `prompt` to wait for the run). Throws when Pi answers with
   * `success: false`, unless `allowFailure`.
   */
  request(command: Record<string, unknown>, options?: { allowFailure?: boolean }): Promise<RpcLine>;
  /** Waits for the first line from index `from` on that satisfies `test` (45 s unless `timeoutMs`). */
  waitFor(test: (line: RpcLine) => boolean, from?: number, timeoutMs?: number): Promise<RpcLine>;
  /** Waits until no HUD update has come for a while and the last one is not "checking…". */
  settled(): Promise<void>;
  /** The widget lines of every setWidget from index `from` on, in order. */
  widgets(from?: number): string[][];
  statuses(from?: number): string[];
  notifications(from?: number): string[];
  /** The HUD as it stands: the last widget and status. */
  hud(): { widget: string[] | undefined; status: string | undefined };
  /** Answers the next confirm dialog from index `from` on. */
  answerConfirm(confirmed: boolean, from?: number): Promise<UiRequest>;
  stderr(): string;
  /** Closes stdin and waits for Pi to exit; returns its exit code. */
  close(): Promise<number | null>;
  kill(): void;
};

/**
 * pi's flags for an offline run with the scripted model: `--offline`, `--no-session` unless a
 * session is wanted, the scripted model's extension, pi-quests' unless left out, and the model.
 */
export function scriptedPiArgs(
  options: { extension?: boolean; session?: boolean; extensions?: string[] } = {},
): string[] {
  return [
    "--offline",
    ...(options.session ? [] : ["--no-session"]),
    "-e",
    SCRIPTED_MODEL,
    ...(options.extension === false ? [] : ["-e", EXTENSION]),
    ...(options.extensions ?? []).flatMap((extension) => ["-e", extension]),
    "--provider",
    "scripted",
    "--model",
    "scripted-1",
  ];
}

/**
 * pi's environment for a scripted run: the agent dir (also HOME, so nothing of the real home is
 * read or written), the script, no system git config, and a git identity for the learner's commits.
 */
export function scriptedPiEnv(agentDir: string, scriptFile: string): Record<string, string> {
  const name = "Learner";
  const email = "learner@example.com";
  return {
    PI_CODING_AGENT_DIR: agentDir,
    PI_QUESTS_SCRIPT: scriptFile,
    HOME: agentDir,
    GIT_CONFIG_NOSYSTEM: "1",
    GIT_AUTHOR_NAME: name,
    GIT_AUTHOR_EMAIL: email,
    GIT_COMMITTER_NAME: name,
    GIT_COMMITTER_EMAIL: email,
  };
}

const isUi = (line: RpcLine, method: string): line is UiRequest =>
  line.type === "extension_ui_request" && line.method === method;

export function startPiRpc(options: PiRpcOptions): PiRpc {
  const agentDir = options.agentDir ?? mkdtempSync(join(tmpdir(), "pi-quests-agent-"));
  mkdirSync(agentDir, { recursive: true });
  const scriptFile = join(agentDir, `script-${Date.now()}-${Math.random().toString(16).slice(2)}.json`);
  writeFileSync(scriptFile, JSON.stringify(options.script ?? []));
  const args = [
    PI,
    "--mode",
    "rpc",
    ...scriptedPiArgs({
      extension: options.withExtension !== false,
      session: options.session === true,
      extensions: options.extensions,
    }),
  ];
  const child: ChildProcess = spawn(process.execPath, args, {
    cwd: options.workspace,
    env: {
      PATH: process.env.PATH ?? "",
      ...scriptedPiEnv(agentDir, scriptFile),
      ...(options.pack ? { PI_QUESTS_PACK: options.pack } : {}),
      ...options.env,
    },
    stdio: ["pipe", "pipe", "pipe"],
  });
  const lines: RpcLine[] = [];
  let stderr = "";
  const waiters = new Set<() => void>();
  let exited: number | null | undefined;
  const exit = new Promise<number | null>((resolve) => {
    child.on("exit", (code) => {
      exited = code;
      for (const wake of waiters) wake();
      resolve(code);
    });
  });
  child.stderr?.on("data", (chunk: Buffer) => {
    stderr += chunk.toString("utf8");
  });
  createInterface({ input: child.stdout as NodeJS.ReadableStream }).on("line", (text) => {
    if (!text.startsWith("{")) return;
    try {
      lines.push(JSON.parse(text) as RpcLine);
    } catch {
      return;
    }
    for (const wake of waiters) wake();
  });

  const waitFor = (test: (line: RpcLine) => boolean, from = 0, timeoutMs = WAIT_MS): Promise<RpcLine> =>
    new Promise((resolve, reject) => {
      const check = () => {
        const found = lines.slice(from).find(test);
        if (found) return finish(() => resolve(found));
        if (exited !== undefined) finish(() => reject(new Error(`pi exited (${exited}) first.\n${stderr}`)));
      };
      const timer = setTimeout(
        () => finish(() => reject(new Error(`timed out waiting in pi's RPC output.\n${stderr}`))),
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

  const hudUpdates = (from = 0) =>
    lines.slice(from).filter((line) => isUi(line, "setWidget") || isUi(line, "setStatus"));

  let requests = 0;
  const pi: PiRpc = {
    agentDir,
    lines,
    send,
    waitFor,
    async request(command, { allowFailure = false } = {}) {
      const id = `rpc-${++requests}-${Math.random().toString(16).slice(2)}`;
      const from = lines.length;
      send({ ...command, id });
      const response = await waitFor((line) => line.type === "response" && line.id === id, from);
      if (!response.success && !allowFailure) {
        throw new Error(`pi refused ${JSON.stringify(command)}: ${JSON.stringify(response)}`);
      }
      return response;
    },
    async prompt(message) {
      const id = `req-${lines.length}-${Math.random().toString(16).slice(2)}`;
      const from = lines.length;
      send({ id, type: "prompt", message });
      const response = await waitFor((line) => line.type === "response" && line.id === id, from);
      if (!response.success) throw new Error(`pi refused the prompt: ${JSON.stringify(response)}`);
      if ((response.data as { disposition?: string } | undefined)?.disposition === "started") {
        await waitFor((line) => line.type === "agent_settled", from);
      }
      return response;
    },
    async settled() {
      const deadline = Date.now() + WAIT_MS;
      for (;;) {
        const count = hudUpdates().length;
        await new Promise((resolve) => setTimeout(resolve, QUIET_MS));
        const [title = ""] = pi.hud().widget ?? [];
        if (hudUpdates().length === count && count > 0 && !title.includes("checking…")) return;
        if (exited !== undefined) throw new Error(`pi exited (${exited}).\n${stderr}`);
        if (Date.now() > deadline) throw new Error(`the HUD never settled.\n${stderr}`);
      }
    },
    widgets: (from = 0) =>
      lines
        .slice(from)
        .filter((line) => isUi(line, "setWidget"))
        .map((line) => (line.widgetLines as string[] | undefined) ?? []),
    statuses: (from = 0) =>
      lines
        .slice(from)
        .filter((line) => isUi(line, "setStatus"))
        .map((line) => String(line.statusText ?? "")),
    notifications: (from = 0) =>
      lines
        .slice(from)
        .filter((line) => isUi(line, "notify"))
        .map((line) => String(line.message)),
    hud() {
      const widgets = pi.widgets();
      const statuses = pi.statuses();
      return { widget: widgets.at(-1), status: statuses.at(-1) };
    },
    async answerConfirm(confirmed, from = 0) {
      const request = (await waitFor((line) => isUi(line, "confirm"), from)) as UiRequest;
      send({ type: "extension_ui_response", id: request.id, confirmed });
      return request;
    },
    stderr: () => stderr,
    async close() {
      child.stdin?.end();
      const timer = setTimeout(() => child.kill("SIGKILL"), 15_000);
      const code = await exit;
      clearTimeout(timer);
      return code;
    },
    kill() {
      child.kill("SIGKILL");
    },
  };
  return pi;
}
