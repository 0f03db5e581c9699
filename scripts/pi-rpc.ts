/**
 * The real `pi` in RPC mode, offline, with the test fixture's scripted model and (by default) the
 * pi-quests extension: what `npm run demo` and the end-to-end tests drive. A caller sends prompts
 * and slash commands, answers dialogs, and reads back exactly what the extension showed: every
 * `setWidget`, `setStatus` and `notify` Pi emitted. The client itself is pi-quests' own
 * (src/cli/plays/pi-rpc.ts); this module chooses the test defaults: which Pi, the flags, the
 * fixture's model and its script, and an environment with nothing of the real home in it.
 */
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { type PiRpcClient, type RpcLine, startPiRpcClient, type UiRequest } from "../src/cli/plays/pi-rpc.ts";

export type { RpcLine, UiRequest };

const REPO = resolve(import.meta.dirname, "..");
export const PI = join(REPO, "node_modules/@earendil-works/pi-coding-agent/dist/bundle/cli.js");
/** The previous minor's Pi (the dev dependency `pi-previous`, src/core/pi-versions.ts). */
export const PI_PREVIOUS = join(REPO, "node_modules/pi-previous/dist/bundle/cli.js");
export const SCRIPTED_MODEL = join(REPO, "fixtures/pi/scripted-model.ts");
export const EXTENSION = join(REPO, "src/extension/index.ts");
/** A test-only extension for what RPC cannot do natively (nested tool calls, /tree, labels, a blocker). */
export const TEST_CONTROLS = join(REPO, "fixtures/pi/test-controls.ts");
/** A test-only extension whose `bash` is Pi's plain tool: another extension overriding `bash`. */
export const PLAIN_BASH = join(REPO, "fixtures/pi/plain-bash.ts");
/** The play controls (`/pi-quests-play reload`, ...): Pi's terminal-only commands over RPC. */
export const PLAY_CONTROLS = join(REPO, "src/extension/play-controls.ts");

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

export type PiRpcOptions = {
  workspace: string;
  /** Which Pi: its cli.js (default PI, the checkout's dev dependency; tests use the previous minor's too). */
  pi?: string;
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
  /** Extensions to load with `-e` before pi-quests (a tool they register of a name wins over its). */
  extensionsBefore?: string[];
  /** `--approve`: the project is trusted, so Pi loads its `.pi/extensions/` (RPC cannot ask). */
  approve?: boolean;
  /** Load the scripted model and select it (default true); false: a Pi with no model, as a new learner's. */
  scriptedModel?: boolean;
  env?: Record<string, string>;
};

export type PiRpc = {
  readonly agentDir: string;
  /** Pi's process. */
  readonly pid: number | undefined;
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
  /** Waits until no HUD update has come for a while and the last one is not "checking…" or "reviewing…". */
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
  options: {
    extension?: boolean;
    session?: boolean;
    extensions?: string[];
    extensionsBefore?: string[];
    approve?: boolean;
    scriptedModel?: boolean;
  } = {},
): string[] {
  const scripted = options.scriptedModel !== false;
  return [
    "--offline",
    ...(options.approve ? ["--approve"] : []),
    ...(options.session ? [] : ["--no-session"]),
    ...(scripted ? ["-e", SCRIPTED_MODEL] : []),
    ...(options.extensionsBefore ?? []).flatMap((extension) => ["-e", extension]),
    ...(options.extension === false ? [] : ["-e", EXTENSION]),
    ...(options.extensions ?? []).flatMap((extension) => ["-e", extension]),
    ...(scripted ? ["--provider", "scripted", "--model", "scripted-1"] : []),
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

export function startPiRpc(options: PiRpcOptions): PiRpc {
  const agentDir = options.agentDir ?? mkdtempSync(join(tmpdir(), "pi-quests-agent-"));
  mkdirSync(agentDir, { recursive: true });
  const scriptFile = join(agentDir, `script-${Date.now()}-${Math.random().toString(16).slice(2)}.json`);
  writeFileSync(scriptFile, JSON.stringify(options.script ?? []));
  const client: PiRpcClient = startPiRpcClient({
    cli: options.pi ?? PI,
    cwd: options.workspace,
    args: scriptedPiArgs({
      extension: options.withExtension !== false,
      session: options.session === true,
      extensions: options.extensions,
      extensionsBefore: options.extensionsBefore,
      approve: options.approve,
      scriptedModel: options.scriptedModel,
    }),
    env: {
      PATH: process.env.PATH ?? "",
      ...scriptedPiEnv(agentDir, scriptFile),
      ...(options.pack ? { PI_QUESTS_PACK: options.pack } : {}),
      ...options.env,
    },
    waitMs: WAIT_MS,
  });
  const hudUpdates = () => [...client.uiRequests("setWidget"), ...client.uiRequests("setStatus")];
  const pi: PiRpc = {
    agentDir,
    get pid() {
      return client.pid;
    },
    lines: client.lines as RpcLine[],
    prompt: (message) => client.prompt(message),
    send: client.send,
    request: (command, { allowFailure = false } = {}) => client.request(command, { allowFailure }),
    waitFor: client.waitFor,
    async settled() {
      const deadline = Date.now() + WAIT_MS;
      let exited: number | null | undefined;
      void client.exited.then((code) => {
        exited = code;
      });
      for (;;) {
        const count = hudUpdates().length;
        await new Promise((resolve) => setTimeout(resolve, QUIET_MS));
        const [title = ""] = pi.hud().widget ?? [];
        if (hudUpdates().length === count && count > 0 && !/checking…|reviewing/.test(title)) return;
        if (exited !== undefined) throw new Error(`pi exited (${exited}).\n${client.stderr()}`);
        if (Date.now() > deadline) throw new Error(`the HUD never settled.\n${client.stderr()}`);
      }
    },
    widgets: client.widgets,
    statuses: client.statuses,
    notifications: client.notifications,
    hud: client.hud,
    answerConfirm: client.answerConfirm,
    stderr: client.stderr,
    close: () => client.close(),
    kill: client.kill,
  };
  return pi;
}
