/**
 * Which MCP server an `mcp_handshake` check talks to, and how to start or reach it, read the way
 * Pi reads its own configuration (docs/mcp.md of @earendil-works/pi-coding-agent):
 *
 * - user servers in `{agent_dir}/mcp.json`, project servers in `{workspace}/.pi/mcp.json`;
 * - a project entry replaces a user entry of the same name, except an entry without `command`,
 *   `url` or `type`, which only overrides `enabled`, `exposure` and `toolExposure`;
 * - an invalid entry or unreadable file is skipped, as Pi skips it, and only reported when the
 *   check's server is then missing;
 * - `${VAR}` in `env` and `headers` comes from the environment; `~/` names the home directory.
 *
 * Nothing here spawns or connects; it only reads the two files.
 */
import { readFile } from "node:fs/promises";
import { join, resolve } from "node:path";
import { z } from "zod";
import type { McpHandshakeCheck } from "../verifier/checks/mcp-handshake.ts";

export type McpServerSpec =
  | {
      transport: "stdio";
      command: string;
      args: string[];
      /** Only the server's own variables; the probe adds them to the inherited environment. */
      env: Record<string, string>;
      cwd: string;
    }
  | { transport: "http"; url: string; headers: Record<string, string> };

export type McpResolution =
  | { ok: true; server: string; spec: McpServerSpec }
  | { ok: false; kind: "config"; message: string };

export type McpConfigContext = {
  workspace: string;
  agentDir: string;
  /** Where `${VAR}` values come from (normally process.env). */
  env: Record<string, string | undefined>;
  home: string;
};

/** How a check names its server in reports: the server name, the URL or the command line. */
export function mcpServerLabel(check: McpHandshakeCheck): string {
  if (check.server !== undefined) return check.server;
  if (check.url !== undefined) return check.url;
  return [check.command ?? "", ...(check.args ?? [])].join(" ");
}

export function userMcpConfigPath(agentDir: string): string {
  return join(agentDir, "mcp.json");
}

export function projectMcpConfigPath(workspace: string): string {
  return join(workspace, ".pi", "mcp.json");
}

export async function resolveMcpServer(
  check: McpHandshakeCheck,
  context: McpConfigContext,
): Promise<McpResolution> {
  const label = mcpServerLabel(check);
  if (check.server === undefined) {
    // An inline server: the check is its own configuration, read by the same rules.
    const entry =
      check.url !== undefined
        ? { url: check.url, headers: check.headers }
        : { command: check.command, args: check.args, env: check.env };
    return toSpec(label, entry, "the check", context);
  }

  const config = await loadServers(context);
  const found = findServer(config.servers, check.server);
  if (!found) return { ok: false, kind: "config", message: notFoundMessage(check.server, config) };
  if (found.entry.enabled === false) {
    return {
      ok: false,
      kind: "config",
      message: `MCP server "${check.server}" is disabled ("enabled": false in ${found.enabledFrom}).`,
    };
  }
  return toSpec(check.server, found.entry, found.source, context);
}

// --- reading mcp.json --------------------------------------------------------------------------

/** The fields we use; Pi's others (description, timeout, exposure, oauth, ...) pass through. */
const ServerEntrySchema = z.looseObject({
  type: z
    .enum(["stdio", "http", "streamable-http"], { error: 'must be "stdio", "http" or "streamable-http"' })
    .optional(),
  command: z.string({ error: "must be a string" }).min(1, "must not be empty").optional(),
  args: z.array(z.string({ error: "must be a string" }), { error: "must be an array of strings" }).optional(),
  env: z
    .record(z.string(), z.string({ error: "must be a string" }), { error: "must map names to strings" })
    .optional(),
  cwd: z.string({ error: "must be a string" }).optional(),
  url: z.url({ protocol: /^https?$/, error: "must be an http or https URL" }).optional(),
  headers: z
    .record(z.string(), z.string({ error: "must be a string" }), { error: "must map names to strings" })
    .optional(),
  enabled: z.boolean({ error: "must be true or false" }).optional(),
});
type ServerEntry = z.infer<typeof ServerEntrySchema>;

const ConfigFileSchema = z.looseObject({
  mcpServers: z
    .record(z.string(), z.unknown(), { error: 'expected an object with an "mcpServers" object' })
    .optional(),
});

const SERVER_NAME = /^[A-Za-z0-9_-]+$/;
const OVERRIDE_KEYS = ["enabled", "exposure", "toolExposure"];

