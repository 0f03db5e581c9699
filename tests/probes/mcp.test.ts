// biome-ignore-all lint/suspicious/noTemplateCurlyInString: ${VAR} is mcp.json syntax here, not a template.
import { type ChildProcess, spawn } from "node:child_process";
import { mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { createMcpProbe } from "../../src/probes/mcp.ts";
import { processAlive as running } from "../../src/probes/os/process-group.ts";
import { type McpHandshakeCheck, McpHandshakeCheckSchema } from "../../src/verifier/checks/mcp-handshake.ts";
import type { McpOutcome } from "../../src/verifier/probes.ts";

const FIXTURES = resolve(import.meta.dirname, "../../fixtures/mcp");
const STDIO_SERVER = join(FIXTURES, "stdio-server.ts");
const HTTP_SERVER = join(FIXTURES, "http-server.ts");
const SILENT_SERVER = join(FIXTURES, "silent-server.ts");
const NODE = process.execPath;

let base: string;
let workspace: string;
let agentDir: string;

beforeEach(async () => {
  base = await mkdtemp(join(tmpdir(), "pi-quests-mcp-"));
  workspace = join(base, "workspace");
  agentDir = join(base, "agent");
  await mkdir(join(workspace, ".pi"), { recursive: true });
  await mkdir(agentDir, { recursive: true });
});
afterEach(async () => {
  await rm(base, { recursive: true, force: true });
});

function mcpCheck(input: Record<string, unknown>): McpHandshakeCheck {
  return { ...McpHandshakeCheckSchema.parse({ type: "mcp_handshake", ...input }), id: "mcp" };
}

/** The probe with a known environment and a home that is not the real one. */
function probe(
  check: McpHandshakeCheck,
  env: Record<string, string> = {},
  signal?: AbortSignal,
): Promise<McpOutcome> {
  const run = createMcpProbe({ env: { PATH: process.env.PATH, ...env }, home: join(base, "home") });
  return run({ check, workspace, agentDir, ...(signal ? { signal } : {}) });
}

async function writeServers(file: string, mcpServers: Record<string, unknown>): Promise<void> {
  await writeFile(file, JSON.stringify({ mcpServers }));
}

describe("stdio servers", () => {
  it("lists the tools of an inline command", async () => {
    const outcome = await probe(mcpCheck({ command: NODE, args: [STDIO_SERVER] }));
    expect(outcome).toEqual({
      ok: true,
      server: `${NODE} ${STDIO_SERVER}`,
      transport: "stdio",
      serverInfo: { name: "fixture-stdio", version: "1.2.3" },
      protocolVersion: expect.stringMatching(/^\d{4}-\d{2}-\d{2}$/),
      tools: ["echo", "add"],
      launched: { transport: "stdio", commandLine: `${NODE} ${STDIO_SERVER}`, cwd: workspace, envNames: [] },
    });
  });

  it("follows tools/list cursors", async () => {
    const outcome = await probe(mcpCheck({ command: NODE, args: [STDIO_SERVER, "--page-size", "1"] }));
    expect(outcome).toMatchObject({ ok: true, tools: ["echo", "add"] });
  });

  it("starts a server named in the project's .pi/mcp.json", async () => {
    await writeServers(join(workspace, ".pi", "mcp.json"), {
      fixture: { command: NODE, args: [STDIO_SERVER] },
    });
    expect(await probe(mcpCheck({ server: "fixture" }))).toMatchObject({
      ok: true,
      server: "fixture",
      tools: ["echo", "add"],
    });
  });

  it("starts a server named in the user's mcp.json", async () => {
    await writeServers(join(agentDir, "mcp.json"), {
      fixture: { type: "stdio", command: NODE, args: [STDIO_SERVER] },
    });
    expect(await probe(mcpCheck({ server: "fixture" }))).toMatchObject({ ok: true, tools: ["echo", "add"] });
  });

  it("passes env values with ${VAR} expanded", async () => {
    // The fixture lists one more tool, named by MCP_FIXTURE_EXTRA_TOOL.
    await writeServers(join(workspace, ".pi", "mcp.json"), {
      fixture: { command: NODE, args: [STDIO_SERVER], env: { MCP_FIXTURE_EXTRA_TOOL: "tool_${SUFFIX}" } },
    });
    expect(await probe(mcpCheck({ server: "fixture" }), { SUFFIX: "from_env" })).toMatchObject({
      ok: true,
      tools: ["echo", "add", "tool_from_env"],
    });
  });

  it("gives up on a silent server and kills its whole process group", async () => {
    const pidFile = join(base, "pids.json");
    const outcome = await probe(
      mcpCheck({ command: NODE, args: [SILENT_SERVER, pidFile], timeout_ms: 1_000 }),
    );
    expect(outcome).toMatchObject({ ok: false, kind: "timeout" });
    expect(outcome.ok ? "" : outcome.message).toContain("did not answer initialize within 1000 ms");

    const pids = JSON.parse(await readFile(pidFile, "utf8")) as { server: number; child: number };
    // The server ignores SIGTERM and its child sleeps for minutes: both must be gone by now.
    expect(running(pids.server)).toBe(false);
    expect(running(pids.child)).toBe(false);
  });

  it("reports a command that does not exist", async () => {
    const outcome = await probe(mcpCheck({ command: "pi-quests-no-such-server" }));
    expect(outcome).toMatchObject({ ok: false, kind: "unavailable", server: "pi-quests-no-such-server" });
    expect(outcome.ok ? "" : outcome.message).toContain("command not found: pi-quests-no-such-server");
  });

  it("reports a server that exits, with its exit code and stderr", async () => {
    const script = "console.error('missing API key'); process.exit(3)";
    const outcome = await probe(mcpCheck({ command: NODE, args: ["-e", script] }));
    expect(outcome).toMatchObject({ ok: false, kind: "unavailable" });
    const message = outcome.ok ? "" : outcome.message;
    expect(message).toContain("exited with code 3");
    expect(message).toContain("missing API key");
  });

  it("points at stdout lines that are not MCP", async () => {
    const script = "console.log('starting up...'); setInterval(() => {}, 1000)";
    const outcome = await probe(mcpCheck({ command: NODE, args: ["-e", script], timeout_ms: 500 }));
    expect(outcome).toMatchObject({ ok: false, kind: "timeout" });
    expect(outcome.ok ? "" : outcome.message).toContain("not an MCP message");
  });

  it("stops when the signal aborts, and kills the server", async () => {
    const pidFile = join(base, "pids.json");
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 500);
    const outcome = await probe(
      mcpCheck({ command: NODE, args: [SILENT_SERVER, pidFile] }),
      {},
      controller.signal,
    );
    expect(outcome).toMatchObject({ ok: false, kind: "stopped" });
    const pids = JSON.parse(await readFile(pidFile, "utf8")) as { server: number; child: number };
    expect(running(pids.server)).toBe(false);
    expect(running(pids.child)).toBe(false);
  });

  it("does not start anything when already stopped", async () => {
    const pidFile = join(base, "pids.json");
    const outcome = await probe(
      mcpCheck({ command: NODE, args: [SILENT_SERVER, pidFile] }),
      {},
      AbortSignal.abort(),
    );
    expect(outcome).toMatchObject({ ok: false, kind: "stopped" });
    await expect(readFile(pidFile)).rejects.toThrow();
  });

  it("passes configuration problems on as config", async () => {
    await writeServers(join(agentDir, "mcp.json"), { other: { command: NODE } });
    const outcome = await probe(mcpCheck({ server: "fixture" }));
    expect(outcome).toMatchObject({ ok: false, kind: "config", server: "fixture" });
    expect(outcome.ok ? "" : outcome.message).toContain("Known servers: other.");
  });
});

