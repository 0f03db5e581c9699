import { stat } from "node:fs/promises";
import { homedir } from "node:os";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { ReadBuffer, serializeMessage } from "@modelcontextprotocol/sdk/shared/stdio.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import { ErrorCode, type JSONRPCMessage, McpError } from "@modelcontextprotocol/sdk/types.js";
import { execa, type ResultPromise } from "execa";
import type { McpOutcome, McpRequest } from "../verifier/probes.ts";
import { type McpServerSpec, mcpServerLabel, resolveMcpServer } from "./mcp-config.ts";
import { launchOf, observeProtocolVersion } from "./mcp-protocol.ts";
import { signalGroup, waitForGroupGone } from "./process-group.ts";

export type McpProbeOptions = {
  /** The environment for `${VAR}` values and for the server to inherit (default: process.env). */
  env?: Record<string, string | undefined>;
  /** What `~/` names (default: the user's home directory). */
  home?: string;
};

const CLIENT_INFO = { name: "pi-quests-verifier", version: "0.1.0" };
/** A server paging forever (or repeating a cursor) must not keep the probe busy. */
const MAX_TOOL_PAGES = 100;
const STOPPED = "The check was stopped before the handshake finished.";

export function createMcpProbe(options: McpProbeOptions = {}): (request: McpRequest) => Promise<McpOutcome> {
  return async (request) => {
    const { check, signal } = request;
    const label = mcpServerLabel(check);
    const stopped = (server: string): McpOutcome => ({
      ok: false,
      server,
      kind: "stopped",
      message: STOPPED,
    });
    if (signal?.aborted) return stopped(label);

    const resolved = await resolveMcpServer(check, {
      workspace: request.workspace,
      agentDir: request.agentDir,
      env: options.env ?? process.env,
      home: options.home ?? homedir(),
    });
    if (!resolved.ok) return { ok: false, server: label, kind: "config", message: resolved.message };
    const { server, spec } = resolved;
    if (signal?.aborted) return stopped(server);

    const transport =
      spec.transport === "stdio"
        ? new ProcessGroupStdioTransport(spec, options.env ?? process.env)
        : new StreamableHTTPClientTransport(new URL(spec.url), { requestInit: { headers: spec.headers } });
    const client = new Client(CLIENT_INFO);
    const protocol = observeProtocolVersion(transport);

    let stage = "initialize";
    const handshake = (async () => {
      const requestOptions = { timeout: check.timeout_ms };
      await client.connect(transport, requestOptions);
      stage = "tools/list";
      const tools = await listToolNames(client, requestOptions);
      const info = client.getServerVersion();
      return { serverInfo: { name: info?.name ?? "", version: info?.version ?? "" }, tools };
    })();

    const ended = await settleWithin(handshake, check.timeout_ms, signal);
    // Success, failure or interruption: the server goes away before we answer.
    await transport.close().catch(() => {});

    const details = (message: string) => {
      const parts = [message];
      if (transport instanceof ProcessGroupStdioTransport) parts.push(...transport.describeEnd());
      return parts.join("\n");
    };
    const base = { ok: false as const, server };

    if (ended.kind === "stopped") return stopped(server);
    if (ended.kind === "timeout" || (ended.kind === "failed" && isRequestTimeout(ended.error))) {
      return {
        ...base,
        kind: "timeout",
        message: details(`MCP server "${server}" did not answer ${stage} within ${check.timeout_ms} ms.`),
      };
    }
    if (ended.kind === "failed") {
      return {
        ...base,
        kind: "unavailable",
        message: details(`MCP server "${server}" failed during ${stage}: ${describeError(ended.error)}`),
      };
    }
    return {
      ok: true,
      server,
      transport: spec.transport,
      protocolVersion: protocol.version ?? "",
      launched: launchOf(spec),
      ...ended.value,
    };
  };
}