type LoadedServer = {
  name: string;
  entry: ServerEntry;
  /** The file that defines the server. */
  source: string;
  /** The file whose `enabled` applies: the project file when it overrides the user entry. */
  enabledFrom: string;
};

type Problem = { file: string; server?: string; message: string };

type LoadedConfig = { servers: Map<string, LoadedServer>; problems: Problem[]; files: string[] };

async function loadServers(context: McpConfigContext): Promise<LoadedConfig> {
  const loaded: LoadedConfig = { servers: new Map(), problems: [], files: [] };
  // The user file first, so project entries replace or override its servers.
  await readInto(loaded, userMcpConfigPath(context.agentDir), "user");
  await readInto(loaded, projectMcpConfigPath(context.workspace), "project");
  return loaded;
}

async function readInto(loaded: LoadedConfig, file: string, scope: "user" | "project"): Promise<void> {
  let text: string;
  try {
    text = await readFile(file, "utf8");
  } catch (error) {
    if (isErrnoException(error) && error.code === "ENOENT") return;
    loaded.problems.push({ file, message: `cannot read it (${errorMessage(error)})` });
    return;
  }
  loaded.files.push(file);

  let json: unknown;
  try {
    json = JSON.parse(text.replace(/^\uFEFF/, ""));
  } catch (error) {
    loaded.problems.push({ file, message: `is not valid JSON (${errorMessage(error)})` });
    return;
  }
  const parsed = ConfigFileSchema.safeParse(json);
  if (!parsed.success) {
    loaded.problems.push({ file, message: 'expected an object with an "mcpServers" object' });
    return;
  }

  for (const [name, raw] of Object.entries(parsed.data.mcpServers ?? {})) {
    const problem = (message: string) => loaded.problems.push({ file, server: name, message });
    if (!SERVER_NAME.test(name)) {
      problem('has an invalid name (use letters, digits, "_" and "-")');
      continue;
    }
    if (scope === "project" && isRecord(raw) && isOverride(raw)) {
      const base = loaded.servers.get(name);
      const extra = Object.keys(raw).filter((key) => !OVERRIDE_KEYS.includes(key));
      if (!base) problem(`needs "command" or "url", or a user server of that name to override`);
      else if (extra.length > 0)
        problem(`overrides a user server, which can only set ${OVERRIDE_KEYS.join(", ")}`);
      else {
        const entry = checkEntry({ ...base.entry, ...raw });
        if (typeof entry === "string") problem(entry);
        else
          loaded.servers.set(name, {
            ...base,
            entry,
            enabledFrom: "enabled" in raw ? file : base.enabledFrom,
          });
      }
      continue;
    }
    const entry = checkEntry(raw);
    if (typeof entry === "string") {
      problem(entry);
      continue;
    }
    // Pi rejects a second server whose name differs only in `-` and `_`: they would share tool names.
    const clash = [...loaded.servers.keys()].find((other) => other !== name && sameServer(other, name));
    if (clash) {
      problem(`conflicts with server "${clash}" (names that differ only in "-" and "_" are the same server)`);
      continue;
    }
    loaded.servers.set(name, { name, entry, source: file, enabledFrom: file });
  }
}

/** A valid entry, or what is wrong with it. */
function checkEntry(raw: unknown): ServerEntry | string {
  if (!isRecord(raw)) return "must be an object";
  if (raw.type === "sse") return 'uses "type": "sse", which Pi does not support; use the streamable HTTP URL';
  const parsed = ServerEntrySchema.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const field = issue?.path.join(".") ?? "";
    return `is invalid: ${field ? `${field} ` : ""}${issue?.message ?? "unknown problem"}`;
  }
  if (transportOf(parsed.data) === undefined)
    return 'needs either "command" (stdio) or "url" (streamable HTTP)';
  return parsed.data;
}

/** Pi's choice: a URL wins when both are given, and `type` must agree with the field used. */
function transportOf(entry: ServerEntry): "stdio" | "http" | undefined {
  if (entry.url !== undefined && entry.type !== "stdio") return "http";
  if (entry.command !== undefined && (entry.type === undefined || entry.type === "stdio")) return "stdio";
  return undefined;
}

function isOverride(raw: Record<string, unknown>): boolean {
  return raw.command === undefined && raw.url === undefined && raw.type === undefined;
}

function sameServer(a: string, b: string): boolean {
  return a.replaceAll("-", "_") === b.replaceAll("-", "_");
}

function findServer(servers: Map<string, LoadedServer>, name: string): LoadedServer | undefined {
  return servers.get(name) ?? [...servers.values()].find((server) => sameServer(server.name, name));
}

