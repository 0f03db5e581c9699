#!/usr/bin/env node
// The team's notes as an MCP server: one tool, `lookup`, over stdio (one JSON-RPC message a
// line). No SDK, nothing to install: enough of the protocol for Pi to connect and call it.
import { createInterface } from "node:readline";

const NOTES = {
  launch: "The launch is on Thursday at 10:00. Heron ships to the beta group first.",
  "on-call": "Ana has the pager this week, then Ravi.",
  testing: "Run the tests with `bash scripts/check.sh` before you push.",
};

const LOOKUP = {
  name: "lookup",
  description: `Look up the team's notes on a topic (${Object.keys(NOTES).join(", ")}).`,
  inputSchema: {
    type: "object",
    properties: { topic: { type: "string", description: "The topic to look up" } },
    required: ["topic"],
  },
};

function answer(method, params) {
  if (method === "initialize")
    return {
      protocolVersion: params?.protocolVersion ?? "2025-11-25",
      capabilities: { tools: {} },
      serverInfo: { name: "notes", version: "1.0.0" },
    };
  if (method === "ping") return {};
  if (method === "tools/list") return { tools: [LOOKUP] };
  if (method === "tools/call") {
    if (params?.name !== LOOKUP.name) throw new Error(`unknown tool ${params?.name}`);
    const topic = String(params.arguments?.topic ?? "")
      .toLowerCase()
      .trim();
    const note = NOTES[topic];
    if (!note) return { content: [{ type: "text", text: `No notes on "${topic}".` }], isError: true };
    return { content: [{ type: "text", text: note }] };
  }
  const error = new Error(`method not found: ${method}`);
  error.code = -32601;
  throw error;
}

const send = (message) => process.stdout.write(`${JSON.stringify({ jsonrpc: "2.0", ...message })}\n`);

createInterface({ input: process.stdin }).on("line", (line) => {
  if (!line.trim()) return;
  let message;
  try {
    message = JSON.parse(line);
  } catch {
    send({ id: null, error: { code: -32700, message: "parse error" } });
    return;
  }
  if (message.id === undefined || message.id === null) return; // a notification: no answer
  try {
    send({ id: message.id, result: answer(message.method, message.params) });
  } catch (error) {
    send({ id: message.id, error: { code: error.code ?? -32603, message: error.message } });
  }
});
