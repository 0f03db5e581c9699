// biome-ignore-all lint/suspicious/noTemplateCurlyInString: ${VAR} is mcp.json syntax here, not a template.
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { type McpConfigContext, type McpResolution, resolveMcpServer } from "../../src/probes/mcp-config.ts";
import { type McpHandshakeCheck, McpHandshakeCheckSchema } from "../../src/verifier/checks/mcp-handshake.ts";

let base: string;
let context: McpConfigContext;

beforeEach(async () => {
  base = await mkdtemp(join(tmpdir(), "pi-quests-mcp-config-"));
  context = {
    workspace: join(base, "workspace"),
    agentDir: join(base, "agent"),
    env: { TOKEN: "s3cret", REGION: "eu" },
    home: join(base, "home"),
  };
  await mkdir(join(context.workspace, ".pi"), { recursive: true });
  await mkdir(context.agentDir, { recursive: true });
});
afterEach(async () => {
  await rm(base, { recursive: true, force: true });
});

function mcpCheck(input: Record<string, unknown>): McpHandshakeCheck {
  return { ...McpHandshakeCheckSchema.parse({ type: "mcp_handshake", ...input }), id: "mcp" };
}

const userFile = () => join(context.agentDir, "mcp.json");
const projectFile = () => join(context.workspace, ".pi", "mcp.json");

async function writeServers(file: string, mcpServers: Record<string, unknown>): Promise<void> {
  await writeFile(file, JSON.stringify({ mcpServers }));
}

function resolveNamed(server: string): Promise<McpResolution> {
  return resolveMcpServer(mcpCheck({ server }), context);
}

/** The message of a config failure (and a test failure if it resolved). */
function configMessage(resolution: McpResolution): string {
  expect(resolution).toMatchObject({ ok: false, kind: "config" });
  return resolution.ok ? "" : resolution.message;
}

describe("inline servers", () => {
  it("takes a command from the check alone, started in the workspace", async () => {
    // No mcp.json anywhere: an inline server reads none.
    context.agentDir = join(base, "missing");
    const resolution = await resolveMcpServer(
      mcpCheck({ command: "node", args: ["server.js"], env: { KEY: "${TOKEN}" } }),
      context,
    );
    expect(resolution).toEqual({
      ok: true,
      server: "node server.js",
      spec: {
        transport: "stdio",
        command: "node",
        args: ["server.js"],
        env: { KEY: "s3cret" },
        cwd: context.workspace,
      },
    });
  });

  it("takes a URL with headers from the check", async () => {
    const resolution = await resolveMcpServer(
      mcpCheck({ url: "http://127.0.0.1:9/mcp", headers: { Authorization: "Bearer ${TOKEN}" } }),
      context,
    );
    expect(resolution).toEqual({
      ok: true,
      server: "http://127.0.0.1:9/mcp",
      spec: { transport: "http", url: "http://127.0.0.1:9/mcp", headers: { Authorization: "Bearer s3cret" } },
    });
  });
});

describe("named servers", () => {
  it("finds a server in the project's .pi/mcp.json", async () => {
    await writeServers(projectFile(), { tools: { command: "tools-mcp", args: ["--stdio"] } });
    expect(await resolveNamed("tools")).toMatchObject({
      ok: true,
      server: "tools",
      spec: { transport: "stdio", command: "tools-mcp", args: ["--stdio"] },
    });
  });

  it("finds a server in the user's {agent_dir}/mcp.json", async () => {
    await writeServers(userFile(), { docs: { url: "https://example.com/mcp", type: "streamable-http" } });
    expect(await resolveNamed("docs")).toMatchObject({
      ok: true,
      spec: { transport: "http", url: "https://example.com/mcp", headers: {} },
    });
  });

  it("lets a project entry replace the user entry of the same name, env and all", async () => {
    await writeServers(userFile(), { tools: { command: "user-tools", env: { FROM_USER: "1" } } });
    await writeServers(projectFile(), { tools: { command: "project-tools" } });
    expect(await resolveNamed("tools")).toMatchObject({
      ok: true,
      spec: { transport: "stdio", command: "project-tools", env: {} },
    });
  });

  it("keeps the user's command when the project entry only sets enabled", async () => {
    await writeServers(userFile(), {
      tools: { command: "user-tools", enabled: false, env: { KEY: "${TOKEN}" } },
    });
    await writeServers(projectFile(), { tools: { enabled: true, exposure: "direct" } });
    expect(await resolveNamed("tools")).toMatchObject({
      ok: true,
      spec: { transport: "stdio", command: "user-tools", env: { KEY: "s3cret" } },
    });
  });

  it("reports a server the project turns off, naming the project file", async () => {
    await writeServers(userFile(), { tools: { command: "user-tools" } });
    await writeServers(projectFile(), { tools: { enabled: false } });
    const message = configMessage(await resolveNamed("tools"));
    expect(message).toContain("disabled");
    expect(message).toContain(projectFile());
  });

  it("reports a disabled server", async () => {
    await writeServers(userFile(), { tools: { command: "user-tools", enabled: false } });
    expect(configMessage(await resolveNamed("tools"))).toContain('"tools" is disabled');
  });

  it("names the known servers when the name is unknown", async () => {
    await writeServers(userFile(), { zeta: { command: "z" }, alpha: { command: "a" } });
    await writeServers(projectFile(), { beta: { url: "https://example.com/mcp" } });
    const message = configMessage(await resolveNamed("gamma"));
    expect(message).toContain('"gamma" is not configured');
    expect(message).toContain("Known servers: alpha, beta, zeta.");
  });

  it("says so when no server is configured at all", async () => {
    expect(configMessage(await resolveNamed("tools"))).toContain("no MCP servers are defined");
  });

  it("treats names that differ only in - and _ as the same server", async () => {
    await writeServers(projectFile(), { my_tools: { command: "tools" } });
    expect(await resolveNamed("my-tools")).toMatchObject({ ok: true, server: "my-tools" });
  });

  it("rejects a second server whose name differs only in - and _", async () => {
    await writeServers(userFile(), { "my-tools": { command: "first" } });
    await writeServers(projectFile(), { my_tools: { command: "second" } });
    // As in Pi, the clashing project entry is skipped and the user's server stays.
    expect(await resolveNamed("my_tools")).toMatchObject({ ok: true, spec: { command: "first" } });
  });
});