function notFoundMessage(name: string, config: LoadedConfig): string {
  const own = config.problems.filter(
    (problem) => problem.server !== undefined && sameServer(problem.server, name),
  );
  if (own.length > 0) {
    return own
      .map((problem) => `MCP server "${problem.server}" in ${problem.file} ${problem.message}.`)
      .join(" ");
  }
  const known = [...config.servers.keys()].sort();
  const lines = [
    known.length > 0
      ? `MCP server "${name}" is not configured. Known servers: ${known.join(", ")}.`
      : `MCP server "${name}" is not configured: no MCP servers are defined in ${config.files.length > 0 ? config.files.join(" or ") : "either mcp.json"}.`,
  ];
  // A file that could not be read may be where the server was meant to be.
  for (const problem of config.problems.filter((problem) => problem.server === undefined)) {
    lines.push(`${problem.file} ${problem.message}.`);
  }
  return lines.join(" ");
}

// --- from entry to spec ------------------------------------------------------------------------

type InlineEntry = {
  command?: string | undefined;
  args?: string[] | undefined;
  env?: Record<string, string> | undefined;
  cwd?: string | undefined;
  url?: string | undefined;
  headers?: Record<string, string> | undefined;
};

function toSpec(
  server: string,
  entry: InlineEntry,
  source: string,
  context: McpConfigContext,
): McpResolution {
  const fail = (message: string): McpResolution => ({
    ok: false,
    kind: "config",
    message: `MCP server "${server}" (${source}): ${message}`,
  });

  if (entry.url !== undefined) {
    const headers = expandAll(entry.headers ?? {}, "header", context.env);
    if (typeof headers === "string") return fail(headers);
    return { ok: true, server, spec: { transport: "http", url: entry.url, headers } };
  }
  if (entry.command === undefined) return fail('needs either "command" or "url"');

  const env = expandAll(entry.env ?? {}, "env", context.env);
  if (typeof env === "string") return fail(env);
  const home = (value: string) => expandHome(value, context.home);
  return {
    ok: true,
    server,
    spec: {
      transport: "stdio",
      command: home(entry.command),
      args: (entry.args ?? []).map(home),
      env,
      // Pi resolves a relative cwd against the session directory, which is the workspace here.
      cwd: resolve(context.workspace, home(entry.cwd ?? ".")),
    },
  };
}

function expandHome(value: string, home: string): string {
  if (value === "~") return home;
  if (value.startsWith("~/")) return join(home, value.slice(2));
  return value;
}

/** Expands every value, or says which one cannot be. */
function expandAll(
  values: Record<string, string>,
  what: "env" | "header",
  env: McpConfigContext["env"],
): Record<string, string> | string {
  const expanded: Record<string, string> = {};
  for (const [key, value] of Object.entries(values)) {
    const result = expandValue(value, env);
    if (typeof result !== "string") return `${what} "${key}" ${result.problem}`;
    expanded[key] = result;
  }
  return expanded;
}

/**
 * Pi's value syntax: `${NAME}` and `$NAME` read the environment, `$$` is a literal `$` and `$!` a
 * literal `!`. A value starting with `!` is a shell command to Pi; the verifier never runs one.
 */
export function expandValue(value: string, env: McpConfigContext["env"]): string | { problem: string } {
  if (value.startsWith("!")) {
    return {
      problem:
        "runs a shell command (a value starting with !), which the verifier does not run; use a literal value or an environment variable instead",
    };
  }
  const missing: string[] = [];
  const expanded = value.replace(
    /\$(?:([$!])|\{([A-Za-z_]\w*)\}|([A-Za-z_]\w*))/g,
    (_match, literal: string | undefined, braced: string | undefined, bare: string | undefined) => {
      if (literal !== undefined) return literal;
      const name = braced ?? bare ?? "";
      // Like Pi, an empty variable counts as unset.
      const found = env[name];
      if (!found) missing.push(name);
      return found ?? "";
    },
  );
  if (missing.length > 0) {
    const names = [...new Set(missing)];
    return {
      problem: `uses environment variable${names.length > 1 ? "s" : ""} ${names.join(", ")}, which ${names.length > 1 ? "are" : "is"} not set`,
    };
  }
  return expanded;
}

// --- small helpers -----------------------------------------------------------------------------

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function isErrnoException(error: unknown): error is NodeJS.ErrnoException {
  return error instanceof Error && "code" in error;
}

function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
