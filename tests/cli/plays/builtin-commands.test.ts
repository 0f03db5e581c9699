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
    expect(routeCommand("/settings")).toEqual({
      kind: "refused",
      reason:
        "/settings: Pi runs it only in its terminal UI; a play cannot type it over RPC (prove it under tmux)",
    });
    expect(routeCommand("/hotkeys")).toMatchObject({ kind: "refused" });
    expect(routeCommand("/login")).toMatchObject({ kind: "refused" });
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

  it("sends /reload, /tree, /trust and /resume NAME to the play controls, the words after them being the dialog's choice", () => {
    const control = (text: string) => {
      const route = routeCommand(text);
      return route.kind === "control" ? route.control : route;
    };
    expect(control("/reload")).toEqual({ action: "reload", args: {} });
    expect(control('/tree "Now divide"')).toEqual({ action: "tree", args: { target: "Now divide" } });
    expect(control('/tree "Now  divide" summarize label=start')).toEqual({
      action: "tree",
      args: { target: "Now  divide", summarize: true, label: "start" },
    });
    expect(
      control('/tree "say \\"hi\\"" summarize instructions="keep the numbers" label="two words"'),
    ).toEqual({
      action: "tree",
      args: { target: 'say "hi"', summarize: true, instructions: "keep the numbers", label: "two words" },
    });
    expect(control("/trust")).toEqual({ action: "trust", args: { decision: "yes" } });
    expect(control("/trust session")).toEqual({ action: "trust", args: { decision: "session" } });
    expect(control("/trust no")).toEqual({ action: "trust", args: { decision: "no" } });
    expect(control("/resume practice")).toEqual({ action: "resume", args: { name: "practice" } });
    expect(control('/resume "my work"')).toEqual({ action: "resume", args: { name: "my work" } });
  });

  it("refuses a control's bad forms with the form to write", () => {
    const reason = (text: string) => {
      const route = routeCommand(text);
      return route.kind === "refused" ? route.reason : `not refused: ${JSON.stringify(route)}`;
    };
    expect(reason("/tree")).toBe(
      '/tree: it needs the text of the message to go back to, in quotes: /tree "TEXT" [summarize] [label=NAME] [instructions="..."]',
    );
    expect(reason("/tree Now divide")).toContain("in quotes");
    expect(reason('/tree "Now divide')).toContain("a quote is not closed");
    expect(reason('/tree "Now divide" summarise')).toContain('"summarise" is not one of its words');
    expect(reason('/tree "Now divide" label=')).toContain('"label=" is not one of its words');
    expect(reason('/tree "Now divide" instructions="short"')).toBe(
      "/tree: instructions are for the summary: add summarize",
    );
    expect(reason("/reload now")).toBe("/reload: it takes nothing after it");
    expect(reason("/trust always")).toBe(
      '/trust: "always" is not a choice of the trust dialog: /trust, /trust session or /trust no',
    );
    expect(reason("/resume")).toContain("/resume NAME");
  });
});
