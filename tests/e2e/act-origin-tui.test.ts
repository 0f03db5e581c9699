/**
 * Who asked for a model or a thinking level, where a learner asks: the real `pi` in its terminal
 * UI under tmux (tests/support/tmux.ts; started as in extension-tui.test.ts), offline with the
 * scripted model and pi-quests. `/model`, `/thinking high`, Ctrl+P and Shift+Tab are Pi's own
 * interface: each is recorded as the learner's (src/extension/act-origin.ts reads it from the
 * terminal UI's frames), and the curriculum's model-and-thinking quest completes in the HUD.
 */
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { readEventLog } from "../../src/events/log-reader.ts";
import { dataFolderOf, PI, scriptedPiArgs } from "../support/pi-rpc.ts";
import { agentSealer } from "../support/seal.ts";
import { cleanUpTmuxTest, requireTmux, startTmux } from "../support/tmux.ts";
import { makeWorkspace } from "../support/workspace.ts";

afterEach(cleanUpTmuxTest);

const REPO = resolve(import.meta.dirname, "../..");

describe("the learner's model and thinking level in Pi's terminal UI, under tmux", () => {
  it("/model, /thinking high, Ctrl+P and Shift+Tab are recorded as the learner's, and the quest completes", async () => {
    requireTmux();
    const root = makeWorkspace();
    const workspace = join(root, "workspace");
    const agentDir = join(root, "agent");
    const home = join(root, "home");
    const pack = join(root, "pack");
    for (const dir of [workspace, agentDir, home, pack]) mkdirSync(dir, { recursive: true });
    writeFileSync(join(agentDir, "settings.json"), JSON.stringify({ defaultProjectTrust: "never" }));
    // The curriculum's quest as it is, without what it needs around it (an earlier quest, the sandbox).
    const quest = readFileSync(join(REPO, "quests/130-model-and-thinking.yaml"), "utf8")
      .split("\n")
      .filter((line) => !/^(requires|sandbox):/.test(line))
      .join("\n");
    writeFileSync(join(pack, "130-model-and-thinking.yaml"), quest);
    const pane = startTmux({
      dir: root,
      home,
      cwd: workspace,
      width: 120,
      height: 40,
      command: [process.execPath, PI, ...scriptedPiArgs()],
      env: { PI_CODING_AGENT_DIR: agentDir, PI_QUESTS_PACK: pack, GIT_CONFIG_NOSYSTEM: "1" },
    });
    /** The footer's model line: the model, then its thinking level (none for a plain model). */
    const footer = (pattern: RegExp) => (screen: string) =>
      screen.split("\n").some((line) => pattern.test(line));
    try {
      await pane.waitForScreen(
        (screen) => screen.includes("Quest 1/1: Pick a model, think harder") && !screen.includes("checking…"),
        "the quest in the HUD",
      );
      // Ctrl+P to the reasoning model, Shift+Tab to a level: the learner's, not yet what the quest asks.
      pane.type("", "C-p");
      await pane.waitForScreen(footer(/ scripted-2 • thinking off$/), "the reasoning model, by Ctrl+P");
      pane.type("", "BTab");
      await pane.waitForScreen(footer(/ scripted-2 • minimal$/), "a level, by Shift+Tab");
      // /model back and forth (the first Enter takes the completion, the second runs it), /thinking high.
      pane.type("/model scripted-1");
      await pane.waitForScreen((screen) => screen.includes("→ scripted-1"), "the model's completion");
      pane.type("", "Enter");
      await pane.waitForScreen((screen) => screen.includes("/model scripted/scripted-1"), "the command");
      pane.type("", "Enter");
      await pane.waitForScreen(footer(/ scripted-1$/), "the plain model, by /model");
      pane.type("/model scripted-2");
      await pane.waitForScreen((screen) => screen.includes("→ scripted-2"), "the model's completion");
      pane.type("", "Enter");
      await pane.waitForScreen((screen) => screen.includes("/model scripted/scripted-2"), "the command");
      pane.type("", "Enter");
      await pane.waitForScreen(footer(/ scripted-2 • thinking off$/), "the reasoning model, by /model");
      pane.type("/thinking high");
      await pane.waitForScreen((screen) => screen.includes("/thinking high"), "the command typed");
      // The first Enter may only take a completion: then a second one runs the command.
      const done = (screen: string) => screen.includes("Quest complete: Pick a model, think harder ✓");
      pane.type("", "Enter");
      const ran = await pane
        .waitForScreen((screen) => footer(/ scripted-2 • high$/)(screen) || done(screen), "the level", {
          timeoutMs: 3000,
        })
        .then(
          () => true,
          () => false,
        );
      if (!ran) pane.type("", "Enter");
      await pane.waitForScreen(done, "the quest complete");
    } finally {
      await pane.kill();
    }
    const read = await readEventLog(
      join(dataFolderOf(agentDir, workspace), "events.jsonl"),
      agentSealer(agentDir, "events", workspace),
      "strict",
    );
    if (!read.ok) throw new Error(JSON.stringify(read.diagnostics));
    const changes = read.events
      .filter((event) => event.name === "model_select" || event.name === "thinking_level_select")
      .map((event) => [event.name, event.payload.modelId ?? event.payload.level, event.payload.origin]);
    expect(changes).toEqual([
      ["model_select", "scripted-2", "learner"],
      ["thinking_level_select", "minimal", "learner"],
      ["model_select", "scripted-1", "learner"],
      ["thinking_level_select", "off", "learner"],
      ["model_select", "scripted-2", "learner"],
      ["thinking_level_select", "high", "learner"],
    ]);
  }, 90_000);
});
