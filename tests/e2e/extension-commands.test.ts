/**
 * `/quest` in the real `pi` over RPC, with a two-quest pack (fixtures/packs/extension): a confirm
 * check answered in a dialog, then a sandbox quest whose command runs a test in the isolated
 * task verifier. Also: progress across restarts and `/new`, a corrupted progress file, quest
 * definitions pinned at activation, and shutdown stopping a running check.
 */
import { cpSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { REPO } from "../support/cli.ts";
import {
  closeAllPis,
  command,
  dataFolderOf,
  type PiRpc,
  slowQuestPack,
  startPiRpc,
} from "../support/pi-rpc.ts";
import { expectNoLeftoverWorktrees, processesMentioning } from "../support/task-verifier.ts";
import { git, makeWorkspace } from "../support/workspace.ts";

const PACK = join(REPO, "fixtures/packs/extension");
const HELP_LINE = "  /quest hint · /quest status · /quest list";

afterEach(closeAllPis);

/** The processes mentioning `marker`, once there are some (or none after 15 s). */
async function untilRunning(marker: string): Promise<number[]> {
  for (let tries = 0; tries < 150; tries++) {
    const found = processesMentioning(marker);
    if (found.length > 0) return found;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return [];
}

/** The workspace's progress file, as the extension wrote it. */
const progressOf = (agentDir: string, workspace: string) =>
  JSON.parse(readFileSync(join(dataFolderOf(agentDir, workspace), "progress.json"), "utf8"));

/** `/quest check` with the confirm dialog answered; returns the dialog Pi showed. */
async function checkAnswering(learner: PiRpc, confirmed: boolean) {
  const from = learner.lines.length;
  const id = `check-${from}`;
  learner.send({ id, type: "prompt", message: "/quest check" });
  const dialog = await learner.answerConfirm(confirmed, from);
  await learner.waitFor((line) => line.type === "response" && line.id === id, from);
  await learner.settled();
  return dialog;
}

/** Completes the first quest: the plan confirmed, then a message to Pi. */
async function finishReflect(learner: PiRpc) {
  await learner.settled();
  await checkAnswering(learner, true);
  await learner.prompt("Hello Pi");
  await learner.settled();
}

describe("/quest commands", () => {
  it("list, hint, unknown subcommands and ids, locked quests", async () => {
    const learner = startPiRpc({ workspace: makeWorkspace(), pack: PACK });
    // The first quest announces its goal as it starts: on a loaded machine that can come after
    // the HUD has settled, and must not be taken for /quest list's answer.
    await learner.waitFor(
      (line) => line.method === "notify" && String(line.message).startsWith("Quest 1/2: Read before you run"),
    );
    await learner.settled();

    expect(await command(learner, "/quest list")).toEqual([
      [
        "Quests: 0/2 done",
        "1. reflect: Read before you run (▶ active)",
        "2. greet: Make the test pass (locked: needs reflect)",
        "Start one with /quest start ID; /quest skip skips the active one.",
      ].join("\n"),
    ]);
    expect(await command(learner, "/quest hint")).toEqual([
      "Hint 1/2: Type /quest check and answer the question.",
    ]);
    expect(await command(learner, "/quest hint")).toEqual([
      "Hint 2/2 (the last one): Then send Pi a message.",
    ]);
    expect(await command(learner, "/quest hint")).toEqual([
      "Hint 2/2 (the last one): Then send Pi a message.",
    ]);

    const [unknown = ""] = await command(learner, "/quest bogus");
    expect(unknown).toContain('Unknown /quest command "bogus"');
    for (const sub of ["list", "start", "check", "hint", "status", "skip", "debrief", "solution", "reset"])
      expect(unknown).toContain(`/quest ${sub}`);
    expect(await command(learner, "/quest start nope")).toEqual([
      'No quest "nope". The quests are: reflect, greet',
    ]);
    expect(await command(learner, "/quest start greet")).toEqual([
      '"Make the test pass" needs reflect first (/quest start reflect).',
    ]);
  });

  it("check asks confirm checks in a dialog, records the answer, and a yes passes the check", async () => {
    const workspace = makeWorkspace();
    const learner = startPiRpc({ workspace, pack: PACK, script: [{ text: "Hello!" }] });
    await learner.settled();
    expect(learner.hud().widget?.[1]).toBe("  … You read the plan: /quest check to confirm");

    const no = await checkAnswering(learner, false);
    expect(no).toMatchObject({
      title: "Read before you run",
      message: "Did you read the plan in README.md?",
    });
    expect(learner.hud().widget?.[1]).toBe("  … You read the plan: you answered no; /quest check asks again");
    expect(progressOf(learner.agentDir, workspace).confirmations.reflect["read-it"].answer).toBe(false);

    const from = learner.lines.length;
    await checkAnswering(learner, true);
    expect(learner.notifications(from)).toContain("Read before you run: 1 of 2 checks pass, 1 not yet.");
    expect(learner.hud().widget?.slice(0, 2)).toEqual([
      "Quest 1/2: Read before you run",
      "  ✓ You read the plan",
    ]);
    expect(progressOf(learner.agentDir, workspace).confirmations.reflect["read-it"].answer).toBe(true);

    // Asked once: a later check does not ask again.
    const later = learner.lines.length;
    await learner.prompt("Hello Pi");
    await learner.settled();
    expect(learner.lines.slice(later).some((line) => line.method === "confirm")).toBe(false);
    expect(learner.notifications(later)).toContainEqual(
      expect.stringMatching(/^Quest complete: Read before you run ✓/),
    );
  });

  it("status shows the last result with its evidence, a failing command's output included", async () => {
    const workspace = makeWorkspace();
    const learner = startPiRpc({ workspace, pack: PACK, script: [{ text: "Hello!" }] });
    await finishReflect(learner);
    // Nothing done in this quest yet: not yet, never red.
    expect(learner.hud().widget).toEqual([
      "Quest 2/2: Make the test pass",
      "  ○ bash test.sh passes: not yet",
      HELP_LINE,
    ]);
    // The learner's status: each check in words, and where the checker's own detail is.
    const [status = ""] = await command(learner, "/quest status");
    expect(status).toContain(
      "Make the test pass\n  ○ bash test.sh passes: not yet\n0 of 1 check passes. The checker's own detail: /quest status --details",
    );
    expect(status).not.toMatch(/\[FAIL\]|exit code|test-passes/);
    expect(status).toContain("Goal:\nAsk Pi to make `bash test.sh` pass by creating greeting.txt.");
    // The author's: ids, tags, the exit code and the output.
    const [details = ""] = await command(learner, "/quest status --details");
    expect(details).toContain("greet: Make the test pass");
    expect(details).toContain("[FAIL] test-passes (bash test.sh passes): exit code 1, expected = 0");
    expect(details).toContain("| test.sh: greeting.txt does not say hello");
    // After a `!` command of the learner's: red, with the test's own sentence.
    await learner.request({ type: "bash", command: "echo trying" });
    await learner.settled();
    expect(learner.hud().widget?.[1]).toBe("  ✗ bash test.sh passes: greeting.txt does not say hello");
  });

  it("reset asks first: no changes nothing, yes starts over and keeps the files", async () => {
    const workspace = makeWorkspace();
    const learner = startPiRpc({ workspace, pack: PACK, script: [{ text: "Hello!" }] });
    await finishReflect(learner);
    const before = learner.hud();

    let from = learner.lines.length;
    let id = `reset-${from}`;
    learner.send({ id, type: "prompt", message: "/quest reset" });
    const dialog = await learner.answerConfirm(false, from);
    expect(dialog).toMatchObject({ title: "Reset quest progress?" });
    await learner.waitFor((line) => line.type === "response" && line.id === id, from);
    expect(learner.notifications(from)).toEqual(["Reset cancelled."]);
    expect(learner.hud()).toEqual(before);

    from = learner.lines.length;
    id = `reset-${from}`;
    learner.send({ id, type: "prompt", message: "/quest reset" });
    await learner.answerConfirm(true, from);
    await learner.waitFor((line) => line.type === "response" && line.id === id, from);
    await learner.settled();
    expect(learner.notifications(from)).toContain("Quest progress reset.");
    expect(learner.hud().widget?.[0]).toBe("Quest 1/2: Read before you run");
    expect(learner.hud().widget?.[2]).toMatch(/^ {2}○ You asked Pi something: not yet$/);
    expect(progressOf(learner.agentDir, workspace).completed).toEqual({});
    expect(readdirSync(workspace).sort()).toEqual([".git", "README.md", "test.sh"]);
  });
});

describe("the isolated task verifier behind the HUD", () => {
  it("a test rewritten to exit 0 does not pass; the real fix does; the learner's files are untouched", async () => {
    const workspace = makeWorkspace();
    const learner = startPiRpc({
      workspace,
      pack: PACK,
      script: [
        { text: "Hello!" },
        { tools: [{ name: "write", arguments: { path: "test.sh", content: "exit 0\n" } }] },
        { text: "The test passes now." },
        { tools: [{ name: "write", arguments: { path: "greeting.txt", content: "hello\n" } }] },
        { text: "greeting.txt says hello." },
      ],
    });
    await finishReflect(learner);

    let from = learner.lines.length;
    await learner.prompt("Make bash test.sh pass.");
    await learner.settled();
    expect(learner.notifications(from)).not.toContainEqual(
      expect.stringMatching(/^Quest complete: Make the test pass ✓/),
    );
    expect(learner.hud().widget?.[1]).toBe(TEST_SH_NOT_USED);
    expect(readFileSync(join(workspace, "test.sh"), "utf8")).toBe("exit 0\n");

    from = learner.lines.length;
    await learner.prompt("Create greeting.txt that says hello.");
    await learner.settled();
    expect(learner.notifications(from)).toContainEqual(
      expect.stringMatching(/^Quest complete: Make the test pass ✓/),
    );
    expect(learner.hud()).toEqual({ widget: ["Quests 2/2 done. Well played!"], status: "quests 2/2 ✓" });
    expect(readFileSync(join(workspace, "test.sh"), "utf8")).toBe("exit 0\n");
  });

  it("checks what was pinned at activation, even after the quest file is edited, across a restart", async () => {
    const pack = join(makeWorkspace(), "pack");
    cpSync(PACK, pack, { recursive: true });
    const workspace = makeWorkspace();
    const first = startPiRpc({ workspace, pack, script: [{ text: "Hello!" }] });
    await finishReflect(first);
    expect(first.hud().widget?.[1]).toBe("  ○ bash test.sh passes: not yet");
    await first.close();

    // Someone (the agent, say) rewrites the quest to something that always passes.
    const questFile = join(pack, "20-greet.yaml");
    writeFileSync(questFile, readFileSync(questFile, "utf8").replace("run: bash test.sh", "run: 'true'"));

    const second = startPiRpc({ workspace, pack, agentDir: first.agentDir, script: [] });
    await second.settled();
    // Still not a pass: the pinned check runs, not the rewritten one.
    expect(second.hud().widget).toEqual([
      "Quest 2/2: Make the test pass",
      "  ○ bash test.sh passes: not yet",
      HELP_LINE,
    ]);
  });
});

describe("progress", () => {
  it("a second pi in the same folder continues where the first stopped", async () => {
    const workspace = makeWorkspace();
    const first = startPiRpc({ workspace, pack: PACK, script: [{ text: "Hello!" }] });
    await finishReflect(first);
    expect(await first.close()).toBe(0);

    const second = startPiRpc({ workspace, pack: PACK, agentDir: first.agentDir });
    await second.settled();
    expect(second.widgets().every((widget) => widget[0]?.startsWith("Quest 2/2: Make the test pass"))).toBe(
      true,
    );
    expect(second.hud().status).toBe("quest 2/2");
    expect((await command(second, "/quest list"))[0]).toContain("1. reflect: Read before you run (✓ done)");
  });

  it("survives /new: the new session shows the same quest", async () => {
    const workspace = makeWorkspace();
    const learner = startPiRpc({ workspace, pack: PACK, session: true, script: [{ text: "Hello!" }] });
    await finishReflect(learner);
    const before = learner.hud();
    const from = learner.lines.length;
    learner.send({ id: "new", type: "new_session" });
    const response = await learner.waitFor((line) => line.type === "response" && line.id === "new", from);
    expect(response).toMatchObject({ success: true, data: { cancelled: false } });
    await learner.settled();
    expect(learner.widgets(from).length).toBeGreaterThan(0);
    expect(learner.hud()).toEqual(before);
    const events = readFileSync(join(dataFolderOf(learner.agentDir, workspace), "events.jsonl"), "utf8")
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line));
    const sessions = new Set(events.filter((e) => e.name === "session_start").map((e) => e.sessionId));
    expect(sessions.size).toBe(2);
  });

  it("a corrupted progress file is reported and kept aside, and the quests start over", async () => {
    const workspace = makeWorkspace();
    const agentDir = makeWorkspace();
    const folder = dataFolderOf(agentDir, workspace);
    mkdirSync(folder, { recursive: true });
    writeFileSync(join(folder, "progress.json"), "{ this is not json");

    const learner = startPiRpc({ workspace, pack: PACK, agentDir });
    await learner.settled();
    const [warning = ""] = learner.notifications().filter((text) => text.includes("could not be read"));
    expect(warning).toMatch(/your progress file could not be read \(not JSON/);
    const backups = readdirSync(folder).filter((name) => name.startsWith("progress.json.corrupt-"));
    expect(backups).toHaveLength(1);
    expect(warning).toContain(join(folder, backups[0] ?? ""));
    expect(readFileSync(join(folder, backups[0] ?? ""), "utf8")).toBe("{ this is not json");
    expect(learner.hud().widget?.[0]).toBe("Quest 1/2: Read before you run");
  });
});

describe("shutting pi down", () => {
  it("cancels a check running in the isolated task verifier: its processes killed, its worktree removed", async () => {
    // A sleep no other process runs: its duration, in its command line, is the marker.
    const marker = `${200 + (process.pid % 100)}.${Date.now() % 1000}`;
    const pack = makeWorkspace({
      "10-slow.yaml": [
        "version: 1",
        "id: slow",
        "title: A slow test",
        "goal: Wait.",
        "sandbox: sandboxes/slow",
        "checks:",
        "  - describe: the slow test passes",
        "    type: command",
        `    run: "sleep ${marker}"`,
        "",
      ].join("\n"),
      "sandboxes/slow/README.md": "A slow test.\n",
    });
    const workspace = makeWorkspace();
    const learner = startPiRpc({ workspace, pack });
    expect(await untilRunning(marker)).not.toEqual([]);
    expect(git(workspace, "worktree", "list", "--porcelain").match(/^worktree /gm)).toHaveLength(2);
    expect(await learner.close()).toBe(0);
    expect(processesMentioning(marker)).toEqual([]);
    expectNoLeftoverWorktrees(workspace);
  });

  it("cancels a running check and kills its processes", async () => {
    // A sleep no other process runs: its duration, in its command line, is the marker. It runs in
    // the background of the check's shell, so only a kill of the whole process group stops it.
    // Two things kill it: the evaluation cancelled on shutdown, and, should Pi exit first, the
    // script runner's kill-on-exit. The worktree test above is the one that needs the former.
    const marker = `${100 + (process.pid % 100)}.${Date.now() % 1000}`;
    const pack = slowQuestPack(`sleep ${marker} & wait`);
    const learner = startPiRpc({ workspace: makeWorkspace(), pack });
    await learner.waitFor(
      (line) => line.method === "setWidget" && String(line.widgetLines).includes("checking…"),
    );
    expect(await untilRunning(marker)).not.toEqual([]);
    expect(await learner.close()).toBe(0);
    expect(processesMentioning(marker)).toEqual([]);
    expect(learner.hud().widget?.[1]).not.toMatch(/✓/);
  });
});

describe("/quest list, skip and debrief in a pack of chapters (fixtures/packs/chapters)", () => {
  const CHAPTERS = join(REPO, "fixtures/packs/chapters");
  const DEBRIEF = "You talked to Pi. Every message starts a *run*: Pi reads it, may call tools, and answers.";

  it("lists by chapter with minutes left, shows the debrief on completion and later, skips a quest and opens what needs it, which says what it builds on", async () => {
    const workspace = makeWorkspace();
    const learner = startPiRpc({ workspace, pack: CHAPTERS, script: [{ text: "Hello!" }] });
    await learner.settled();

    // The first quest completes; its debrief comes with the completion, before the next goal.
    const from = learner.lines.length;
    await learner.prompt("Hello Pi");
    await learner.settled();
    expect(learner.notifications(from)).toContainEqual(
      [
        "Quest complete: Say hello ✓",
        "",
        DEBRIEF,
        "",
        "Quest 2/4: Steer a run",
        "While Pi works, type a message and press Enter to steer it.",
        "(/quest hint if you are stuck)",
      ].join("\n"),
    );

    expect(await command(learner, "/quest list")).toEqual([
      [
        "Quests: 1/4 done · 12 min left",
        "Talk to Pi · 1/2 done · 3 min left",
        "  1. hello: Say hello (✓ done · 2 min)",
        "  2. steer: Steer a run (▶ active · 3 min)",
        "Save your work · 0/2 done · 9 min left",
        "  3. name: Name the session (locked: needs steer · 5 min)",
        "  4. notes: Take notes (○ available · 4 min)",
        "Start one with /quest start ID; /quest skip skips the active one.",
      ].join("\n"),
    ]);

    // Skipped: not done, but it counts as done for requires: the quest that needs it opens
    // and starts, saying what it builds on.
    const [skipped = ""] = await command(learner, "/quest skip");
    expect(skipped).toMatch(
      /^Skipped: Steer a run\. It is not done, but quests that build on it open now and say what they need from it; \/quest start steer takes it up again\.\n\nQuest 3\/4: Name the session\n/,
    );
    expect(skipped).toContain(
      'This quest builds on "Steer a run", which you skipped: what it left behind may be missing here. If you get stuck, do it first (/quest start steer), then /quest start name again.',
    );
    await learner.settled();
    expect(learner.hud().widget?.[0]).toBe("Quest 3/4: Name the session");
    expect((await command(learner, "/quest list"))[0]?.split("\n").slice(3, 6)).toEqual([
      "  2. steer: Steer a run (↷ skipped · 3 min)",
      "Save your work · 0/2 done · 9 min left",
      "  3. name: Name the session (▶ active · 5 min)",
    ]);
    expect(progressOf(learner.agentDir, workspace)).toMatchObject({
      completed: { hello: expect.any(Object) },
      skipped: { steer: { at: expect.any(String) } },
      active: { questId: "name" },
    });

    // The debrief again, later: the last quest done by default, or by id.
    expect(await command(learner, "/quest debrief")).toEqual([`Debrief: Say hello\n\n${DEBRIEF}`]);
    expect(await command(learner, "/quest debrief hello")).toEqual([`Debrief: Say hello\n\n${DEBRIEF}`]);
    expect(await command(learner, "/quest debrief steer")).toEqual([
      '"Steer a run" is not done yet: its debrief comes when you complete it.',
    ]);

    // A skipped quest starts again with /quest start, and is no longer skipped.
    const [started = ""] = await command(learner, "/quest start steer");
    expect(started).toMatch(/^Quest started: Steer a run\n\nWhile Pi works/);
    await learner.settled();
    expect(progressOf(learner.agentDir, workspace)).toMatchObject({
      skipped: {},
      active: { questId: "steer" },
    });
  });
});

/** The HUD's line once the agent's rewrite of test.sh was put back: it says so, in words. */
const TEST_SH_NOT_USED =
  "  ✗ bash test.sh passes: test.sh is run by the check: your change to it was not used";