describe("streamable HTTP servers", () => {
  let server: ChildProcess;
  let url: string;
  let guarded: ChildProcess;
  let guardedUrl: string;

  /** Starts the HTTP fixture and waits for the URL it prints. */
  async function startHttpFixture(args: string[]): Promise<{ child: ChildProcess; url: string }> {
    const child = spawn(NODE, [HTTP_SERVER, ...args], { stdio: ["ignore", "pipe", "inherit"] });
    const printed = await new Promise<string>((resolveUrl, reject) => {
      let out = "";
      child.stdout?.on("data", (chunk: Buffer) => {
        out += chunk.toString();
        if (out.includes("\n")) resolveUrl(out.trim());
      });
      child.once("exit", (code) => reject(new Error(`HTTP fixture exited with ${code}`)));
    });
    return { child, url: printed };
  }

  beforeAll(async () => {
    ({ child: server, url } = await startHttpFixture(["0"]));
    ({ child: guarded, url: guardedUrl } = await startHttpFixture(["0", "--require-bearer", "open-sesame"]));
  });
  afterAll(() => {
    server.kill();
    guarded.kill();
  });

  it("lists the tools at a URL", async () => {
    expect(await probe(mcpCheck({ url }))).toEqual({
      ok: true,
      server: url,
      transport: "http",
      serverInfo: { name: "fixture-http", version: "2.0.0" },
      protocolVersion: expect.stringMatching(/^\d{4}-\d{2}-\d{2}$/),
      tools: ["echo", "search"],
      launched: { transport: "http", url, headerNames: [] },
    });
  });

  it("sends headers with ${VAR} expanded", async () => {
    await writeServers(join(workspace, ".pi", "mcp.json"), {
      docs: { url: guardedUrl, headers: { Authorization: "Bearer ${DOCS_TOKEN}" } },
    });
    expect(await probe(mcpCheck({ server: "docs" }), { DOCS_TOKEN: "open-sesame" })).toMatchObject({
      ok: true,
      tools: ["echo", "search"],
    });

    const refused = await probe(mcpCheck({ server: "docs" }), { DOCS_TOKEN: "wrong" });
    expect(refused).toMatchObject({ ok: false, kind: "unavailable" });
    expect(refused.ok ? "" : refused.message).toContain("401");
  });

  it("reports a refused connection", async () => {
    // A port that was free a moment ago: nothing listens there.
    const port = await new Promise<number>((resolvePort) => {
      const probeServer = createServer().listen(0, "127.0.0.1", () => {
        const address = probeServer.address();
        probeServer.close(() => resolvePort(typeof address === "object" && address ? address.port : 0));
      });
    });
    const outcome = await probe(mcpCheck({ url: `http://127.0.0.1:${port}/mcp` }));
    expect(outcome).toMatchObject({ ok: false, kind: "unavailable" });
    expect(outcome.ok ? "" : outcome.message).toContain("ECONNREFUSED");
  });
});

