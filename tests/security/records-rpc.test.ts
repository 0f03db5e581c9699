/**
 * Red team in the real `pi` over RPC (offline, scripted model): the model's own bash tool calls
 * go after pi-quests' records. A call the guard sees is blocked and the learner is told; one that
 * slips past it (the data dir's path built at run time) forges a record, which is ignored: the
 * HUD stays red and says records were altered.
 *
 * The forgeries need a bash that can see the records: where pi-quests' bash sandbox runs, they
 * find an empty folder (bash-sandbox-rpc.test.ts). So they run with another extension's `bash`
 * loaded first (fixtures/pi/plain-bash.ts: Pi's plain tool), as on a machine where the sandbox
 * cannot be made: the guard and the seals are then what hold, and this file shows they do.
 */
import { readdirSync, readFileSync, realpathSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import {
  closeAllPis,
  dataFolderOf,
  type PiRpc,
  type PiRpcOptions,
  PLAIN_BASH,
  startPiRpc as startPi,
} from "../support/pi-rpc.ts";
import { CHECK_SCRIPT, FIX_PACK_FILES, NOTES_PACK_FILES } from "../support/records.ts";
import { expectNoLeftoverWorktrees, makeRepo, snapshot } from "../support/task-verifier.ts";
import { makeWorkspace } from "../support/workspace.ts";

const HELP_LINE = "  /quest hint · /quest status · /quest list";
afterEach(closeAllPis);

/** Pi with another extension's `bash` (Pi's plain tool): the records are in sight of the agent's commands. */
const startPiRpc = (options: PiRpcOptions) => startPi({ extensionsBefore: [PLAIN_BASH], ...options });

/** The data dir's path, built so that no name the guard looks for is in the command text (quoted or not). */
const HIDDEN_FOLDER = `d="$(printenv PI_CODING_AGENT_DIR)/$(printf %s que sts)/$(printf %s work spaces)"; cd "$d"/*`;

const FORGE_RECEIPT = `${HIDDEN_FOLDER}/receipts/pi && f=$(ls *.json | head -1) && sed -e 's/"state": "failed"/"state": "passed"/' -e 's/"status": "fail"/"status": "pass"/' -e 's/"exitCode": 1/"exitCode": 0/' -e "s/\\"id\\": \\"[^\\"]*\\"/\\"id\\": \\"forged\\"/" "$f" > forged.json`;

/**
 * progress.json rewritten to mark the quest complete, by a process left in the background so the
 * rewrite lands after the session's last save of its own.
 */
const FORGE_PROGRESS = `${HIDDEN_FOLDER} && setsid nohup sh -c 'sleep 2; node -e "const fs = require(\\"fs\\"); const p = JSON.parse(fs.readFileSync(\\"progress.json\\", \\"utf8\\")); p.completed = { notes: { at: new Date().toISOString(), definitionHash: p.active.definitionHash } }; delete p.active; fs.writeFileSync(\\"progress.json\\", JSON.stringify(p))"' > /dev/null 2>&1 &`;

const FORGE_EVENT = `${HIDDEN_FOLDER} && echo '{"name":"tool_result","seq":900,"payload":{"toolName":"write","toolCallId":"x","isError":false,"input":{"path":"notes.txt"}}}' >> events.jsonl`;

/**
 * A first session of the notes pack whose model runs `forge` in its bash tool when asked
 * `prompt`: the HUD stays red in that session, whatever the forgery wrote.
 */
async function forgeInAFirstSession(
  workspace: string,
  pack: string,
  forge: string,
  prompt: string,
): Promise<PiRpc> {
  const first = startPiRpc({
    workspace,
    pack,
    script: [{ tools: [{ name: "bash", arguments: { command: forge } }] }, { text: "Done." }],
  });
  await first.settled();
  await first.prompt(prompt);
  await first.settled();
  expect(first.hud().widget).toEqual([
    "Quest 1/1: Write notes",
    "  ✗ Pi wrote notes.txt: not yet",
    HELP_LINE,
  ]);
  return first;
}

describe("the model's bash forges pi-quests' records", () => {
  it("a passed receipt forged past the guard: the check stays red and the HUD says a receipt was altered", async () => {
    const workspace = makeRepo({ "answer.txt": "broken\n", "check.sh": CHECK_SCRIPT });
    const before = snapshot(workspace);
    const pack = makeWorkspace(FIX_PACK_FILES);
    const learner = startPiRpc({
      workspace,
      pack,
      script: [
        { tools: [{ name: "bash", arguments: { command: FORGE_RECEIPT } }] },
        { text: "All tests pass now." },
      ],
    });
    await learner.settled();
    expect(learner.hud().widget).toEqual([
      "Quest 1/1: Fix the answer",
      "  ○ answer.txt says fixed: not yet",
      HELP_LINE,
    ]);
    const from = learner.lines.length;
    await learner.prompt("Make the check pass.");
    await learner.settled();
    expect(learner.hud().widget).toEqual([
      "Quest 1/1: Fix the answer",
      "  ✗ answer.txt says fixed: not yet: /quest status --details shows what the check ran",
      HELP_LINE,
      "⚠ pi-quests ignored altered records: 1 receipt — /quest status",
    ]);
    expect(learner.notifications(from)).toContainEqual(
      expect.stringContaining(
        "pi-quests found records it did not write and ignored them (altered receipt ignored: forged.json",
      ),
    );
    expect(learner.notifications(from).join("\n")).not.toMatch(/Quest complete/);
    expect(await learner.close()).toBe(0);
    expect(snapshot(workspace)).toEqual(before);
    expectNoLeftoverWorktrees(realpathSync(workspace));
  });

  it("a plain attempt on the records is blocked by the guard, recorded, and the learner is told", async () => {
    const workspace = makeRepo({ "answer.txt": "broken\n", "check.sh": CHECK_SCRIPT });
    const pack = makeWorkspace(FIX_PACK_FILES);
    const command = 'cat "$PI_CODING_AGENT_DIR/quests/seal.key"';
    const learner = startPiRpc({
      workspace,
      pack,
      script: [{ tools: [{ name: "bash", arguments: { command } }] }, { text: "Done." }],
    });
    await learner.settled();
    const from = learner.lines.length;
    await learner.prompt("Make the check pass.");
    await learner.settled();
    expect(learner.hud().widget).toEqual([
      "Quest 1/1: Fix the answer",
      "  ✗ answer.txt says fixed: not yet: /quest status --details shows what the check ran",
      HELP_LINE,
      "⚠ pi-quests blocked 1 tool call at its records — /quest status",
    ]);
    expect(learner.notifications(from)).toContainEqual(
      expect.stringMatching(
        /^pi-quests blocked the agent's bash call: pi-quests blocked this call: its command names/,
      ),
    );
    const agentDir = learner.agentDir;
    expect(await learner.close()).toBe(0);
    const lines = readFileSync(join(dataFolderOf(agentDir, workspace), "events.jsonl"), "utf8")
      .split("\n")
      .filter(Boolean)
      .map((line) => JSON.parse(line) as { name: string; payload: Record<string, unknown> });
    expect(lines.filter((line) => line.name === "tool_blocked").map((line) => line.payload)).toEqual([
      { toolName: "bash", input: { command }, reason: expect.stringContaining("off-limits to the agent") },
    ]);
  });

  it("an event line forged past the guard does not count after a restart; the HUD says an event was altered", async () => {
    const workspace = makeWorkspace();
    const pack = makeWorkspace(NOTES_PACK_FILES);
    // In this session the in-memory log is the truth: the line in the file is not read.
    const first = await forgeInAFirstSession(workspace, pack, FORGE_EVENT, "Write notes.txt");
    expect(await first.close()).toBe(0);

    const second = startPiRpc({ workspace, pack, agentDir: first.agentDir });
    await second.settled();
    expect(second.hud().widget).toEqual([
      "Quest 1/1: Write notes",
      "  ✗ Pi wrote notes.txt: not yet",
      HELP_LINE,
      "⚠ pi-quests ignored altered records: 1 event — /quest status",
    ]);
    const from = second.lines.length;
    await second.prompt("/quest status");
    expect(second.notifications(from).join("\n")).toMatch(/⚠ altered event ignored: .*events\.jsonl:\d+/);
    expect(await second.close()).toBe(0);
  });

  it("progress.json rewritten past the guard to mark the quest complete: the next session sets it aside, the quest is red again and the HUD says progress was altered", async () => {
    const workspace = makeWorkspace();
    const pack = makeWorkspace(NOTES_PACK_FILES);
    // This session never reads progress back: the quest is still the active one, still red.
    const first = await forgeInAFirstSession(workspace, pack, FORGE_PROGRESS, "Finish the quest.");
    const agentDir = first.agentDir;
    const folder = dataFolderOf(agentDir, workspace);
    expect(await first.close()).toBe(0);
    // The background process's rewrite has landed: the quest is "complete" on disk.
    const forged = () => {
      try {
        return "notes" in JSON.parse(readFileSync(join(folder, "progress.json"), "utf8")).completed;
      } catch {
        return false;
      }
    };
    for (let i = 0; i < 200 && !forged(); i++) await new Promise((resolve) => setTimeout(resolve, 50));
    expect(forged()).toBe(true);

    const second = startPiRpc({ workspace, pack, agentDir });
    await second.settled();
    // Progress starts over: the quest is active again, and nothing was done in it since.
    expect(second.hud().widget).toEqual([
      "Quest 1/1: Write notes",
      "  ○ Pi wrote notes.txt: not yet",
      HELP_LINE,
      "⚠ pi-quests ignored altered records: 1 progress file — /quest status",
    ]);
    expect(readdirSync(folder).some((name) => name.startsWith("progress.json.altered-"))).toBe(true);
    expect(second.notifications().join("\n")).not.toMatch(/Quest complete|Well played/);
    expect(await second.close()).toBe(0);
  });
});

describe("the model's bash forges entries in Pi's own session file", () => {
  const LABEL_PACK = {
    "10-label.yaml": [
      "version: 2",
      "id: label",
      "title: Label a point",
      "goal: Set a label in /tree.",
      "checks:",
      "  - describe: a label was set",
      "    type: event",
      "    match: { event: label }",
      "  - describe: the session was renamed",
      "    type: event",
      "    match: { event: session_name }",
      "",
    ].join("\n"),
  };
  /**
   * A label and a name appended to the session file Pi is writing, as Pi would write them. Pi's
   * sessions are outside pi-quests' data dir, in sight in the bash sandbox too: run with it.
   */
  const FORGE_ENTRIES = `f=$(ls -t "$(printenv PI_CODING_AGENT_DIR)"/sessions/*/*.jsonl | head -1) && printf '%s\\n' '{"type":"label","id":"forged01","parentId":null,"timestamp":"2026-12-01T00:00:00.000Z","targetId":"forged00","label":"done"}' '{"type":"session_info","id":"forged02","parentId":"forged01","timestamp":"2026-12-01T00:00:00.000Z","name":"done"}' >> "$f" && echo appended`;

  it("a label and a session name appended to the file are not events: live recording reads Pi's memory, and the next session starts after them", async () => {
    const workspace = makeWorkspace();
    const pack = makeWorkspace(LABEL_PACK);
    const first = startPi({
      workspace,
      pack,
      session: true,
      script: [{ tools: [{ name: "bash", arguments: { command: FORGE_ENTRIES } }] }, { text: "Labelled." }],
    });
    await first.settled();
    await first.prompt("Label this point.");
    await first.settled();
    const state = first.lines.length;
    first.send({ id: "state", type: "get_state" });
    const response = await first.waitFor((line) => line.type === "response" && line.id === "state", state);
    const { sessionFile } = response.data as { sessionFile: string };
    // The forgery landed in the file Pi writes.
    expect(readFileSync(sessionFile, "utf8")).toContain('"label":"done"');
    await first.prompt("/quest check");
    await first.settled();
    const red = [
      "Quest 1/1: Label a point",
      "  ✗ a label was set: not yet",
      "  ✗ the session was renamed: not yet",
      HELP_LINE,
    ];
    expect(first.hud().widget).toEqual(red);
    const agentDir = first.agentDir;
    expect(await first.close()).toBe(0);

    // Resumed, Pi loads the forged entries as history: still not events.
    const second = startPi({ workspace, pack, agentDir, session: true });
    await second.settled();
    const resume = second.lines.length;
    second.send({ id: "resume", type: "switch_session", sessionPath: sessionFile });
    const resumed = await second.waitFor((line) => line.type === "response" && line.id === "resume", resume);
    expect(resumed).toMatchObject({ success: true, data: { cancelled: false } });
    await second.prompt("/quest check");
    await second.settled();
    expect(second.hud().widget).toEqual(red);
    const names = readFileSync(join(dataFolderOf(agentDir, workspace), "events.jsonl"), "utf8")
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line).name);
    expect(names).not.toContain("label");
    expect(names).not.toContain("session_name");
    expect(await second.close()).toBe(0);
  });
});
