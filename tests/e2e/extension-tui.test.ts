/**
 * The HUD as a person sees it: the real `pi` in its interactive terminal UI, under tmux (a
 * server of its own, 120x40), offline with the scripted model and the pi-quests extension on the
 * starter pack (fixtures/packs/starter). The test reads the screen with `capture-pane`, types with
 * `send-keys`, and checks the widget above the editor, the footer status, the completion
 * notification with the debrief and the next goal drawn as Markdown, and the theme's colors.
 *
 * What Pi 1.6 shows before the editor, found with capture-pane: a header, the loaded extensions
 * and two warnings (fd and ripgrep not found, offline). No dialog needs a keystroke:
 * - the first-run setup (theme, analytics) never runs when PI_CODING_AGENT_DIR is set;
 * - the project-trust prompt appears only when the folder or an ancestor has project resources
 *   (.pi/settings.json, .pi/extensions, .agents/skills, ...); the workspace is an empty temporary
 *   folder, and `defaultProjectTrust: "never"` in the agent dir's settings keeps a stray .pi in
 *   a parent of the temporary folder from turning it into a prompt;
 * - the "tmux extended-keys is off" warning goes away with `extended-keys on` in the test's own
 *   tmux configuration (tests/support/tmux.ts), as Pi's docs/tmux.md asks.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { STARTER_PACK } from "../support/cli.ts";
import type { ScriptedTurn } from "../support/pi.ts";
import { PI, scriptedPiArgs } from "../support/pi-rpc.ts";
import {
  type Cell,
  cleanUpTmuxTest,
  requireTmux,
  rowText,
  startTmux,
  stripSgr,
  styledRows,
} from "../support/tmux.ts";
import { makeWorkspace } from "../support/workspace.ts";

afterEach(cleanUpTmuxTest);

const SCRIPT: ScriptedTurn[] = [
  // The answer to the first message.
  { text: "Hello! I am Pi, ready to help." },
  // The second message: hello.txt written, but it does not say hello.
  { tools: [{ name: "write", arguments: { path: "hello.txt", content: "goodbye world\n" } }] },
  { text: "Done: hello.txt is there." },
];

const HINT_LINE = "  /quest hint · /quest status · /quest list";
/** A row of the editor's frame: nothing but box-drawing lines. */
const isBorder = (line: string) => /^─{20,}$/.test(line.trim());
const lines = (screen: string) => screen.split("\n");
const row = (screen: string, text: string) => lines(screen).findIndex((line) => line.includes(text));

/** The widget's rows, title to hint line, and where the editor and the footer status are. */
function layout(screen: string, title: string, status: string) {
  const rows = lines(screen);
  // The widget's title starts its row; the quest's announcement in the chat above is indented.
  const titleRow = rows.findLastIndex((line) => line.startsWith(title));
  const hintRow = rows.findIndex((line, index) => index > titleRow && line === HINT_LINE);
  const borders = rows.flatMap((line, index) => (isBorder(line) ? [index] : []));
  const statusRow = rows.findLastIndex((line) => line.trim() === status);
  return {
    widget: rows.slice(titleRow, hintRow + 1),
    titleRow,
    hintRow,
    editorTop: borders[0] ?? -1,
    editorBottom: borders.at(-1) ?? -1,
    statusRow,
  };
}

const settled = (screen: string) => !screen.includes("checking…");

function find(styled: Cell[][], text: string): Cell[] {
  // The last such row: the widget sits below the chat, where a quest's announcement also names it.
  const found = styled.findLast((cells) => rowText(cells).includes(text));
  if (!found) throw new Error(`no row with "${text}" on the screen`);
  return found;
}
/** The foreground color of `mark` in the row with `text`. */
const markColor = (styled: Cell[][], text: string, mark: string) =>
  find(styled, text).find((cell) => cell.char === mark)?.fg;

