/**
 * The two version 2 events RPC has no command for, made the way a person makes them: the real
 * `pi` in its terminal UI under tmux (tests/support/tmux.ts; started as in extension-tui.test.ts),
 * offline with the scripted model and pi-quests, a session file kept.
 *
 * - `/tree`, an earlier entry, Enter, "Summarize": a `session_tree` event with the summary (and a
 *   branch_summary entry in the session file);
 * - `/tree`, Shift+L on an entry, a label, Enter: a `label` event, recorded by the next event at
 *   the latest (here the next prompt, before its `input`).
 *
 * A one-quest pack that needs both completes in the HUD. Everything is read back from the event
 * log the extension wrote.
 */
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { SUMMARY_TEXT } from "../../fixtures/pi/scripted-model.ts";
import { readEventLog } from "../../src/events/log-reader.ts";
import { dataFolderOf, PI, type ScriptedTurn, scriptedPiArgs } from "../support/pi-rpc.ts";
import { agentSealer } from "../support/seal.ts";
import { cleanUpTmuxTest, requireTmux, startTmux } from "../support/tmux.ts";
import { makeWorkspace } from "../support/workspace.ts";

afterEach(cleanUpTmuxTest);

const SCRIPT: ScriptedTurn[] = [
  { text: "First answer." },
  { text: "Second answer." },
  { text: "Third answer." },
];

const PACK_QUEST = [
  "version: 2",
  "id: tree",
  "title: Find your way in the tree",
  "goal: Go back with a summary, then label an entry.",
  "checks:",
  "  - id: summarized",
  "    type: event",
  "    match: { event: session_tree, fields: { summarized: true } }",
  "  - id: labelled",
  "    type: event",
  "    match: { event: label, fields: { label: milestone } }",
  "",
].join("\n");

/** The tree selector's selected row: `› ` then the entry. */
const selected = (screen: string, entry: string) =>
  screen.split("\n").some((line) => line.startsWith("› ") && line.includes(entry));

type Entry = { type: string; id: string; message?: { role: string; content?: { text?: string }[] } };

describe("/tree in Pi's terminal UI, under tmux", () => {
  it("a summarized navigation and a label set with Shift+L are recorded", async () => {
    requireTmux();
    const root = makeWorkspace();
    const workspace = join(root, "workspace");
    const agentDir = join(root, "agent");
    const home = join(root, "home");
    const pack = join(root, "pack");
    for (const dir of [workspace, agentDir, home, pack]) mkdirSync(dir, { recursive: true });
    writeFileSync(join(agentDir, "settings.json"), JSON.stringify({ defaultProjectTrust: "never" }));
    writeFileSync(join(pack, "10-tree.yaml"), PACK_QUEST);
    const scriptFile = join(root, "script.json");
    writeFileSync(scriptFile, JSON.stringify(SCRIPT));

    const pane = startTmux({
      dir: root,
      home,
      cwd: workspace,
      width: 120,
      height: 40,
      command: [process.execPath, PI, ...scriptedPiArgs({ session: true })],
      env: {
        PI_CODING_AGENT_DIR: agentDir,
        PI_QUESTS_SCRIPT: scriptFile,
        PI_QUESTS_PACK: pack,
        GIT_CONFIG_NOSYSTEM: "1",
      },
    });

    try {
      await pane.waitForScreen(
        (screen) => screen.includes("Quest 1/1: Find your way in the tree") && !screen.includes("checking…"),
        "the quest in the HUD",
      );
      pane.type("First message", "Enter");
      await pane.waitForScreen((screen) => screen.includes("First answer."), "the first answer");
      pane.type("Second message", "Enter");
      await pane.waitForScreen((screen) => screen.includes("Second answer."), "the second answer");

      // /tree, back to the first answer, with a summary of the branch left behind.
      pane.type("/tree", "Enter");
      await pane.waitForScreen(
        (screen) => screen.includes("Session Tree") && selected(screen, "assistant: Second answer."),
        "the tree at the current entry",
      );
      pane.type("", "Up", "Up");
      await pane.waitForScreen(
        (screen) => selected(screen, "assistant: First answer."),
        "the first answer selected",
      );
      pane.type("", "Enter");
      await pane.waitForScreen(
        (screen) => screen.includes("Summarize branch?") && /→ No summary/.test(screen),
        "the summary question",
      );
      pane.type("", "Down");
      await pane.waitForScreen((screen) => /→ Summarize\s*$/m.test(screen), "Summarize selected");
      pane.type("", "Enter");
      await pane.waitForScreen(
        (screen) => screen.includes("Navigated to selected point") && !screen.includes("Session Tree"),
        "the navigation done",
      );

      // /tree again, Shift+L on the first answer, a label.
      pane.type("/tree", "Enter");
      await pane.waitForScreen(
        (screen) => screen.includes("Session Tree") && selected(screen, "[branch summary]"),
        "the tree at the branch summary",
      );
      pane.type("", "Up");
      await pane.waitForScreen(
        (screen) => selected(screen, "assistant: First answer."),
        "the first answer selected",
      );
      pane.type("", "L");
      await pane.waitForScreen((screen) => screen.includes("Label (empty to remove):"), "the label editor");
      pane.type("milestone", "Enter");
      await pane.waitForScreen(
        (screen) => selected(screen, "[milestone] assistant: First answer."),
        "the labelled entry in the tree",
      );
      pane.type("", "Escape");
      await pane.waitForScreen((screen) => !screen.includes("Session Tree"), "the tree closed");

      // The next prompt: the label is recorded before its input, and the quest completes.
      pane.type("Third message", "Enter");
      await pane.waitForScreen(
        (screen) =>
          screen.includes("Third answer.") && screen.includes("Quest complete: Find your way in the tree ✓"),
        "the third answer and the quest complete",
      );
    } finally {
      await pane.kill();
    }
    expect(pane.processes()).toEqual([]);

    const read = await readEventLog(
      join(dataFolderOf(agentDir, workspace), "events.jsonl"),
      agentSealer(agentDir, "events", workspace),
      "strict",
    );
    if (!read.ok) throw new Error(JSON.stringify(read.diagnostics));
    const events = read.events.filter(
      (event) => !event.name.startsWith("quest_") && event.name !== "context_loaded",
    );

    const [folder = ""] = readdirSync(join(agentDir, "sessions"));
    const [file = ""] = readdirSync(join(agentDir, "sessions", folder));
    const entries = readFileSync(join(agentDir, "sessions", folder, file), "utf8")
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line) as Entry & { summary?: string });
    const firstAnswer = entries.find(
      (entry) => entry.message?.role === "assistant" && entry.message.content?.[0]?.text === "First answer.",
    );
    const branchSummary = entries.find((entry) => entry.type === "branch_summary");
    expect(branchSummary?.summary).toContain(SUMMARY_TEXT);

    const tree = events.filter((event) => event.name === "session_tree");
    expect(tree.map((event) => event.payload)).toEqual([
      { summarized: true, summary: branchSummary?.summary },
    ]);
    const labels = events.filter((event) => event.name === "label");
    expect(labels.map((event) => event.payload)).toEqual([{ label: "milestone", entryId: firstAnswer?.id }]);
    // In the order of the session: the navigation, the label, then the third message.
    const order = events.map((event) =>
      event.name === "input" ? `input ${event.payload.text}` : event.name,
    );
    expect(order.slice(order.indexOf("session_tree"))).toEqual([
      "session_tree",
      "label",
      "input Third message",
      "turn_end",
      "agent_end",
    ]);
  }, 60_000);
});