/** Every tool name, following `nextCursor` until the server has no more pages. */
async function listToolNames(client: Client, options: { timeout: number }): Promise<string[]> {
  const names: string[] = [];
  const seen = new Set<string>();
  let cursor: string | undefined;
  for (let page = 0; page < MAX_TOOL_PAGES; page++) {
    const result = await client.listTools(cursor === undefined ? {} : { cursor }, options);
    names.push(...result.tools.map((tool) => tool.name));
    cursor = result.nextCursor;
    if (cursor === undefined) return names;
    if (seen.has(cursor)) throw new Error(`tools/list repeated the cursor ${JSON.stringify(cursor)}`);
    seen.add(cursor);
  }
  throw new Error(`tools/list returned more than ${MAX_TOOL_PAGES} pages`);
}

type Ended<T> =
  | { kind: "done"; value: T }
  | { kind: "failed"; error: unknown }
  | { kind: "timeout" }
  | { kind: "stopped" };

/** Waits for `work`, but no longer than `timeoutMs` or until `signal` aborts. */
async function settleWithin<T>(work: Promise<T>, timeoutMs: number, signal?: AbortSignal): Promise<Ended<T>> {
  let timer: NodeJS.Timeout | undefined;
  let onAbort: (() => void) | undefined;
  const interrupted = new Promise<Ended<T>>((resolve) => {
    if (signal?.aborted) resolve({ kind: "stopped" });
    timer = setTimeout(() => resolve({ kind: "timeout" }), timeoutMs);
    onAbort = () => resolve({ kind: "stopped" });
    signal?.addEventListener("abort", onAbort, { once: true });
  });
  try {
    return await Promise.race([
      work.then(
        (value): Ended<T> => ({ kind: "done", value }),
        (error: unknown): Ended<T> => ({ kind: "failed", error }),
      ),
      interrupted,
    ]);
  } finally {
    clearTimeout(timer);
    if (onAbort) signal?.removeEventListener("abort", onAbort);
  }
}

function isRequestTimeout(error: unknown): boolean {
  return error instanceof McpError && error.code === ErrorCode.RequestTimeout;
}

/** The message with its causes, which carry the useful part of `fetch failed` (ECONNREFUSED...). */
function describeError(error: unknown): string {
  const parts: string[] = [];
  let current: unknown = error;
  while (current instanceof Error && parts.length < 4) {
    const code = (current as NodeJS.ErrnoException).code;
    parts.push(code && !current.message.includes(code) ? `${current.message} (${code})` : current.message);
    current = current.cause;
  }
  if (parts.length === 0) parts.push(String(error));
  return parts.join(": ");
}

// --- stdio in a process group --------------------------------------------------------------------

const STDERR_TAIL_CHARS = 2_000;
/** After SIGTERM, how long the group gets before SIGKILL, and how long SIGKILL may take. */
const TERM_GRACE_MS = 1_000;
const KILL_WAIT_MS = 2_000;

/** Groups still running, killed if the verifier itself exits without closing them. */
const liveGroups = new Set<number>();
let exitHookInstalled = false;

/**
 * The SDK's stdio transport, except that the server leads its own process group and `close()`
 * kills that group and waits until no process of it is left.
 */