describe("the HUD in Pi's terminal UI, under tmux", () => {
  it("shows the quest above the editor, completes it when the learner talks to Pi, and colors the checks", async () => {
    requireTmux();
    const root = makeWorkspace();
    const workspace = join(root, "workspace");
    const agentDir = join(root, "agent");
    const home = join(root, "home");
    for (const dir of [workspace, agentDir, home]) mkdirSync(dir, { recursive: true });
    writeFileSync(join(agentDir, "settings.json"), JSON.stringify({ defaultProjectTrust: "never" }));
    const scriptFile = join(root, "script.json");
    writeFileSync(scriptFile, JSON.stringify(SCRIPT));

    const pane = startTmux({
      dir: root,
      home,
      cwd: workspace,
      width: 120,
      height: 40,
      command: [process.execPath, PI, ...scriptedPiArgs()],
      env: {
        PI_CODING_AGENT_DIR: agentDir,
        PI_QUESTS_SCRIPT: scriptFile,
        PI_QUESTS_PACK: STARTER_PACK,
        GIT_CONFIG_NOSYSTEM: "1",
        GIT_AUTHOR_NAME: "Learner",
        GIT_AUTHOR_EMAIL: "learner@example.com",
        GIT_COMMITTER_NAME: "Learner",
        GIT_COMMITTER_EMAIL: "learner@example.com",
      },
    });

    try {
      // 1. Before: the first quest. The activated quest is checked at once (the scheduler's
      // questActivated), but the learner has done nothing in it yet: every unmet check is ○
      // "not yet", muted, never a red ✗.
      const beforeColored = await pane.waitForScreen(
        (screen) =>
          screen.includes("Quest 1/3: Say hello to Pi") &&
          /^ {2}○ You sent Pi a message: not yet/m.test(screen) &&
          /^ {2}○ Pi answered it: not yet/m.test(screen) &&
          /^quest 1\/3\s*$/m.test(screen) &&
          settled(screen),
        "the first quest in the HUD",
        { escapes: true },
      );
      const before = stripSgr(beforeColored);
      const first = layout(before, "Quest 1/3: Say hello to Pi", "quest 1/3");
      expect(first.widget).toEqual([
        "Quest 1/3: Say hello to Pi",
        "  ○ You sent Pi a message: not yet",
        "  ○ Pi answered it: not yet",
        HINT_LINE,
      ]);
      expect(before).not.toContain("✓");
      expect(before).not.toContain("✗");
      // The widget sits right above the editor; the status is in the footer below it.
      expect(first.editorTop).toBe(first.hintRow + 1);
      expect(first.editorBottom).toBeGreaterThan(first.editorTop);
      expect(first.statusRow).toBeGreaterThan(first.editorBottom);
      expect(before).not.toContain("Warning: tmux extended-keys");
      const beforeStyled = styledRows(beforeColored);
      // ○ is muted (the theme's muted color may be the terminal's default): never the red of ✗,
      // which step 3 checks.
      const notYetColor = markColor(beforeStyled, "○ You sent Pi a message", "○");
      expect(markColor(beforeStyled, "○ Pi answered it", "○")).toBe(notYetColor);

      // 2. The learner says hello; the scripted model answers; the quest completes.
      pane.type("Hi Pi, what can you do in this folder?", "Enter");
      const after = await pane.waitForScreen(
        (screen) =>
          screen.includes("Quest 2/3: Make your first file") &&
          /^ {2}○ hello\.txt says hello: not yet/m.test(screen) &&
          /^quest 2\/3\s*$/m.test(screen) &&
          settled(screen),
        "the second quest after the first one passed",
      );
      expect(after).toContain("Hi Pi, what can you do in this folder?");
      expect(after).toContain("Hello! I am Pi, ready to help.");
      expect(after).toContain("Quest complete: Say hello to Pi ✓");
      // The first quest's widget is gone (its announcement, indented, stays in the chat above).
      expect(lines(after).filter((line) => line.startsWith("Quest 1/3"))).toEqual([]);
      const second = layout(after, "Quest 2/3: Make your first file", "quest 2/3");
      // The turn that completed quest 1 is no act in quest 2: not yet, never red.
      expect(second.widget).toEqual([
        "Quest 2/3: Make your first file",
        "  ○ Pi wrote hello.txt with its write tool: not yet",
        "  ○ hello.txt exists: not yet",
        "  ○ hello.txt says hello: not yet",
        HINT_LINE,
      ]);
      expect(second.editorTop).toBe(second.hintRow + 1);
      expect(second.statusRow).toBeGreaterThan(second.editorBottom);
      // The notification is in the conversation, above the widget.
      expect(row(after, "Quest complete: Say hello to Pi ✓")).toBeLessThan(second.titleRow);
      // With it, the debrief and the next goal, drawn as Markdown: `hello.txt` without its
      // backticks, each paragraph wrapped evenly within 60 columns though the terminal has 120.
      const told = lines(after).slice(row(after, "Quest complete: Say hello to Pi ✓"), second.titleRow);
      expect(told.join("\n")).toContain("You talked to Pi. Every message starts a run");
      expect(told.join("\n")).toContain("Ask Pi to create a file named hello.txt that greets the");
      expect(told.join("\n")).not.toContain("`");
      expect(Math.max(...told.map((line) => line.trimEnd().length))).toBeLessThanOrEqual(60);
      expect(told.filter((line) => line.trim() !== "").length).toBeGreaterThan(6);

      // 3. Pi writes hello.txt, but not a greeting: two checks pass, one fails. Read with the
      // escape sequences, so the colors checked below are those of this very frame.
      pane.type("Create hello.txt that says hello to the world.", "Enter");
      const colored = await pane.waitForScreen(
        (screen) =>
          screen.includes("Create hello.txt that says hello to the world.") &&
          screen.includes("Done: hello.txt is there.") &&
          screen.includes("  ✓ Pi wrote hello.txt with its write tool") &&
          screen.includes("  ✓ hello.txt exists") &&
          /^ {2}✗ hello\.txt says hello: /m.test(screen) &&
          /^quest 2\/3\s*$/m.test(screen) &&
          settled(screen),
        "two checks passed and one failed",
        { escapes: true },
      );
      expect(stripSgr(colored)).toContain("Quest 2/3: Make your first file");

      // Colors: the screen as the terminal drew it.
      const styled = styledRows(colored);
      const passColor = markColor(styled, "✓ hello.txt exists", "✓");
      const failColor = markColor(styled, "✗ hello.txt says hello", "✗");
      // ✓ and ✗ in colors of the theme, each its own, neither the muted one of ○.
      expect(passColor).toBeDefined();
      expect(failColor).toBeDefined();
      expect(passColor).not.toBe(failColor);
      expect(failColor).not.toBe(notYetColor);
      // The reason in the learner's words: the check's own sentence, no exit code.
      expect(stripSgr(colored)).not.toMatch(/exit code|expected =/);
      expect(markColor(styled, "✓ Pi wrote hello.txt", "✓")).toBe(passColor);
      // The title in bold and colored, the footer status colored.
      const title = find(styled, "Quest 2/3: Make your first file").find((cell) => cell.char === "Q");
      expect(title?.bold).toBe(true);
      expect(title?.fg).toBeDefined();
      const status = styled.findLast((cells) => rowText(cells).trim() === "quest 2/3");
      expect(status?.find((cell) => cell.char === "q")?.fg).toBeDefined();

      // 4. Argument completion: typing `/quest st` offers the subcommands that start so, with what
      // they do; Tab accepts the first and puts the whole argument in the editor.
      pane.type("/quest st");
      const menu = await pane.waitForScreen(
        (screen) =>
          /→ start\s+start a quest: \/quest start ID/.test(screen) &&
          /status\s+why each check is not done yet \(--details: the evidence\)/.test(screen),
        "the completion menu for /quest st",
      );
      expect(menu).not.toMatch(/the next hint for the active quest/);
      pane.type("", "Tab");
      await pane.waitForScreen(
        (screen) => lines(screen).some((line) => /^\/quest start\s*$/.test(line)),
        "the accepted completion in the editor",
      );

      // 5. A subcommand typed in full runs on the first Enter, as Pi's own commands do: no menu
      // offers what is already typed, so Enter is not spent accepting it.
      pane.type("", "C-u");
      await pane.waitForScreen(
        (screen) => !lines(screen).some((line) => line.startsWith("/quest")),
        "an empty editor",
      );
      pane.type("/quest hint");
      await pane.waitForScreen(
        (screen) => lines(screen).some((line) => /^\/quest hint\s*$/.test(line)),
        "/quest hint typed",
      );
      // Time for a completion menu to open, were one offered.
      await new Promise((resolve) => setTimeout(resolve, 500));
      expect(lines(pane.screen())).not.toContainEqual(expect.stringMatching(/→ hint/));
      pane.type("", "Enter");
      await pane.waitForScreen(
        (screen) => screen.includes("Hint 1/2: Ask in plain words"),
        "the hint after one Enter",
      );
    } finally {
      await pane.kill();
    }
    expect(pane.processes()).toEqual([]);
  }, 120_000);
});
