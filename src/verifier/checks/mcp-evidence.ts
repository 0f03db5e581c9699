/**
 * What an `mcp_handshake` result says. A pass proves only that the server started (or was
 * reached), answered `initialize` and listed tools including the expected names: not that any
 * tool works. The summary says exactly that, with who answered and what ran, so no author or
 * learner takes it for more.
 */
import type { McpHandshakeCheck } from "../../core/checks.ts";
import type { McpOutcome } from "../probes.ts";
import type { Evidence, McpLaunch } from "../results.ts";

type Answered = Extract<McpOutcome, { ok: true }>;

/** At most this many tool names in a summary; the evidence's `tools` has them all. */
const NAMED_TOOLS = 10;

export function handshakeEvidence(check: McpHandshakeCheck, outcome: Answered): Evidence {
  const missingTools = check.expect_tools.filter((tool) => !outcome.tools.includes(tool));
  const passed = missingTools.length === 0;
  const who = serverIdentity(outcome);
  const ran = launchText(outcome.launched);
  const summary = passed
    ? `${who} answered initialize${protocolText(outcome.protocolVersion)} and listed ${toolsText(outcome.tools)} (${ran}): this proves the handshake only, not what the tools do`
    : `${who} does not offer ${missingTools.join(", ")} (it lists ${toolsText(outcome.tools)}; ${ran})`;
  return {
    kind: "mcp",
    summary,
    server: outcome.server,
    transport: outcome.transport,
    tools: outcome.tools,
    missingTools,
    serverInfo: outcome.serverInfo,
    ...(outcome.protocolVersion !== "" ? { protocolVersion: outcome.protocolVersion } : {}),
    launched: outcome.launched,
    ...(passed ? { proved: "handshake" as const } : {}),
  };
}

/** `MCP server docs (docs-server 1.2.0)`: the configured name and what the server calls itself. */
function serverIdentity(outcome: Answered): string {
  const { name, version } = outcome.serverInfo;
  const answered = [name || "no name", version ? version : "no version"].join(" ");
  return `MCP server ${outcome.server.includes(" ") ? `"${outcome.server}"` : outcome.server} (serverInfo: ${answered})`;
}

function protocolText(version: string): string {
  return version === "" ? "" : ` (protocol ${version})`;
}

function toolsText(tools: string[]): string {
  if (tools.length === 0) return "no tools";
  const named = tools.slice(0, NAMED_TOOLS).join(", ");
  const more = tools.length > NAMED_TOOLS ? ` and ${tools.length - NAMED_TOOLS} more` : "";
  return `${tools.length === 1 ? "tool" : "tools"} ${named}${more}`;
}

function launchText(launched: McpLaunch): string {
  if (launched.transport === "http") {
    const headers = launched.headerNames.length > 0 ? ` with headers ${launched.headerNames.join(", ")}` : "";
    return `reached over HTTP at ${launched.url}${headers}`;
  }
  const env =
    launched.envNames.length > 0 ? `, env ${launched.envNames.join(", ")} set (values not shown)` : "";
  return `ran ${launched.commandLine} in ${launched.cwd}${env}`;
}