describe("a misconfigured stdio server, as an author meets it", () => {
  it("a server that crashes with a stack trace: one line says why, the stack stays in the detail", async () => {
    const script = join(base, "server.cjs");
    await writeFile(script, "require('./no-such-module.cjs');\n");
    const outcome = await probe(mcpCheck({ command: NODE, args: [script] }));
    expect(outcome).toMatchObject({ ok: false, kind: "unavailable" });
    if (outcome.ok) return;
    expect(outcome.message.split("\n")).toHaveLength(1);
    expect(outcome.message).toMatch(
      /failed during initialize: .+; it exited with code 1; its stderr says: Error: Cannot find module '\.\/no-such-module\.cjs'/,
    );
    expect(outcome.message).not.toMatch(/\bat Module\b/);
    const detail = (outcome.detail ?? []).join("\n");
    expect(detail).toContain("The server exited with code 1.");
    expect(detail).toMatch(/^\s+at .+/m);
  });

  it("a timeout names the line on stdout that is not MCP, on one line", async () => {
    const script = "console.log('starting up...'); setInterval(() => {}, 1000)";
    const outcome = await probe(mcpCheck({ command: NODE, args: ["-e", script], timeout_ms: 500 }));
    expect(outcome).toMatchObject({ ok: false, kind: "timeout" });
    if (outcome.ok) return;
    expect(outcome.message).toMatch(
      /^MCP server ".+" did not answer initialize within 500 ms; it wrote a line to stdout that is not an MCP message: .*starting up/,
    );
    expect(outcome.message).not.toContain("\n");
  });
});
