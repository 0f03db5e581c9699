/**
 * A way forward, as a learner sees it in Pi's terminal UI under tmux (issue 27, item 4): the real
 * `pi`, offline with the scripted model, on the starter pack (fixtures/packs/starter: three
 * quests of one chapter). The learner skips the first quest: the next one opens and says what it
 * builds on; `/quest solution` is closed before a quest is done and shows the reference play's
 * steps after; `/quest check all` says which completed quests still pass and which regressed;
 * the chapter's last quest announces the chapter.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { STARTER_PACK } from "../support/cli.ts";
import type { ScriptedTurn } from "../support/pi.ts";
import { PI, scriptedPiArgs } from "../support/pi-rpc.ts";
import { cleanUpTmuxTest, requireTmux, startTmux } from "../support/tmux.ts";
import { makeWorkspace } from "../support/workspace.ts";

afterEach(cleanUpTmuxTest);

const SCRIPT: ScriptedTurn[] = [
  { tools: [{ name: "write", arguments: { path: "hello.txt", content: "hello world\n" } }] },
  { text: "Done: hello.txt says hello." },
  { tools: [{ name: "bash", arguments: { command: "git add hello.txt && git commit -qm 'Say hello'" } }] },
  { text: "Committed." },
];

const settled = (screen: string) => !screen.includes("checking…");
const flat = (screen: string) => screen.replace(/\s+/g, " ");

describe("a way forward, in Pi's terminal UI under tmux", () => {
  it("skip opens what builds on it, solution after done, check all, the chapter announced", async () => {
    requireTmux();
    const root = makeWorkspace();
    const [workspace, agentDir, home] = ["workspace", "agent", "home"].map((name) => join(root, name));
    for (const dir of [workspace, agentDir, home]) mkdirSync(dir ?? "", { recursive: true });
    writeFileSync(join(agentDir ?? "", "settings.json"), JSON.stringify({ defaultProjectTrust: "never" }));
    const scriptFile = join(root, "script.json");
    writeFileSync(scriptFile, JSON.stringify(SCRIPT));
    const pane = startTmux({
      dir: root,
      home: home ?? "",
      cwd: workspace ?? "",
      width: 120,
      height: 50,
      command: [process.execPath, PI, ...scriptedPiArgs()],
      env: {
        PI_CODING_AGENT_DIR: agentDir ?? "",
        PI_QUESTS_SCRIPT: scriptFile,
        PI_QUESTS_PACK: STARTER_PACK,
        GIT_CONFIG_NOSYSTEM: "1",
        GIT_AUTHOR_NAME: "Learner",
        GIT_AUTHOR_EMAIL: "learner@example.com",
        GIT_COMMITTER_NAME: "Learner",
        GIT_COMMITTER_EMAIL: "learner@example.com",
      },
    });
    const typed = async (line: string, test: (screen: string) => boolean, what: string) => {
      pane.type(line, "Enter");
      return flat(await pane.waitForScreen((screen) => test(flat(screen)) && settled(screen), what));
    };

    await pane.waitForScreen(
      (screen) => screen.includes("Quest 1/3: Say hello to Pi") && settled(screen),
      "quest 1",
    );
    // Before the quest is done, its solution is closed.
    await typed(
      "/quest solution",
      (screen) => screen.includes('The solution of "Say hello to Pi" opens once you complete it'),
      "the solution closed",
    );

    // Skipped: the quest that requires it opens, and says what it builds on.
    const skipped = await typed(
      "/quest skip",
      (screen) => screen.includes("Quest 2/3: Make your first file") && screen.includes("which you skipped"),
      "quest 2 after the skip",
    );
    expect(skipped).toContain(
      "Skipped: Say hello to Pi. It is not done, but quests that build on it open now",
    );
    expect(skipped).toContain('This quest builds on "Say hello to Pi", which you skipped');
    expect(skipped).toContain("(/quest start first-prompt)");
    expect(skipped).not.toContain("locked");

    // A skipped quest's solution is open: its steps in words, whole.
    const solution = await typed(
      "/quest solution first-prompt",
      (screen) => screen.includes('How the reference solution did "Say hello to Pi"'),
      "the skipped quest's solution",
    );
    expect(solution).toContain("1. Type: Hi Pi, what can you do in this folder?");

    // Quest 2 done; check all: it still passes.
    await typed(
      "Create hello.txt that says hello to the world.",
      (screen) =>
        screen.includes("Quest complete: Make your first file ✓") && screen.includes("Quest 3/3: Commit it"),
      "quest 3",
    );
    const allPass = await typed(
      "/quest check all",
      (screen) => screen.includes("Re-checked the 1 completed quest"),
      "check all",
    );
    expect(allPass).toContain("Re-checked the 1 completed quest: 1 of 1 still pass.");
    expect(allPass).toContain("✓ first-file: Make your first file: still passes");

    // The chapter's last open quest: the chapter is announced, with the skipped one.
    const chapter = await typed(
      "Commit hello.txt with the message: Say hello",
      (screen) => screen.includes("Chapter 1 complete: First steps ✓"),
      "the chapter complete",
    );
    expect(chapter).toContain("Quest complete: Commit it ✓");
    expect(chapter).toContain(
      "(2 of 3 quests done, 1 skipped (/quest start first-prompt takes it up again))",
    );

    // Earlier work undone: check all says which regressed, and why, in words.
    await typed("!rm hello.txt", (screen) => screen.includes("rm hello.txt"), "the file removed");
    const regressed = await typed(
      "/quest check all",
      (screen) => screen.includes("regressed."),
      "check all after the file is gone",
    );
    // hello.txt was committed by Commit it, so its removal undoes both quests' work.
    expect(regressed).toContain("Re-checked the 2 completed quests: 0 of 2 still pass; 2 regressed.");
    expect(regressed).toContain(
      "✗ first-file: Make your first file: regressed ✗ hello.txt exists: hello.txt does not exist",
    );
    expect(regressed).toContain("✗ first-commit: Commit it: regressed");
    expect(regressed).toContain("A regressed quest stays done (progress is unchanged)");
    expect(regressed).not.toMatch(/exit code|\[FAIL\]|seq \d/);

    // The done quest's solution: the reference play's tool call in words.
    const done = await typed(
      "/quest solution first-file",
      (screen) => screen.includes('How the reference solution did "Make your first file"'),
      "a done quest's solution",
    );
    expect(done).toContain("1. Type: Create hello.txt that says hello to the world. Pi writes hello.txt");
  }, 180_000);
});
