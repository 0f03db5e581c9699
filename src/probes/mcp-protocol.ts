import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import { redactCommand } from "../core/redact.ts";
import type { McpLaunch } from "../verifier/probes.ts";
import type { McpServerSpec } from "./mcp-config.ts";

/**
 * The protocol version the server answered `initialize` with. The SDK's client hands it to the
 * transport (`setProtocolVersion`) and keeps no copy we can read, so the call is observed here;
 * a transport's own handler (the HTTP one sends it as a header) still runs.
 */
export function observeProtocolVersion(transport: Transport): { readonly version: string | undefined } {
  const seen: { version: string | undefined } = { version: undefined };
  const own = transport.setProtocolVersion?.bind(transport);
  transport.setProtocolVersion = (version: string) => {
    seen.version = version;
    own?.(version);
  };
  return seen;
}

const MASK = "***";
/** Shorter values are too likely to be ordinary words of the command to mask them everywhere. */
const MIN_MASKED_LENGTH = 4;

/**
 * What was started or reached, fit for evidence: the command line and URL with secrets masked
 * (the receipts' redaction, and every env or header value wherever it also appears), and only
 * the names of env variables and headers.
 */
export function launchOf(spec: McpServerSpec): McpLaunch {
  if (spec.transport === "http") {
    return {
      transport: "http",
      url: hide(redactCommand(spec.url), Object.values(spec.headers)),
      headerNames: Object.keys(spec.headers).sort(),
    };
  }
  const commandLine = [spec.command, ...spec.args].map(shellWord).join(" ");
  return {
    transport: "stdio",
    commandLine: hide(redactCommand(commandLine), Object.values(spec.env)),
    cwd: spec.cwd,
    envNames: Object.keys(spec.env).sort(),
  };
}

function hide(text: string, values: string[]): string {
  return values
    .filter((value) => value.length >= MIN_MASKED_LENGTH)
    .sort((a, b) => b.length - a.length)
    .reduce((shown, value) => shown.replaceAll(value, MASK), text);
}

/** An argument as a shell would need it written, so the line reads as the command that ran. */
function shellWord(word: string): string {
  return word !== "" && /^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replaceAll("'", `'\\''`)}'`;
}
