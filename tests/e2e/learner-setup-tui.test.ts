/**
 * Setup the learner cannot see, as they see it in Pi's terminal UI under tmux (issue 27, item 5):
 * the real `pi`, offline, on the starter pack (fixtures/packs/starter: "Say hello to Pi", then
 * two quests on a practice folder). A Pi with no model is told, before the learner types
 * anything, how to set one up. In a folder with files in it, the practice folder is refused with
 * advice that works when followed: Pi started in an empty folder carries on there, says from
 * where, starts the quest that needed it, and says which practice files it set up.
 */
import { mkdirSync, realpathSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { STARTER_PACK } from "../support/cli.ts";
import { type ScriptedTurn, scriptedPiEnv } from "../support/pi.ts";
import { EXTENSION, PI, scriptedPiArgs } from "../support/pi-rpc.ts";
import { cleanUpTmuxTest, requireTmux, startTmux, type TmuxPane } from "../support/tmux.ts";
import { makeWorkspace } from "../support/workspace.ts";

afterEach(cleanUpTmuxTest);

/** Starting Pi and setting up a folder are slow on a loaded machine: every wait is generous. */
const WAIT = { timeoutMs: 60_000 };

const settled = (screen: string) => !screen.includes("checking…");
/** The screen as one line: Pi wraps long notices at the terminal's width. */
const flat = (screen: string) => screen.replace(/\s+/g, " ");

type Learner = { root: string; agentDir: string; home: string; scriptFile: string };

function newLearner(script: ScriptedTurn[]): Learner {
  requireTmux();
  const root = makeWorkspace();
  const [agentDir, home] = [join(root, "agent"), join(root, "home")];
  for (const dir of [agentDir, home]) mkdirSync(dir, { recursive: true });
  writeFileSync(join(agentDir, "settings.json"), JSON.stringify({ defaultProjectTrust: "never" }));
  const scriptFile = join(root, "script.json");
  writeFileSync(scriptFile, JSON.stringify(script));
  return { root, agentDir, home, scriptFile };
}

/** The real `pi` in tmux in `cwd`, on the starter pack; `args` are its flags (the scripted model's by default). */
function startPi(learner: Learner, cwd: string, args = scriptedPiArgs()): TmuxPane {
  return startTmux({
    dir: join(learner.root, `tmux-${Math.random().toString(16).slice(2)}`),
    home: learner.home,
    cwd,
    width: 120,
    height: 50,
    command: [process.execPath, PI, ...args],
    // HOME is the pane's own (startTmux sets it after these).
    env: { ...scriptedPiEnv(learner.agentDir, learner.scriptFile), PI_QUESTS_PACK: STARTER_PACK },
  });
}

describe("setup the learner cannot see, in Pi's terminal UI under tmux", () => {
  it("a Pi with no model: before anything is typed, the screen says how to set one up", async () => {
    const learner = newLearner([]);
    const workspace = join(learner.root, "workspace");
    mkdirSync(workspace);
    // No scripted model and no API key: Pi as a learner's first start has it.
    const pane = startPi(learner, workspace, ["--offline", "--no-session", "-e", EXTENSION]);
    const screen = flat(
      await pane.waitForScreen(
        (text) => flat(text).includes("Pi has no model to answer with yet") && text.includes("Quest 1/3"),
        "the model advice and quest 1",
        WAIT,
      ),
    );
    expect(screen).toContain("type /login to sign in to a provider");
    expect(screen).toContain("then /model to pick a model");
    expect(screen).toContain("Quest 1/3: Say hello to Pi");
  });

  it("a folder with files in it: the advice, followed, carries on in the empty folder it names", async () => {
    const learner = newLearner([{ text: "Hello!" }]);
    const project = join(learner.root, "my-project");
    mkdirSync(project);
    writeFileSync(join(project, "notes.md"), "my own notes\n");
    const first = startPi(learner, project);
    await first.waitForScreen(
      (text) => text.includes("Quest 1/3: Say hello to Pi") && settled(text),
      "quest 1",
      WAIT,
    );
    first.type("Hi Pi", "Enter");
    const refused = flat(
      await first.waitForScreen(
        (text) => flat(text).includes("starts there by itself") && settled(text),
        "the empty-folder advice",
        WAIT,
      ),
    );
    expect(refused).toContain("Quest complete: Say hello to Pi ✓");
    expect(refused).toContain("this folder is not empty (notes.md), so nothing was copied or changed.");
    expect(refused).toContain("Start Pi in an empty folder, for example: mkdir -p ~/pi-quests-practice");
    expect(refused).toContain(
      '"Make your first file" starts there by itself, and the quests you did here count there too.',
    );
    first.type("/quit", "Enter");
    await first.waitForExit("Pi to quit", WAIT);

    // As advised: a new, empty folder, Pi started there.
    const practice = join(learner.root, "practice");
    mkdirSync(practice);
    const second = startPi(learner, practice);
    // Pi's confirm dialog, Yes first: the learner agrees to carry on here.
    const asked = flat(
      await second.waitForScreen(
        (text) => flat(text).includes("Carry on from"),
        "the carry-over question",
        WAIT,
      ),
    );
    expect(asked).toContain(`Carry on from ${realpathSync(project)}?`);
    expect(asked).toContain('The 1 quest done there counts here, and "Make your first file" starts here');
    second.type("", "Enter");
    const there = flat(
      await second.waitForScreen(
        (text) =>
          text.includes("Quest 2/3: Make your first file") && flat(text).includes("Practice files set up"),
        "quest 2 in the empty folder",
        WAIT,
      ),
    );
    expect(there).toContain(`Carried on from ${realpathSync(project)}: 1 quest done there counts here.`);
    expect(there).toContain(
      `Practice files set up for this quest in ${realpathSync(practice)}, the folder Pi runs in: README.md, in a new git repository (one commit). Nothing outside this folder was touched.`,
    );
    expect(there).not.toContain("✗");
  });
});
