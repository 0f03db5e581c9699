import { homedir } from "node:os";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { ErrorCode, McpError } from "@modelcontextprotocol/sdk/types.js";
import type { McpOutcome, McpRequest } from "../verifier/probes.ts";
import { mcpServerLabel, resolveMcpServer } from "./mcp-config.ts";
import { launchOf, observeProtocolVersion } from "./mcp-protocol.ts";
import { ProcessGroupStdioTransport } from "./mcp-stdio.ts";

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

    // One line for the summary; how the server ended, its stderr tail included, goes to the evidence.
    const details = (message: string) => {
      if (!(transport instanceof ProcessGroupStdioTransport)) return { message };
      const end = transport.endSummary();
      const detail = transport.describeEnd();
      return {
        message: end === undefined ? message : `${message.replace(/\.$/, "")}; ${end}`,
        ...(detail.length > 0 ? { detail } : {}),
      };
    };
    const base = { ok: false as const, server };

    if (ended.kind === "stopped") return stopped(server);
    if (ended.kind === "timeout" || (ended.kind === "failed" && isRequestTimeout(ended.error))) {
      return {
        ...base,
        kind: "timeout",
        ...details(`MCP server "${server}" did not answer ${stage} within ${check.timeout_ms} ms.`),
      };
    }
    if (ended.kind === "failed") {
      return {
        ...base,
        kind: "unavailable",
        ...details(`MCP server "${server}" failed during ${stage}: ${firstLine(describeError(ended.error))}`),
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

function firstLine(text: string): string {
  return text.split("\n")[0] ?? text;
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
