import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { isUiRequest, type PiRpcClient, startPiRpcClient } from "../../../src/cli/plays/pi-rpc.ts";
import { makeWorkspace, removeWorkspaces } from "../../support/workspace.ts";

/**
 * A stand-in for `pi --mode rpc`: it prints its arguments and environment, then answers each
 * command line: `prompt` with a started run (a dialog first when the message is "ask"), `fail`
 * with a refusal, `hang` never; it ignores the end of stdin when started with --stubborn.
 */
const FAKE_PI = `
import { createInterface } from "node:readline";
const out = (line) => process.stdout.write(JSON.stringify(line) + "\\n");
out({ type: "started", argv: process.argv.slice(2), env: process.env, cwd: process.cwd() });
process.stdout.write("not json\\n");
let dialog;
createInterface({ input: process.stdin }).on("line", (text) => {
  const command = JSON.parse(text);
  if (command.type === "extension_ui_response") {
    out({ ...command, type: "answered" });
    if (dialog) { out({ type: "agent_settled" }); dialog = undefined; }
    return;
  }
  if (command.type === "fail") return out({ type: "response", id: command.id, success: false, error: "no" });
  if (command.type === "hang") return;
  if (command.type === "prompt") {
    out({ type: "response", id: command.id, success: true, data: { disposition: "started" } });
    out({ type: "extension_ui_request", id: "w1", method: "setWidget", widgetLines: ["Quest 1/1", command.message] });
    out({ type: "extension_ui_request", id: "n1", method: "notify", message: "said " + command.message });
    if (command.message === "ask") {
      dialog = true;
      return out({ type: "extension_ui_request", id: "c1", method: "confirm", title: "Sure?" });
    }
    setTimeout(() => out({ type: "agent_settled" }), 50);
    return;
  }
  out({ type: "response", id: command.id, success: true, data: { echo: command.type } });
});
process.stdin.on("end", () => { if (!process.argv.includes("--stubborn")) process.exit(0); });
setInterval(() => {}, 1000);
`;

const clients: PiRpcClient[] = [];
afterEach(async () => {
  for (const client of clients.splice(0)) client.kill();
  removeWorkspaces();
});

function start(
  options: { args?: string[]; env?: Record<string, string>; waitMs?: number } & Record<string, unknown> = {},
) {
  const dir = makeWorkspace();
  const cli = join(dir, "fake-pi.mjs");
  writeFileSync(cli, FAKE_PI);
  const client = startPiRpcClient({ cli, cwd: dir, env: options.env ?? { ONLY: "this" }, ...options });
  clients.push(client);
  return { client, dir, cli };
}

describe("the RPC client", () => {
  it("runs the given Pi with --mode rpc, the flags, then each extension; in the folder, with exactly the environment given", async () => {
    const { client, dir } = start({
      args: ["--offline"],
      extensions: ["/a.ts", "/b.ts"],
      env: { ONLY: "this" },
    });
    const started = await client.waitFor((line) => line.type === "started");
    expect(started.argv).toEqual(["--mode", "rpc", "--offline", "-e", "/a.ts", "-e", "/b.ts"]);
    expect(started.cwd).toBe(dir);
    // Node adds nothing of its own but what the platform does; nothing of this process leaks.
    expect(
      Object.keys(started.env as object).filter((key) => key !== "ONLY" && !key.startsWith("__")),
    ).toEqual([]);
    expect(client.pid).toBeGreaterThan(0);
  });

  it("keeps only JSON lines", async () => {
    const { client } = start();
    await client.request({ type: "get_state" });
    expect(client.lines.map((line) => line.type)).toEqual(["started", "response"]);
  });

  it("request: sends a fresh id and resolves with that id's response; a refusal throws unless allowed", async () => {
    const { client } = start();
    const [a, b] = await Promise.all([client.request({ type: "one" }), client.request({ type: "two" })]);
    expect([a.data, b.data]).toEqual([{ echo: "one" }, { echo: "two" }]);
    expect(a.id).not.toBe(b.id);
    await expect(client.request({ type: "fail" })).rejects.toThrow(/^pi refused \{"type":"fail"\}/);
    expect((await client.request({ type: "fail" }, { allowFailure: true })).success).toBe(false);
  });

  it("prompt: waits for the run it started to settle", async () => {
    const { client } = start();
    await client.prompt("hello");
    expect(client.lines.at(-1)?.type).toBe("agent_settled");
    expect(client.widgets()).toEqual([["Quest 1/1", "hello"]]);
    expect(client.notifications()).toEqual(["said hello"]);
    expect(client.hud()).toEqual({ widget: ["Quest 1/1", "hello"], status: undefined });
  });

  it("lines can be watched as they come, and a dialog answered while a prompt waits", async () => {
    const { client } = start();
    const seen: string[] = [];
    const stop = client.onLine((line, index) => {
      seen.push(`${index}:${line.type}`);
      if (isUiRequest(line, "confirm")) client.respond(line, { confirmed: true });
    });
    await client.prompt("ask");
    stop();
    await client.request({ type: "after" });
    expect(seen.at(-1)).toMatch(/:agent_settled$/);
    expect(seen.some((entry) => entry.endsWith(":response"))).toBe(true);
    expect(client.lines.find((line) => line.type === "answered")).toMatchObject({
      type: "answered",
      id: "c1",
      confirmed: true,
    });
    expect(client.uiRequests().map((line) => line.method)).toEqual(["setWidget", "notify", "confirm"]);
  });

  it("answerConfirm answers the next confirm dialog", async () => {
    const { client } = start();
    const from = client.lines.length;
    const prompted = client.prompt("ask");
    const dialog = await client.answerConfirm(false, from);
    await prompted;
    expect(dialog.title).toBe("Sure?");
    expect(client.lines.find((line) => line.type === "answered")).toMatchObject({ confirmed: false });
  });

  it("a wait ends on its timeout, and when Pi exits first", async () => {
    const { client } = start();
    await expect(client.request({ type: "hang" }, { timeoutMs: 100 })).rejects.toThrow(
      /timed out after 100 ms/,
    );
    const waiting = client.waitFor((line) => line.type === "never");
    client.kill();
    await expect(waiting).rejects.toThrow(/^pi exited \(null\) first/);
  });

  it("close ends stdin and resolves with the exit code; a Pi that does not stop is killed after the grace", async () => {
    const polite = start().client;
    await polite.waitFor((line) => line.type === "started");
    expect(await polite.close()).toBe(0);
    const stubborn = start({ args: ["--stubborn"] }).client;
    await stubborn.waitFor((line) => line.type === "started");
    const began = Date.now();
    expect(await stubborn.close({ graceMs: 200 })).toBeNull();
    expect(Date.now() - began).toBeGreaterThanOrEqual(190);
  });

  it("runs through a wrapper when given one", async () => {
    const { client } = start({
      wrap: (file: string, args: string[]) => ({
        file: "sh",
        args: ["-c", 'WRAPPED=1 exec "$0" "$@"', file, ...args],
      }),
    });
    const started = await client.waitFor((line) => line.type === "started");
    expect((started.env as Record<string, string>).WRAPPED).toBe("1");
  });

  it("a Pi that cannot be started ends with the reason in stderr, never a throw", async () => {
    const { client } = start({ node: "/nonexistent/node" });
    expect(await client.exited).toBeNull();
    expect(client.stderr()).toMatch(/ENOENT/);
  });
});