export class ProcessGroupStdioTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;

  readonly #spec: Extract<McpServerSpec, { transport: "stdio" }>;
  readonly #env: Record<string, string | undefined>;
  readonly #buffer = new ReadBuffer();
  #child: ResultPromise | undefined;
  #stderr = "";
  #exit: { code: number | null; signal: NodeJS.Signals | null } | undefined;
  #badOutput: string | undefined;
  #closing: Promise<void> | undefined;
  #closeNotified = false;

  constructor(spec: Extract<McpServerSpec, { transport: "stdio" }>, env: Record<string, string | undefined>) {
    this.#spec = spec;
    this.#env = env;
  }

  /** The server's process id, which is also its process group id. */
  get pid(): number | undefined {
    return this.#child?.pid;
  }

  async start(): Promise<void> {
    if (this.#child) throw new Error("already started");
    const { command, args, env, cwd } = this.#spec;
    // Node reports a missing cwd as a missing command (ENOENT); say which it is.
    const cwdIsDir = await stat(cwd).then(
      (stats) => stats.isDirectory(),
      () => false,
    );
    if (!cwdIsDir) throw new Error(`the working directory ${cwd} does not exist`);

    const child = execa(command, args, {
      cwd,
      env: { ...this.#env, ...env },
      extendEnv: false,
      detached: true,
      stdin: "pipe",
      stdout: "pipe",
      stderr: "pipe",
      buffer: false,
      reject: false,
      // execa's cleanup does not cover detached children; our exit hook below does.
      cleanup: false,
    });
    this.#child = child;
    // The promise never rejects (reject: false); this only keeps a failed spawn from being unhandled.
    child.catch(() => {});

    const node = child.nodeChildProcess;
    await new Promise<void>((resolve, reject) => {
      node.once("spawn", () => resolve());
      node.once("error", (error: NodeJS.ErrnoException) =>
        reject(error.code === "ENOENT" ? new Error(`command not found: ${command}`) : error),
      );
    });

    const pid = child.pid;
    if (pid !== undefined) trackGroup(pid);
    node.once("exit", (code, signal) => {
      // Only an exit of its own says something about the server; after close() it is our kill.
      if (!this.#closing) this.#exit = { code, signal };
    });
    // "close", not "exit": a child of the server may still hold stdout after the server exits.
    node.once("close", () => this.#notifyClose());

    child.stdout?.on("data", (chunk: Buffer) => this.#read(chunk));
    child.stderr?.on("data", (chunk: Buffer) => {
      this.#stderr = (this.#stderr + chunk.toString("utf8")).slice(-STDERR_TAIL_CHARS);
    });
    child.stdin?.on("error", (error) => this.onerror?.(error));
  }

  async send(message: JSONRPCMessage): Promise<void> {
    const stdin = this.#child?.stdin;
    if (!stdin || this.#closing) throw new Error("not connected");
    if (!stdin.write(serializeMessage(message))) {
      await new Promise<void>((resolve) => stdin.once("drain", resolve));
    }
  }

  close(): Promise<void> {
    this.#closing ??= this.#kill();
    return this.#closing;
  }

  /** How the server ended, and the tail of its stderr, for a failure message. */
  describeEnd(): string[] {
    const lines: string[] = [];
    if (this.#badOutput) {
      lines.push(
        `The server wrote a line to stdout that is not an MCP message (log to stderr instead): ${this.#badOutput}`,
      );
    }
    if (this.#exit) {
      const how = this.#exit.signal ? `signal ${this.#exit.signal}` : `code ${this.#exit.code}`;
      lines.push(`The server exited with ${how}.`);
    }
    const stderr = this.#stderr.trim();
    if (stderr) lines.push(`Server stderr (last lines):\n${stderr}`);
    return lines;
  }

  #read(chunk: Buffer): void {
    try {
      this.#buffer.append(chunk);
    } catch (error) {
      this.onerror?.(toError(error));
      return;
    }
    for (;;) {
      try {
        const message = this.#buffer.readMessage();
        if (message === null) return;
        this.onmessage?.(message);
      } catch (error) {
        // One bad line does not end the session (nor does it in the SDK's transport), but it is
        // the usual reason a server never seems to answer.
        this.#badOutput ??= toError(error).message.slice(0, 300);
        this.onerror?.(toError(error));
      }
    }
  }

  async #kill(): Promise<void> {
    const child = this.#child;
    const pid = child?.pid;
    if (child && pid !== undefined) {
      child.stdin?.end();
      signalGroup(pid, "SIGTERM");
      if (!(await waitForGroupGone(pid, TERM_GRACE_MS))) {
        signalGroup(pid, "SIGKILL");
        await waitForGroupGone(pid, KILL_WAIT_MS);
      }
      liveGroups.delete(pid);
      // Let execa settle, but not forever: a process that left the group could still hold the pipes.
      child.stdout?.destroy();
      child.stderr?.destroy();
      await Promise.race([child, new Promise((resolve) => setTimeout(resolve, KILL_WAIT_MS).unref())]);
    }
    this.#buffer.clear();
    this.#notifyClose();
  }

  #notifyClose(): void {
    if (this.#closeNotified) return;
    this.#closeNotified = true;
    this.onclose?.();
  }
}

function trackGroup(pid: number): void {
  liveGroups.add(pid);
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  process.once("exit", () => {
    for (const group of liveGroups) signalGroup(group, "SIGKILL");
  });
}

function toError(error: unknown): Error {
  return error instanceof Error ? error : new Error(String(error));
}
