/**
 * What the extension records from the real `pi`, and when it stays out of the way: user bash
 * commands with their exit codes, print mode (no UI calls, events still recorded), `/resume`,
 * a sandbox quest in a folder that is not empty, and a turn that never waits for a slow check.
 */
import { readdirSync, readFileSync, realpathSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { execa } from "execa";
import { afterEach, describe, expect, it } from "vitest";
import { readEventLog } from "../../src/events/log-reader.ts";
import type { VerifierEvent } from "../../src/events/schema.ts";
import { REPO, STARTER_PACK } from "../support/cli.ts";
import {
  closeAllPis,
  command,
  dataFolderOf,
  PI,
  scriptedPiArgs,
  slowQuestPack,
  startPiRpc,
} from "../support/pi-rpc.ts";
import { agentSealer } from "../support/seal.ts";
import { makeWorkspace } from "../support/workspace.ts";

const PACK = join(REPO, "fixtures/packs/extension");
afterEach(closeAllPis);

const eventsFile = (agentDir: string, workspace: string) =>
  join(dataFolderOf(agentDir, workspace), "events.jsonl");

/** The recorded events, read with the CLI's own `--events` reader (same format, or it fails). */
async function recorded(agentDir: string, workspace: string): Promise<VerifierEvent[]> {
  const read = await readEventLog(
    eventsFile(agentDir, workspace),
    agentSealer(agentDir, "events", workspace),
    "strict",
  );
  if (!read.ok) throw new Error(JSON.stringify(read.diagnostics));
  // Every line is the extension's own: sealed with the agent dir's key.
  expect(read.warnings).toEqual([]);
  return read.events;
}

describe("event recording", () => {
  it("records user bash commands with their exit codes, and they run as usual", async () => {
    const workspace = makeWorkspace();
    const learner = startPiRpc({ workspace, pack: STARTER_PACK });
    await learner.settled();
    for (const [id, command] of [
      ["ok", "echo hi > from-bash.txt"],
      ["fails", "exit 3"],
    ] as const) {
      learner.send({ id, type: "bash", command });
      await learner.waitFor((line) => line.type === "response" && line.id === id);
    }
    expect(readFileSync(join(workspace, "from-bash.txt"), "utf8")).toBe("hi\n");
    await learner.close();
    const bash = (await recorded(learner.agentDir, workspace)).filter((event) => event.name === "user_bash");
    expect(bash.map((event) => event.payload)).toEqual([
      { command: "echo hi > from-bash.txt", exitCode: 0, excludeFromContext: false },
      { command: "exit 3", exitCode: 3, excludeFromContext: false },
    ]);
  });

  it("in print mode makes no UI call and prints nothing of its own, but records the run", async () => {
    const workspace = makeWorkspace();
    const agentDir = makeWorkspace();
    const script = join(agentDir, "script.json");
    writeFileSync(
      script,
      JSON.stringify([
        { tools: [{ name: "write", arguments: { path: "hello.txt", content: "hello\n" } }] },
        { text: "Wrote it." },
      ]),
    );
    const run = await execa(process.execPath, [PI, ...scriptedPiArgs(), "-p", "Write hello.txt"], {
      cwd: workspace,
      env: { PI_CODING_AGENT_DIR: agentDir, HOME: agentDir, PI_QUESTS_SCRIPT: script },
      extendEnv: true,
      reject: false,
      stdin: "ignore",
      timeout: 60_000,
    });
    expect(run.exitCode).toBe(0);
    expect(run.stdout.trim()).toBe("Wrote it.");
    expect(run.stderr).not.toMatch(/quest/i);
    const events = await recorded(agentDir, workspace);
    expect(events.map((event) => event.name)).toEqual([
      "session_start",
      "context_loaded",
      "input",
      "tool_result",
      "turn_end",
      "turn_end",
      "agent_end",
    ]);
    const payloadOf = (name: string) => events.find((event) => event.name === name)?.payload;
    expect(payloadOf("session_start")).toMatchObject({ reason: "startup" });
    // Print mode hands Pi the prompt as typed input.
    expect(payloadOf("input")).toEqual({
      text: "Write hello.txt",
      rawText: "Write hello.txt",
      source: "interactive",
    });
    expect(payloadOf("agent_end")).toEqual({ assistantTurns: 2, aborted: false });
    expect(events.find((event) => event.name === "tool_result")?.payload).toMatchObject({
      toolName: "write",
      isError: false,
      input: { path: "hello.txt" },
    });
    // No progress without a UI: nothing was activated or evaluated.
    expect(readdirSync(join(eventsFile(agentDir, workspace), ".."))).toEqual(["events.jsonl"]);
  });

  it("/quest works in print mode too (Pi sends extension output to stderr there)", async () => {
    const workspace = makeWorkspace();
    const agentDir = makeWorkspace();
    const run = await execa(process.execPath, [PI, ...scriptedPiArgs(), "-p", "/quest list"], {
      cwd: workspace,
      env: { PI_CODING_AGENT_DIR: agentDir, HOME: agentDir, PI_QUESTS_PACK: STARTER_PACK },
      reject: false,
      stdin: "ignore",
      timeout: 60_000,
    });
    expect(run.exitCode).toBe(0);
    expect(run.stdout).toBe("");
    expect(run.stderr).toContain("  1. first-prompt: Say hello to Pi (▶ active · 2 min)");
    expect(run.stderr).toContain("  3. first-commit: Commit it (locked: needs first-file · 3 min)");
  });
});

describe("print mode inside an interactive session", () => {
  it("a `!pi -p` in the workspace of a running Pi does not write into its log: the next session reports nothing altered", async () => {
    const workspace = makeWorkspace();
    const learner = startPiRpc({
      workspace,
      pack: PACK,
      script: [{ text: "Hello!" }, { text: "From print mode." }],
    });
    await learner.settled();
    await learner.prompt("Hello Pi");
    // The learner runs Pi in print mode from a `!` command: the same workspace, the same agent dir.
    const printMode = [process.execPath, PI, ...scriptedPiArgs(), "-p", "hi"]
      .map((part) => `'${part}'`)
      .join(" ");
    learner.send({ id: "print", type: "bash", command: printMode });
    await learner.waitFor((line) => line.type === "response" && line.id === "print");
    await learner.prompt("Hello again");
    await learner.settled();
    const agentDir = learner.agentDir;
    expect(await learner.close()).toBe(0);

    const next = startPiRpc({ workspace, pack: PACK, agentDir });
    await next.settled();
    expect(next.hud().widget?.join("\n")).not.toMatch(/altered/);
    const read = await readEventLog(
      eventsFile(agentDir, workspace),
      agentSealer(agentDir, "events", workspace),
      "strict",
    );
    expect(read.ok && read.warnings).toEqual([]);
    expect(await next.close()).toBe(0);
  });
});

describe("sessions", () => {
  it("/resume of an earlier session shows the same progress", async () => {
    const workspace = makeWorkspace();
    const learner = startPiRpc({ workspace, pack: PACK, session: true, script: [{ text: "Hello!" }] });
    await learner.settled();
    learner.send({ id: "state", type: "get_state" });
    const state = await learner.waitFor((line) => line.type === "response" && line.id === "state");
    const firstSession = (state.data as { sessionFile: string }).sessionFile;
    await learner.prompt("Hello Pi");
    learner.send({ id: "new", type: "new_session" });
    await learner.waitFor((line) => line.type === "response" && line.id === "new");
    await learner.settled();
    const before = learner.hud();

    const from = learner.lines.length;
    learner.send({ id: "resume", type: "switch_session", sessionPath: firstSession });
    const resumed = await learner.waitFor((line) => line.type === "response" && line.id === "resume", from);
    expect(resumed).toMatchObject({ success: true, data: { cancelled: false } });
    await learner.settled();
    expect(learner.widgets(from).length).toBeGreaterThan(0);
    expect(learner.hud()).toEqual(before);
  });
});

describe("a sandbox quest in a folder with files in it", () => {
  it("touches nothing, and says how to get an empty folder", async () => {
    const workspace = makeWorkspace({ "notes.md": "my own notes\n" });
    const learner = startPiRpc({ workspace, pack: STARTER_PACK, script: [{ text: "Hello!" }] });
    await learner.settled();
    const from = learner.lines.length;
    await learner.prompt("Hi Pi");
    await learner.settled();
    expect(learner.notifications(from)).toContainEqual(
      expect.stringMatching(/^Quest complete: Say hello to Pi ✓/),
    );
    const [explained = ""] = learner.notifications(from).filter((text) => text.includes("not empty"));
    expect(explained).toContain(
      '"first-file" sets up a practice folder, and this folder is not empty (notes.md)',
    );
    expect(explained).toContain("mkdir -p ~/pi-quests-practice && cd ~/pi-quests-practice && pi");
    expect(explained).toContain(
      '"Make your first file" starts there by itself, and the quests you did here count there too.',
    );
    expect(learner.hud()).toEqual({
      widget: ['Quests 1/3 · next: "Make your first file" needs an empty folder (/quest start first-file)'],
      status: "quests 1/3",
    });
    expect(readdirSync(workspace)).toEqual(["notes.md"]);
    expect(readFileSync(join(workspace, "notes.md"), "utf8")).toBe("my own notes\n");

    // The advice followed: Pi started in an empty folder, with the same agent folder.
    await learner.close();
    const practice = makeWorkspace();
    const there = startPiRpc({
      workspace: practice,
      agentDir: learner.agentDir,
      pack: STARTER_PACK,
      script: [],
    });
    const asked = await there.answerConfirm(true);
    expect(asked).toMatchObject({ title: `Carry on from ${realpathSync(workspace)}?` });
    await there.settled();
    expect(there.notifications(0)).toContainEqual(
      `Carried on from ${realpathSync(workspace)}: 1 quest done there counts here. That folder keeps its own progress.`,
    );
    expect(there.hud().widget?.[0]).toBe("Quest 2/3: Make your first file");
    expect(readdirSync(practice)).toContain(".git");
    expect(readdirSync(workspace)).toEqual(["notes.md"]);
  });
});

describe("the agent never waits for a check", () => {
  it("a turn completes while a slow check is still running", async () => {
    const pack = slowQuestPack("sleep 30");
    const learner = startPiRpc({
      workspace: makeWorkspace(),
      pack,
      script: [{ text: "Hi." }, { text: "Hi again." }],
    });
    await learner.waitFor(
      (line) => line.method === "setWidget" && String(line.widgetLines).includes("checking…"),
    );
    await learner.prompt("Hello");
    await learner.prompt("Hello again");
    // Both runs settled while the check kept running: the HUD still says it is checking.
    expect(learner.hud().widget?.[0]).toBe("Quest 1/1: A slow check · checking…");
    expect(await learner.close()).toBe(0);
  });
});

describe("a quest pack with errors", () => {
  it("is reported with file:line:col, the HUD says so, and Pi works on without quests", async () => {
    const pack = makeWorkspace({
      "10-bad.yaml": [
        "version: 1",
        "id: bad",
        "title: Bad",
        "goal: Oops.",
        "checks:",
        "  - type: event",
        "",
      ].join("\n"),
    });
    const learner = startPiRpc({ workspace: makeWorkspace(), pack, script: [{ text: "Still here." }] });
    const report = await learner.waitFor(
      (line) => line.method === "notify" && String(line.message).includes("errors"),
    );
    expect(report.notifyType).toBe("error");
    expect(String(report.message)).toMatch(
      new RegExp(`^pi-quests: the quest pack ${pack} has errors:\\n${join(pack, "10-bad.yaml")}:6:5`),
    );
    expect(learner.hud()).toEqual({
      widget: ["pi-quests: the quest pack has errors (see the notification)"],
      status: "quests: error",
    });
    await learner.prompt("Hello?");
    expect(learner.lines.some((line) => line.type === "agent_end")).toBe(true);
    const [answer = ""] = await command(learner, "/quest list");
    expect(answer).toBe("pi-quests is not running in this session (see the earlier notification).");
  });
});
