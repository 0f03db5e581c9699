import { describe, expect, it } from "vitest";
import { reportDetailFor } from "../../../src/verifier/checks/registry.ts";
import { evaluateCheck } from "../../../src/verifier/evaluate.ts";
import { check } from "../../support/checks.ts";
import { context, fakeProbes } from "../../support/fake-probes.ts";

describe("mcp_handshake", () => {
  it("mcp passes only when every expected tool is offered", async () => {
    const probes = fakeProbes(
      {},
      {
        mcpHandshake: async () => ({
          ok: true,
          server: "docs",
          transport: "stdio",
          serverInfo: { name: "d", version: "1" },
          protocolVersion: "2025-06-18",
          tools: ["search"],
          launched: { transport: "stdio", commandLine: "docs-server", cwd: "/w", envNames: [] },
        }),
      },
    );
    const ctx = context({ probes });
    expect(
      (await evaluateCheck(check({ type: "mcp_handshake", server: "docs", expect_tools: ["search"] }), ctx))
        .status,
    ).toBe("pass");
    const missing = await evaluateCheck(
      check({ type: "mcp_handshake", server: "docs", expect_tools: ["search", "fetch"] }),
      ctx,
    );
    expect(missing).toMatchObject({ status: "fail", evidence: { missingTools: ["fetch"] } });
  });

  it("mcp: a config problem fails, a server that cannot be reached is pending", async () => {
    const answer = (kind: "config" | "timeout") =>
      context({
        probes: fakeProbes(
          {},
          { mcpHandshake: async () => ({ ok: false, server: "docs", kind, message: kind }) },
        ),
      });
    const mcp = check({ type: "mcp_handshake", server: "docs" });
    expect((await evaluateCheck(mcp, answer("config"))).status).toBe("fail");
    expect((await evaluateCheck(mcp, answer("timeout"))).status).toBe("pending");
  });

  it("a server that could not be reached: a one-line summary, and how it ended under it in the report", async () => {
    const detail = [
      "The server exited with code 1.",
      "Server stderr (last lines):\nError: boom\n    at main (/s.js:1:1)",
    ];
    const ctx = context({
      probes: fakeProbes(
        {},
        {
          mcpHandshake: async () => ({
            ok: false,
            server: "docs",
            kind: "unavailable",
            message: 'MCP server "docs" failed during initialize: Connection closed; it exited with code 1',
            detail,
          }),
        },
      ),
    });
    const result = await evaluateCheck(check({ type: "mcp_handshake", server: "docs" }), ctx);
    expect(result).toMatchObject({
      status: "pending",
      evidence: { kind: "pending", pending: "unavailable", detail: { serverEnd: detail } },
    });
    expect(result.evidence.summary).not.toContain("\n");
    expect(reportDetailFor(result)).toEqual({
      lines: [
        "| The server exited with code 1.",
        "| Server stderr (last lines):",
        "| Error: boom",
        "|     at main (/s.js:1:1)",
      ],
    });
  });
});
