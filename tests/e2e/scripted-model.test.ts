/**
 * The shipped scripted model (src/extension/scripted-model.ts) in the real `pi`, over RPC with
 * pi-quests' own client: offline, no key, each prompt its own replies, a compaction and a new
 * session in between, and the plain "no more replies" text at the end.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { type PiRpcClient, type RpcLine, startPiRpcClient } from "../../src/cli/plays/pi-rpc.ts";
import {
  CLOSING_TEXT,
  NO_MORE_REPLIES,
  PLAY_MODEL,
  PLAY_PROVIDER,
  playRepliesJson,
  SUMMARY_TEXT,
} from "../../src/core/play-replies.ts";
import { PI } from "../support/pi-rpc.ts";
import { makeWorkspace, removeWorkspaces } from "../support/workspace.ts";

const SCRIPTED_MODEL = join(import.meta.dirname, "../../src/extension/scripted-model.ts");

const clients: PiRpcClient[] = [];
afterEach(async () => {
  await Promise.all(clients.splice(0).map((client) => client.close()));
  removeWorkspaces();
});

/** The texts of the assistant messages Pi finished from line `from` on. */
function assistantTexts(lines: readonly RpcLine[], from = 0): string[] {
  return lines.slice(from).flatMap((line) => {
    const message = line.message as
      | { role?: string; content?: Array<{ type: string; text?: string }> }
      | undefined;
    if (line.type !== "message_end" || message?.role !== "assistant") return [];
    return [
      (message.content ?? [])
        .map((block) => (block.type === "text" ? block.text : `[${block.type}]`))
        .join(""),
    ];
  });
}

describe("the shipped scripted model in the real pi", () => {
  it("plays each prompt's own replies offline, through a compaction and a new session, then says it has no more", async () => {
    const workspace = makeWorkspace();
    // keepRecentTokens 1: a session this small can be compacted.
    const agent = makeWorkspace({ "settings.json": JSON.stringify({ compaction: { keepRecentTokens: 1 } }) });
    const replies = join(agent, "replies.json");
    writeFileSync(
      replies,
      playRepliesJson([
        [{ tool: "write", args: { path: "hello.txt", content: "hello\n" } }],
        [{ text: "second" }, { text: "never said" }],
        [{ text: "after /new" }],
      ]),
    );
    const client = startPiRpcClient({
      cli: PI,
      cwd: workspace,
      env: {
        PATH: process.env.PATH ?? "",
        HOME: agent,
        PI_CODING_AGENT_DIR: agent,
        PI_QUESTS_PLAY_REPLIES: replies,
      },
      args: ["--offline", "--no-session", "--provider", PLAY_PROVIDER, "--model", PLAY_MODEL],
      extensions: [SCRIPTED_MODEL],
    });
    clients.push(client);

    let from = client.lines.length;
    await client.prompt("Create hello.txt");
    expect(readFileSync(join(workspace, "hello.txt"), "utf8")).toBe("hello\n");
    expect(assistantTexts(client.lines, from)).toEqual(["[toolCall]", CLOSING_TEXT]);

    const compacted = await client.request({ type: "compact" });
    expect((compacted.data as { summary?: string }).summary).toContain(SUMMARY_TEXT);

    from = client.lines.length;
    await client.prompt("And now?");
    expect(assistantTexts(client.lines, from)).toEqual(["second"]);

    await client.request({ type: "new_session" });
    from = client.lines.length;
    await client.prompt("Hello again");
    expect(assistantTexts(client.lines, from)).toEqual(["after /new"]);

    from = client.lines.length;
    await client.prompt("More?");
    expect(assistantTexts(client.lines, from)).toEqual([NO_MORE_REPLIES]);
    expect(client.lines.slice(from).some((line) => line.type === "auto_retry_start")).toBe(false);
  });
});
