/**
 * `pi-quests play` opens the real Pi's terminal UI on a pack, in a fresh workspace: with
 * `--quest`, the quests it requires are completed first by their pass plays; with `--solution`,
 * the scripted model answers as the play says. Under tmux, as an author would see it.
 */
import { mkdirSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { BIN, REPO } from "../support/cli.ts";
import { cleanUpTmuxTest, requireTmux, startTmux } from "../support/tmux.ts";
import { makeWorkspace } from "../support/workspace.ts";

afterEach(cleanUpTmuxTest);

const PACK = join(REPO, "fixtures/packs/plays");

describe("pi-quests play, under tmux", () => {
  it("opens Pi on the quest, its requirement done, and the scripted model follows the solution", async () => {
    requireTmux();
    const root = makeWorkspace();
    const home = join(root, "home");
    const tmp = join(root, "tmp");
    mkdirSync(home);
    mkdirSync(tmp);
    const pane = startTmux({
      dir: root,
      home,
      cwd: root,
      width: 120,
      height: 40,
      command: [
        process.execPath,
        BIN,
        "play",
        PACK,
        "--quest",
        "notes",
        "--solution",
        join(PACK, "solutions/notes/pass.yaml"),
      ],
      env: { TMPDIR: tmp },
    });
    await pane.waitForScreen(
      (screen) => screen.includes("Write notes") && !screen.includes("checking…"),
      "the notes quest in the HUD",
      { timeoutMs: 60_000 },
    );
    // The steps printed before Pi's screen took over are in that Pi too, each whole.
    pane.type("/quest solution", "Enter");
    const steps = await pane.waitForScreen(
      (screen) => screen.includes("The play this Pi follows"),
      "the play's steps in Pi",
    );
    expect(steps).toContain("1. Type: Write a note in notes.txt");
    expect(steps).toContain("Pi writes notes.txt");
    pane.type("Write a note in notes.txt", "Enter");
    await pane.waitForScreen((screen) => /Quest complete: Write notes/.test(screen), "the quest complete", {
      timeoutMs: 30_000,
    });
    pane.type("/quit", "Enter");
    await pane.waitForExit("play after /quit", { timeoutMs: 30_000 });
    // The session was in a folder play removes: Pi offers no resume command for it.
    expect(pane.screen()).not.toContain("To resume this session");
    // Pi gone, the play's folders are removed.
    for (let i = 0; i < 100 && readdirSync(tmp).some((name) => name.startsWith("pi-quests-play-")); i++)
      await new Promise((resolve) => setTimeout(resolve, 100));
    expect(readdirSync(tmp).filter((name) => name.startsWith("pi-quests-play-"))).toEqual([]);
  }, 120_000);
});
