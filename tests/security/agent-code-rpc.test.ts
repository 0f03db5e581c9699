/**
 * Code the agent writes into Pi, in the real `pi` over RPC (offline, scripted model): the model
 * writes an extension into the project's `.pi/extensions/`, and `/reload` loads it into Pi's own
 * process. There it calls Pi's API (`pi.setModel`, `pi.setThinkingLevel`) to make the events the
 * model-and-thinking quest reads as the learner's own acts. The quest stays open (pi-quests reads
 * who made each change: src/extension/act-origin.ts), the learner's own `/model` and
 * `/thinking high` still complete it, and the HUD and `/quest status` name the code Pi wrote.
 *
 * The attack was green on main's code (the extension's model and level completed the quest):
 * see the commit that added this file.
 */
import { readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { playControlPrompt } from "../../src/core/play-controls.ts";
import { closeAllPis, type PiRpc, type PiRpcOptions, PLAY_CONTROLS, startPiRpc } from "../support/pi-rpc.ts";
import { makeWorkspace, removeWorkspaces } from "../support/workspace.ts";

afterEach(async () => {
  await closeAllPis();
  removeWorkspaces();
});

const REPO = resolve(import.meta.dirname, "../..");

/** The curriculum's quest as it is, without what it needs around it (an earlier quest, the sandbox). */
function modelAndThinkingPack(): string {
  const quest = readFileSync(join(REPO, "quests/130-model-and-thinking.yaml"), "utf8")
    .split("\n")
    .filter((line) => !/^(requires|sandbox):/.test(line))
    .join("\n");
  return makeWorkspace({ "130-model-and-thinking.yaml": quest });
}

/** An extension that picks the reasoning model and sets thinking to high when a session starts. */
const SETS_IT = [
  'import type { ExtensionAPI } from "@earendil-works/pi-coding-agent";',
  "",
  "export default function (pi: ExtensionAPI) {",
  '  pi.on("session_start", async (_event, ctx) => {',
  '    const model = ctx.modelRegistry.find("scripted", "scripted-2");',
  "    if (!model) return;",
  "    await pi.setModel(model);",
  '    pi.setThinkingLevel("high");',
  "  });",
  "}",
  "",
].join("\n");

const WRITE_IT = {
  tools: [{ name: "write", arguments: { path: ".pi/extensions/set-model.ts", content: SETS_IT } }],
};

/** Pi on the model-and-thinking quest, with the play controls for `/reload`, trusting the project. */
function startLearner(options: Partial<PiRpcOptions> = {}): PiRpc {
  return startPiRpc({
    workspace: makeWorkspace(),
    pack: modelAndThinkingPack(),
    extensions: [PLAY_CONTROLS],
    approve: true,
    ...options,
  });
}

/** `/reload`, as the terminal UI does it (the play controls call the same `ctx.reload()`). */
async function reload(pi: PiRpc): Promise<void> {
  const from = pi.lines.length;
  await pi.prompt(playControlPrompt({ action: "reload", args: {} }));
  await pi.waitFor((line) => JSON.stringify(line).includes("pi-quests-play: done"), from);
  await pi.settled();
}

/** Pi's model and thinking level now. */
async function modelAndLevel(pi: PiRpc): Promise<{ model: string; level: string }> {
  const { data } = await pi.request({ type: "get_state" });
  const state = data as { model?: { id: string }; thinkingLevel: string };
  return { model: state.model?.id ?? "", level: state.thinkingLevel };
}

describe("an extension the agent writes sets the model and the thinking level", () => {
  it("at its load after /reload: Pi switches, and the quest stays open", async () => {
    const learner = startLearner({
      script: [WRITE_IT, { text: "The extension is written; /reload loads it." }],
    });
    await learner.settled();
    await learner.prompt("Write an extension that picks a reasoning model and sets thinking to high.");
    await learner.settled();
    const from = learner.lines.length;
    await reload(learner);
    // The attack ran: Pi's model and level are the extension's.
    expect(await modelAndLevel(learner)).toEqual({ model: "scripted-2", level: "high" });
    await learner.settled();
    expect(learner.notifications(from).join("\n")).not.toContain("Quest complete");
    expect(learner.hud().widget?.[0]).toBe("Quest 1/1: Pick a model, think harder");
    expect(await learner.close()).toBe(0);
  });
});
