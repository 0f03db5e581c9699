/** Pi's built-in slash commands in a play: sent as the RPC command that does the same, or refused with why. */
import { describe, expect, it } from "vitest";
import { routeCommand } from "../../../src/cli/plays/builtin-commands.ts";

describe("routeCommand", () => {
  it("sends an extension command or a prompt template as a prompt", () => {
    expect(routeCommand("/quest check")).toEqual({ kind: "prompt" });
    expect(routeCommand("/review src/add.js")).toEqual({ kind: "prompt" });
  });

  it("sends Pi's /name, /model, /thinking, /compact, /new, /clone and /export as their RPC commands", () => {
    expect(routeCommand("/name my work")).toEqual({
      kind: "rpc",
      command: { type: "set_session_name", name: "my work" },
    });
    expect(routeCommand("/model pi-quests-play/scripted-thinking")).toEqual({
      kind: "rpc",
      command: { type: "set_model", provider: "pi-quests-play", modelId: "scripted-thinking" },
    });
    expect(routeCommand("/thinking high")).toEqual({
      kind: "rpc",
      command: { type: "set_thinking_level", level: "high" },
    });
    expect(routeCommand("/compact keep the tests")).toEqual({
      kind: "rpc",
      command: { type: "compact", customInstructions: "keep the tests" },
    });
    expect(routeCommand("/compact")).toEqual({ kind: "rpc", command: { type: "compact" } });
    expect(routeCommand("/new")).toEqual({ kind: "rpc", command: { type: "new_session" } });
    expect(routeCommand("/clone")).toEqual({ kind: "rpc", command: { type: "clone" } });
    expect(routeCommand("/export out.html")).toEqual({
      kind: "rpc",
      command: { type: "export_html", outputPath: "out.html" },
    });
    expect(routeCommand("/fork")).toEqual({ kind: "fork" });
  });

  it("refuses what RPC cannot do, saying why and what to write", () => {
    expect(routeCommand("/tree")).toEqual({
      kind: "refused",
      reason:
        "/tree: Pi runs it only in its terminal UI; a play cannot type it over RPC (prove it under tmux)",
    });
    expect(routeCommand("/model scripted")).toMatchObject({
      kind: "refused",
      reason: expect.stringContaining("provider/id"),
    });
    expect(routeCommand("/name")).toMatchObject({ kind: "refused" });
    expect(routeCommand("/export out.jsonl")).toMatchObject({
      kind: "refused",
      reason: expect.stringContaining("HTML"),
    });
  });
});
