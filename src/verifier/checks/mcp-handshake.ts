/**
 * `mcp_handshake`: starts (or reaches) an MCP server, runs the `initialize` handshake and asks
 * for its tools. A pass proves only that the server started (or was reached), answered
 * `initialize` and listed tools including the expected names: not that any tool works. The
 * summary says exactly that, with who answered and what ran, so no author or learner takes it
 * for more.
 */
import { z } from "zod";
import { checkBaseFields } from "../../core/check-fields.ts";
import type { EvaluationContext } from "../context.ts";
import type { McpOutcome } from "../probes.ts";
import type { CheckResult } from "../results.ts";
import { type CheckOf, defineCheckType, type ReportDetail } from "./define.ts";
import { pending, result } from "./result.ts";

export const McpHandshakeCheckSchema = z
  .strictObject({
    ...checkBaseFields,
    type: z.literal("mcp_handshake"),
    server: z
      .string()
      .regex(/^[A-Za-z0-9_-]+$/, "a server name uses letters, digits, _ and -")
      .optional(),
    command: z.string().min(1).optional(),
    args: z.array(z.string()).optional(),
    env: z.record(z.string(), z.string()).optional(),
    url: z.url({ protocol: /^https?$/ }).optional(),
    headers: z.record(z.string(), z.string()).optional(),
    expect_tools: z.array(z.string().min(1)).default([]),
    timeout_ms: z.int().positive().max(600_000).default(15_000),
  })
  .superRefine((check, ctx) => {
    const given = [check.server, check.command, check.url].filter((value) => value !== undefined).length;
    if (given !== 1) {
      ctx.addIssue({ code: "custom", message: "give exactly one of server, command (with args) or url" });
    }
    if (check.args && check.command === undefined) {
      ctx.addIssue({ code: "custom", path: ["args"], message: "args go with command" });
    }
    if (check.env && check.command === undefined) {
      ctx.addIssue({ code: "custom", path: ["env"], message: "env goes with command" });
    }
    if (check.headers && check.url === undefined) {
      ctx.addIssue({ code: "custom", path: ["headers"], message: "headers go with url" });
    }
  });
export type McpHandshakeCheck = CheckOf<typeof McpHandshakeCheckSchema>;

/**
 * What an MCP check started or reached, as evidence may show it: secrets in the command line or
 * URL masked, env variables and headers by name only (their values are never shown).
 */
export type McpLaunch =
  | { transport: "stdio"; commandLine: string; cwd: string; envNames: string[] }
  | { transport: "http"; url: string; headerNames: string[] };

export type McpEvidence = {
  kind: "mcp";
  summary: string;
  server: string;
  transport?: "stdio" | "http";
  tools: string[];
  missingTools: string[];
  serverInfo?: { name: string; version: string };
  /** What the server answered `initialize` with. */
  protocolVersion?: string;
  /** What ran (or was reached) for the check; secrets masked, env and headers by name only. */
  launched?: McpLaunch;
  /** What a pass proves: the server answered the handshake and listed these tools, nothing more. */
  proved?: "handshake";
};

async function evaluateMcpHandshakeCheck(
  check: McpHandshakeCheck,
  ctx: EvaluationContext,
): Promise<CheckResult> {
  const outcome = await ctx.probes.mcpHandshake({
    check,
    workspace: ctx.paths.workspace,
    agentDir: ctx.paths.agentDir,
    ...(ctx.signal ? { signal: ctx.signal } : {}),
  });
  if (!outcome.ok) {
    const base = {
      kind: "mcp" as const,
      server: outcome.server,
      tools: [],
      missingTools: check.expect_tools,
    };
    // A configuration problem is the learner's to fix; anything else could not be decided.
    if (outcome.kind === "config") return result(check, "fail", { ...base, summary: outcome.message });
    return pending(
      check,
      outcome.kind === "unavailable" ? "unavailable" : outcome.kind,
      `${outcome.server}: ${outcome.message}`,
      outcome.detail ? { serverEnd: outcome.detail } : undefined,
    );
  }
  const evidence = handshakeEvidence(check, outcome);
  return result(check, evidence.missingTools.length === 0 ? "pass" : "fail", evidence);
}

type Answered = Extract<McpOutcome, { ok: true }>;

/** At most this many tool names in a summary; the evidence's `tools` has them all. */
const NAMED_TOOLS = 10;

function handshakeEvidence(check: McpHandshakeCheck, outcome: Answered): McpEvidence {
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

export const mcpHandshakeCheck = defineCheckType({
  type: "mcp_handshake",
  schema: McpHandshakeCheckSchema,
  evaluate: evaluateMcpHandshakeCheck,
  needs: {},
  // The server answered without a tool the quest needs; a configuration problem's summary is in words already.
  hint: (checked) =>
    checked.status === "fail" && checked.evidence.kind === "mcp" && checked.evidence.tools.length > 0
      ? `the server ${checked.evidence.server} does not offer ${checked.evidence.missingTools.join(", ")} yet`
      : undefined,
  reportDetail: mcpReportDetail,
});

/** Under a server that could not be reached: how it ended, its stderr tail included. */
function mcpReportDetail(result: CheckResult): ReportDetail {
  const evidence = result.evidence;
  if (evidence.kind !== "pending") return {};
  const serverEnd = evidence.detail?.serverEnd;
  if (!Array.isArray(serverEnd) || serverEnd.length === 0) return {};
  const lines = serverEnd.flatMap((entry) => String(entry).split("\n"));
  return { lines: lines.map((line) => `| ${line}`) };
}