describe("invalid configuration", () => {
  it("rejects the legacy sse transport", async () => {
    await writeServers(projectFile(), { old: { type: "sse", url: "https://example.com/sse" } });
    const message = configMessage(await resolveNamed("old"));
    expect(message).toContain('"sse"');
    expect(message).toContain(projectFile());
  });

  it("names the file that is not valid JSON", async () => {
    await writeFile(projectFile(), '{ "mcpServers": { "tools": ');
    const message = configMessage(await resolveNamed("tools"));
    expect(message).toContain(projectFile());
    expect(message).toContain("not valid JSON");
  });

  it("skips an unreadable file when the other one defines the server, as Pi does", async () => {
    await writeFile(userFile(), "not json");
    await writeServers(projectFile(), { tools: { command: "tools" } });
    expect(await resolveNamed("tools")).toMatchObject({ ok: true });
  });

  it("rejects mcpServers that is not an object", async () => {
    await writeFile(userFile(), JSON.stringify({ mcpServers: ["tools"] }));
    const message = configMessage(await resolveNamed("tools"));
    expect(message).toContain(userFile());
    expect(message).toContain('"mcpServers" object');
  });

  it("rejects an entry with neither command nor url", async () => {
    await writeServers(userFile(), { tools: { args: ["x"] } });
    expect(configMessage(await resolveNamed("tools"))).toContain('needs either "command" (stdio) or "url"');
  });

  it("rejects a type that does not match the fields", async () => {
    await writeServers(userFile(), { tools: { type: "http", command: "tools" } });
    expect(configMessage(await resolveNamed("tools"))).toContain('needs either "command"');
  });

  it("rejects a field of the wrong type, naming it", async () => {
    await writeServers(userFile(), { tools: { command: "tools", env: { PORT: 8080 } } });
    expect(configMessage(await resolveNamed("tools"))).toContain("env.PORT must be a string");
  });

  it("rejects a project override with no user server to override", async () => {
    await writeServers(projectFile(), { tools: { enabled: true } });
    expect(configMessage(await resolveNamed("tools"))).toContain("a user server of that name to override");
  });

  it("rejects a project override that sets more than enabled and exposure", async () => {
    await writeServers(userFile(), { tools: { command: "tools", enabled: false } });
    await writeServers(projectFile(), { tools: { enabled: true, env: { A: "b" } } });
    // The override is skipped, so the user's entry (disabled) is what remains.
    expect(configMessage(await resolveNamed("tools"))).toContain("disabled");
  });
});

describe("values", () => {
  it("expands ${VAR} and $VAR, and reads $$ as a literal $", async () => {
    await writeServers(projectFile(), {
      tools: { command: "tools", env: { A: "${TOKEN}", B: "$REGION-1", C: "cost: $$5", D: "plain" } },
    });
    expect(await resolveNamed("tools")).toMatchObject({
      ok: true,
      spec: { env: { A: "s3cret", B: "eu-1", C: "cost: $5", D: "plain" } },
    });
  });

  it("expands ${VAR} in headers", async () => {
    await writeServers(userFile(), {
      docs: {
        url: "https://example.com/mcp",
        headers: { Authorization: "Bearer ${TOKEN}", "X-Region": "$REGION" },
      },
    });
    expect(await resolveNamed("docs")).toMatchObject({
      ok: true,
      spec: { headers: { Authorization: "Bearer s3cret", "X-Region": "eu" } },
    });
  });

  it("reports a variable that is not set", async () => {
    await writeServers(projectFile(), { tools: { command: "tools", env: { KEY: "${MISSING_KEY}" } } });
    const message = configMessage(await resolveNamed("tools"));
    expect(message).toContain('env "KEY"');
    expect(message).toContain("MISSING_KEY");
  });

  it("does not run a !command value and says so", async () => {
    await writeServers(userFile(), {
      docs: { url: "https://example.com/mcp", headers: { Authorization: "!gh auth token" } },
    });
    const message = configMessage(await resolveNamed("docs"));
    expect(message).toContain('header "Authorization"');
    expect(message).toContain("does not run");
  });

  it("resolves a relative cwd against the workspace and ~/ against home", async () => {
    await writeServers(projectFile(), {
      tools: { command: "~/bin/tools", args: ["~/data", "~x", "--flag"], cwd: "sub/dir" },
      homed: { command: "tools", cwd: "~/work" },
    });
    expect(await resolveNamed("tools")).toMatchObject({
      spec: {
        command: join(context.home, "bin/tools"),
        args: [join(context.home, "data"), "~x", "--flag"],
        cwd: join(context.workspace, "sub/dir"),
      },
    });
    expect(await resolveNamed("homed")).toMatchObject({ spec: { cwd: join(context.home, "work") } });
  });
});
