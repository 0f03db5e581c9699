/**
 * The built-in curriculum's quests whose steps only Pi's terminal UI can take, taken there: the
 * real `pi` in its terminal UI under tmux (tests/support/tmux.ts; started as in
 * extension-tui.test.ts), offline with the fixture scripted model, pi-quests on the built-in pack
 * (quests/, no PI_QUESTS_PACK), a throwaway agent dir and HOME. Over RPC, `pi-quests test` plays
 * these quests with the play controls standing in for the keystrokes (src/extension/play-controls.ts);
 * here a person's keystrokes drive Pi's own selectors:
 *
 * - trust-a-project: Pi's trust prompt at start, "Trust (this session only)" (nothing saved: the
 *   quest stays red), then `/trust` and "Trust" in its selector (trust.json: complete);
 * - tree: two prompts, `/tree`, the first message, Shift+L and a label, Enter, "Summarize";
 * - keybinding: `keybindings.json` written from Pi's `!`, `/reload`, then Alt+T opens the tree.
 *
 * Each quest requires first-prompt: a first Pi completes it by a typed prompt and quits, then a
 * second Pi opens on the quest (`PI_QUESTS_START`) in the same folder and agent dir.
 */
import { existsSync, mkdirSync, readFileSync, realpathSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { readEventLog } from "../../src/events/log-reader.ts";
import { loadQuests } from "../../src/verifier/loader.ts";
import { REPO } from "../support/cli.ts";
import { dataFolderOf, PI, type ScriptedTurn, scriptedPiArgs } from "../support/pi-rpc.ts";
import { agentSealer } from "../support/seal.ts";
import { cleanUpTmuxTest, editorText, requireTmux, startTmux, type TmuxPane } from "../support/tmux.ts";
import { makeWorkspace } from "../support/workspace.ts";

afterEach(cleanUpTmuxTest);

/** Starting Pi, a sandbox set up, a check run: slow on a loaded machine, so every wait is generous. */
const WAIT = { timeoutMs: 60_000 };

let titles: Map<string, string>;
beforeAll(async () => {
  const loaded = await loadQuests(join(REPO, "quests"));
  if (!loaded.ok) throw new Error(JSON.stringify(loaded.diagnostics));
  titles = new Map(loaded.value.map((quest) => [quest.id, quest.title]));
});
const titleOf = (id: string) => titles.get(id) ?? `(no quest ${id} in quests/)`;

type Learner = { root: string; workspace: string; agentDir: string; home: string };

function newLearner(): Learner {
  requireTmux();
  const root = makeWorkspace();
  const learner = {
    root,
    workspace: join(root, "workspace"),
    agentDir: join(root, "agent"),
    home: join(root, "home"),
  };
  for (const dir of [learner.workspace, learner.agentDir, learner.home]) mkdirSync(dir, { recursive: true });
  return learner;
}

let launches = 0;

/**
 * The real `pi` in tmux, on the built-in pack. `trust` is the agent dir's defaultProjectTrust:
 * "never" keeps a stray `.pi` above the temporary folder from asking; "ask" lets Pi's prompt show.
 */
function openPi(
  learner: Learner,
  options: { script: ScriptedTurn[]; start?: string; trust?: "never" | "ask" },
): TmuxPane {
  writeFileSync(
    join(learner.agentDir, "settings.json"),
    JSON.stringify({ defaultProjectTrust: options.trust ?? "never" }),
  );
  const scriptFile = join(learner.root, `script-${++launches}.json`);
  writeFileSync(scriptFile, JSON.stringify(options.script));
  return startTmux({
    dir: join(learner.root, `tmux-${launches}`),
    home: learner.home,
    cwd: learner.workspace,
    width: 120,
    height: 40,
    command: [process.execPath, PI, ...scriptedPiArgs({ session: true })],
    env: {
      PI_CODING_AGENT_DIR: learner.agentDir,
      PI_QUESTS_SCRIPT: scriptFile,
      ...(options.start ? { PI_QUESTS_START: options.start } : {}),
      GIT_CONFIG_NOSYSTEM: "1",
      GIT_AUTHOR_NAME: "Learner",
      GIT_AUTHOR_EMAIL: "learner@example.com",
      GIT_COMMITTER_NAME: "Learner",
      GIT_COMMITTER_EMAIL: "learner@example.com",
    },
  });
}

const settled = (screen: string) => !screen.includes("checking…");
/** The HUD's widget title for the quest: `Quest N/M: TITLE` at the start of a row. */
const inHud = (screen: string, id: string) =>
  screen.split("\n").some((line) => /^Quest \d+\/\d+: /.test(line) && line.endsWith(`: ${titleOf(id)}`));
const completed = (screen: string, id: string) => screen.includes(`Quest complete: ${titleOf(id)} ✓`);

/** The first Pi: first-prompt, the requirement of every quest here, done by a typed prompt; then /quit. */
async function completeFirstPrompt(learner: Learner): Promise<void> {
  const pane = openPi(learner, { script: [{ text: "Hello! I am Pi, ready to help." }] });
  try {
    await pane.waitForScreen(
      (screen) => inHud(screen, "first-prompt") && settled(screen),
      "first-prompt",
      WAIT,
    );
    pane.type("Hi Pi, what can you do in this folder?", "Enter");
    await pane.waitForScreen(
      (screen) => completed(screen, "first-prompt") && inHud(screen, "read-first") && settled(screen),
      "first-prompt complete and the next quest started",
      WAIT,
    );
    pane.type("/quit", "Enter");
    await pane.waitForExit("Pi to quit", WAIT);
  } finally {
    await pane.kill();
  }
}

/** The option a selector has selected (`→ LABEL`, maybe with Pi's `✓ ` saved-option mark). */
function selectedOption(screen: string): string | undefined {
  const line = screen.split("\n").find((row) => /^\s*→ /.test(row));
  return line?.replace(/^\s*→ (✓ )?/, "").trim();
}

/** Moves down a selector to the option `label` (exactly), reading the screen at each step, and picks it. */
async function choose(pane: TmuxPane, label: string): Promise<void> {
  let screen = pane.screen();
  for (let step = 0; selectedOption(screen) !== label; step++) {
    if (step > 10) throw new Error(`no option "${label}" in the selector; the screen:\n${screen}`);
    const before = selectedOption(screen);
    pane.type("", "Down");
    screen = await pane.waitForScreen(
      (now) => selectedOption(now) !== before,
      `the next option after ${before}`,
    );
  }
  pane.type("", "Enter");
}

const rows = (screen: string) => screen.split("\n");
/**
 * Types a command and sends it. In an argument's completion menu (`/quest ch…`) Enter only
 * completes the word, as for a person, who presses Enter again: so does this, while the editor
 * still holds the command (a few times at most).
 */
/** Waits, bounded, until `file` exists (a `!` command writes it after the editor is cleared). */
async function waitForFile(file: string): Promise<void> {
  const deadline = Date.now() + WAIT.timeoutMs;
  while (!existsSync(file)) {
    if (Date.now() > deadline) throw new Error(`${file} was not written within ${WAIT.timeoutMs / 1000} s`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

async function submit(pane: TmuxPane, text: string): Promise<void> {
  pane.type(text);
  await pane.waitForScreen((screen) => editorText(screen) === text, `"${text}" in the editor`, WAIT);
  for (let tries = 1; ; tries++) {
    pane.type("", "Enter");
    try {
      await pane.waitForScreen((screen) => editorText(screen) === "", `"${text}" sent`, { timeoutMs: 3_000 });
      return;
    } catch (error) {
      if (tries >= 4) throw error;
    }
  }
}
/** The tree selector's selected row: `› ` then the entry. */
const treeSelected = (screen: string, entry: string) =>
  rows(screen).some((line) => line.startsWith("› ") && line.includes(entry));

describe("the curriculum's terminal-UI quests, in Pi's terminal UI under tmux", () => {
  it("trust-a-project: 'Trust (this session only)' saves nothing and leaves it red; /trust and 'Trust' complete it", async () => {
    const learner = newLearner();
    await completeFirstPrompt(learner);
    // A project resource, so Pi asks at start, with its session-only options.
    mkdirSync(join(learner.workspace, ".pi"));
    writeFileSync(join(learner.workspace, ".pi", "settings.json"), "{}\n");
    const trustFile = join(learner.agentDir, "trust.json");

    const pane = openPi(learner, { script: [], start: "trust-a-project", trust: "ask" });
    try {
      await pane.waitForScreen(
        (screen) => screen.includes("Trust project folder?") && screen.includes("Trust (this session only)"),
        "Pi's trust prompt",
        WAIT,
      );
      await choose(pane, "Trust (this session only)");
      await pane.waitForScreen(
        (screen) => inHud(screen, "trust-a-project") && settled(screen),
        "trust-a-project in the HUD",
        WAIT,
      );
      // Checked after the choice: still red, nothing saved.
      await submit(pane, "/quest check");
      const red = await pane.waitForScreen(
        (screen) => screen.includes(`${titleOf("trust-a-project")}: 1 of 2 checks pass, 1 not yet.`),
        "the check's result",
        WAIT,
      );
      // Not passed; the dialog is no act a check sees, so not yet, not red.
      expect(red).toMatch(/^ {2}○ This folder is saved as trusted \(trust\.json\): not yet/m);
      expect(red).toMatch(/^ {2}✓ Pi did not write trust\.json for you/m);
      expect(completed(red, "trust-a-project")).toBe(false);
      expect(existsSync(trustFile)).toBe(false);

      // /trust: Pi's own selector; "Trust" saves this folder.
      pane.type("/trust", "Enter");
      await pane.waitForScreen(
        (screen) =>
          screen.includes("Project trust") &&
          screen.includes("Current session: trusted") &&
          screen.includes("Saved decision: none") &&
          selectedOption(screen) !== undefined,
        "the /trust selector",
        WAIT,
      );
      await choose(pane, "Trust");
      await pane.waitForScreen(
        (screen) => screen.includes("Saved trust decision: trusted."),
        "the decision saved",
        WAIT,
      );
      await submit(pane, "/quest check");
      const green = await pane.waitForScreen(
        (screen) => completed(screen, "trust-a-project"),
        "trust-a-project complete",
        WAIT,
      );
      // The debrief, drawn as Markdown: Pi's `trust.json` without its backticks, within 60 columns.
      const told = rows(green).slice(rows(green).findIndex((line) => line.includes("Quest complete:")));
      const debrief = told.slice(0, told.findIndex((line) => line.includes("load either way.")) + 1);
      const prose = debrief.map((line) => line.trim()).join(" ");
      expect(prose).toContain(
        "You saved a trust decision for this folder in Pi's trust.json (in your agent dir)",
      );
      expect(prose).not.toContain("`");
      expect(Math.max(...debrief.map((line) => line.trimEnd().length))).toBeLessThanOrEqual(60);
    } finally {
      await pane.kill();
    }
    expect(JSON.parse(readFileSync(trustFile, "utf8"))).toEqual({ [realpathSync(learner.workspace)]: true });
  }, 240_000);

  it("tree: two prompts, /tree, the first message labelled with Shift+L, Enter and Summarize complete it", async () => {
    const learner = newLearner();
    await completeFirstPrompt(learner);
    const pane = openPi(learner, {
      script: [{ text: "It adds and multiplies numbers." }, { text: "It greets people by name." }],
      start: "tree",
    });
    try {
      await pane.waitForScreen((screen) => inHud(screen, "tree") && settled(screen), "tree in the HUD", WAIT);
      pane.type("What does src/calc.js do?", "Enter");
      await pane.waitForScreen(
        (screen) => screen.includes("It adds and multiplies numbers."),
        "the first answer",
        WAIT,
      );
      pane.type("And src/greet.js?", "Enter");
      await pane.waitForScreen(
        (screen) => screen.includes("It greets people by name."),
        "the second answer",
        WAIT,
      );

      pane.type("/tree", "Enter");
      await pane.waitForScreen(
        (screen) =>
          screen.includes("Session Tree") && treeSelected(screen, "assistant: It greets people by name."),
        "the tree at the current entry",
        WAIT,
      );
      for (let step = 0; !treeSelected(pane.screen(), "user: What does src/calc.js do?"); step++) {
        if (step > 6) throw new Error(`the first message is not in the tree:\n${pane.screen()}`);
        const before = pane.screen();
        pane.type("", "Up");
        await pane.waitForScreen((screen) => screen !== before, "the selection moved up");
      }
      // Shift+L: the label editor; the label shows on the entry.
      pane.type("", "L");
      await pane.waitForScreen(
        (screen) => screen.includes("Label (empty to remove):"),
        "the label editor",
        WAIT,
      );
      pane.type("start", "Enter");
      await pane.waitForScreen(
        (screen) => treeSelected(screen, "[start] user: What does src/calc.js do?"),
        "the labelled entry in the tree",
        WAIT,
      );
      // Enter: back to it, with a summary of the branch left.
      pane.type("", "Enter");
      await pane.waitForScreen(
        (screen) => screen.includes("Summarize branch?"),
        "the summary question",
        WAIT,
      );
      await choose(pane, "Summarize");
      // The label is recorded at the next event, the navigation: both checks pass with it.
      const done = await pane.waitForScreen(
        (screen) => screen.includes("Navigated to selected point") && completed(screen, "tree"),
        "the navigation and tree complete",
        WAIT,
      );
      expect(done).not.toContain("Session Tree");
    } finally {
      await pane.kill();
    }
    // What the HUD saw, in the log: the label on the first message, then the summarized navigation.
    const read = await readEventLog(
      join(dataFolderOf(learner.agentDir, learner.workspace), "events.jsonl"),
      agentSealer(learner.agentDir, "events", learner.workspace),
      "strict",
    );
    if (!read.ok) throw new Error(JSON.stringify(read.diagnostics));
    const since = read.events.findLastIndex(
      (event) => event.name === "quest_activated" && event.payload.quest === "tree",
    );
    const tree = read.events
      .slice(since)
      .filter((event) => event.name === "label" || event.name === "session_tree")
      .map((event) => ({
        name: event.name,
        label: event.payload.label,
        summarized: event.payload.summarized,
      }));
    expect(tree).toEqual([
      { name: "label", label: "start", summarized: undefined },
      { name: "session_tree", label: undefined, summarized: true },
    ]);
  }, 240_000);

  it("keybinding: keybindings.json from Pi's !, /reload, then Alt+T opens the session tree", async () => {
    const learner = newLearner();
    await completeFirstPrompt(learner);
    const pane = openPi(learner, { script: [{ text: "Noted." }], start: "keybinding" });
    try {
      await pane.waitForScreen(
        (screen) => inHud(screen, "keybinding") && settled(screen),
        "keybinding in the HUD",
        WAIT,
      );
      // Before the binding, Alt+T does not open the tree: an entry first, so the tree has one to show.
      pane.type("Remember: keys are personal.", "Enter");
      await pane.waitForScreen((screen) => screen.includes("Noted."), "the answer", WAIT);
      pane.type("", "M-t");
      pane.type("/hotkeys", "Enter");
      // Its table's last row: had Alt+T opened the tree, the tree would have taken the keys.
      const unbound = await pane.waitForScreen(
        (screen) => screen.includes("Run bash command (excluded from context)"),
        "the hotkeys listed",
        WAIT,
      );
      expect(unbound).not.toContain("Session Tree");

      await submit(
        pane,
        `!printf '%s\\n' '{"app.session.tree": "alt+t"}' > "$PI_CODING_AGENT_DIR/keybindings.json"`,
      );
      // The `!` command runs once the editor is cleared: wait for what it writes.
      await waitForFile(join(learner.agentDir, "keybindings.json"));
      expect(JSON.parse(readFileSync(join(learner.agentDir, "keybindings.json"), "utf8"))).toEqual({
        "app.session.tree": "alt+t",
      });

      // The quest wants the reload that makes Pi read the binding.
      pane.type("/reload", "Enter");
      await pane.waitForScreen((screen) => /Reloaded keybindings/.test(screen), "the reload done", WAIT);
      await pane.waitForScreen((screen) => completed(screen, "keybinding"), "keybinding complete", WAIT);
      pane.type("", "M-t");
      await pane.waitForScreen(
        (screen) =>
          screen.includes("Session Tree") &&
          rows(screen).some((line) => line.includes("assistant: Noted.")) &&
          treeSelected(screen, "[bash]: printf"),
        "the tree opened by Alt+T",
        WAIT,
      );
      pane.type("", "Escape");
      await pane.waitForScreen((screen) => !screen.includes("Session Tree"), "the tree closed", WAIT);
    } finally {
      await pane.kill();
    }
  }, 240_000);
});
