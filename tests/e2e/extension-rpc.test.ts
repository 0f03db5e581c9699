/**
 * The extension inside the real `pi`, in RPC mode, offline, with a scripted model: what the
 * learner sees (every widget, status and notification Pi emitted) as scripted turns play the
 * starter pack (fixtures/packs/starter), and what a model that only claims the work gets.
 */
import { readdirSync } from "node:fs";
import { afterEach, describe, expect, it } from "vitest";
import { STARTER_PACK } from "../support/cli.ts";
import { closeAllPis, type PiRpcOptions, startPiRpc } from "../support/pi-rpc.ts";
import { makeWorkspace } from "../support/workspace.ts";

const HELP_LINE = "  /quest hint · /quest status · /quest list";
const pi = (options: PiRpcOptions) => startPiRpc({ pack: STARTER_PACK, ...options });
afterEach(closeAllPis);

const WRITE_HELLO = {
  tools: [{ name: "write", arguments: { path: "hello.txt", content: "hello world\n" } }],
};
const COMMIT_HELLO = {
  tools: [{ name: "bash", arguments: { command: "git add hello.txt && git commit -q -m 'Say hello'" } }],
};

describe("the starter pack, played in the real pi over RPC", () => {
  it("shows each quest, not yet (never red) before the learner acts, green after the turn that does the work, then the next quest", async () => {
    const workspace = makeWorkspace();
    const learner = pi({
      workspace,
      script: [
        { text: "Hi! I can read, write and run things here." },
        WRITE_HELLO,
        { text: "I created hello.txt." },
        COMMIT_HELLO,
        { text: "Committed." },
      ],
    });

    // Before anything: the first quest, nothing red before the learner acts.
    await learner.settled();
    expect(learner.hud()).toEqual({
      widget: [
        "Quest 1/3: Say hello to Pi",
        "  ○ You sent Pi a message: not yet",
        "  ○ Pi answered it: not yet",
        HELP_LINE,
      ],
      status: "quest 1/3",
    });

    // Turn 1: a message. The quest goes green, completes, and the next one starts in a sandbox.
    let from = learner.lines.length;
    await learner.prompt("Hi Pi, what can you do here?");
    await learner.settled();
    expect(learner.widgets(from)).toContainEqual([
      "Quest 1/3: Say hello to Pi",
      "  ✓ You sent Pi a message",
      "  ✓ Pi answered it",
      HELP_LINE,
    ]);
    expect(learner.notifications(from)).toContainEqual(
      [
        "Quest complete: Say hello to Pi ✓",
        "",
        // The debrief, as its Markdown reads.
        "You talked to Pi. Every message starts a run: Pi reads what you wrote, may call tools",
        "(read a file, run a command), and answers. What you ask, and how clearly, decides what it does.",
        "",
        "Quest 2/3: Make your first file",
        "Ask Pi to create a file named `hello.txt` that greets the world. Pi writes files with its",
        "`write` tool; you will see the tool call and its result in the conversation.",
        "(/quest hint if you are stuck)",
      ].join("\n"),
    );
    expect(readdirSync(workspace).sort()).toEqual([".git", "README.md"]);
    expect(learner.hud()).toEqual({
      widget: [
        "Quest 2/3: Make your first file",
        // The turn that completed quest 1 is no act in quest 2: not yet, never red.
        "  ○ Pi wrote hello.txt with its write tool: not yet",
        "  ○ hello.txt exists: not yet",
        "  ○ hello.txt says hello: not yet",
        HELP_LINE,
      ],
      status: "quest 2/3",
    });

    // Turn 2: Pi writes hello.txt.
    from = learner.lines.length;
    await learner.prompt("Create hello.txt that says hello to the world.");
    await learner.settled();
    expect(learner.widgets(from)).toContainEqual([
      "Quest 2/3: Make your first file",
      "  ✓ Pi wrote hello.txt with its write tool",
      "  ✓ hello.txt exists",
      "  ✓ hello.txt says hello",
      HELP_LINE,
    ]);
    expect(learner.notifications(from)).toContainEqual(
      expect.stringMatching(/^Quest complete: Make your first file ✓/),
    );
    expect(learner.hud()).toEqual({
      widget: [
        "Quest 3/3: Commit it",
        "  ○ One new commit: not yet",
        "  ✓ The changes since the start include hello.txt",
        "  ○ Nothing left uncommitted: not yet",
        HELP_LINE,
      ],
      status: "quest 3/3",
    });

    // Turn 3: Pi commits. Every quest done.
    from = learner.lines.length;
    await learner.prompt("Commit hello.txt with the message: Say hello");
    await learner.settled();
    expect(learner.widgets(from)).toContainEqual([
      "Quest 3/3: Commit it",
      "  ✓ One new commit",
      "  ✓ The changes since the start include hello.txt",
      "  ✓ Nothing left uncommitted",
      HELP_LINE,
    ]);
    expect(learner.notifications(from)).toContainEqual(
      [
        "Quest complete: Commit it ✓",
        "",
        "Pi ran git with its `bash` tool, and you read the command before it ran. Reviewing what an",
        "agent runs, as you would a colleague's change, is the habit that keeps you in charge.",
        "",
        // The chapter's last quest: the chapter is announced (issue 27, item 4).
        "Chapter 1 complete: First steps ✓ (3 of 3 quests done).",
        "Every quest is done. Well played!",
      ].join("\n"),
    );
    expect(learner.hud()).toEqual({ widget: ["Quests 3/3 done. Well played!"], status: "quests 3/3 ✓" });
    expect(await learner.close()).toBe(0);
  });

  it("shows that it is checking while an evaluation runs", async () => {
    const workspace = makeWorkspace();
    const learner = pi({ workspace, script: [{ text: "Hello." }] });
    await learner.settled();
    const from = learner.lines.length;
    await learner.prompt("Hello");
    await learner.settled();
    expect(learner.widgets(from).map((widget) => widget[0])).toContain(
      "Quest 1/3: Say hello to Pi · checking…",
    );
    expect(learner.statuses(from)).toContain("quest 1/3 · checking…");
  });
});

describe("a model that only claims the work", () => {
  it("does not pass the first-file quest", async () => {
    const workspace = makeWorkspace();
    const learner = pi({
      workspace,
      script: [{ text: "Hello!" }, { text: "Done! I created hello.txt with a friendly greeting." }],
    });
    await learner.settled();
    await learner.prompt("Hi");
    await learner.settled();
    const from = learner.lines.length;
    await learner.prompt("Create hello.txt that says hello.");
    await learner.settled();
    expect(learner.notifications(from)).not.toContainEqual(
      expect.stringMatching(/^Quest complete: Make your first file ✓/),
    );
    // The learner asked: each unmet check is red, with its reason in words.
    expect(learner.hud().widget).toEqual([
      "Quest 2/3: Make your first file",
      "  ✗ Pi wrote hello.txt with its write tool: not yet",
      "  ✗ hello.txt exists: hello.txt does not exist",
      "  ✗ hello.txt says hello: hello.txt: No such file or directory",
      HELP_LINE,
    ]);
    expect(learner.hud().status).toBe("quest 2/3");
  });
});
