/**
 * Red team, pi-quests' own records: an agent with a shell forges or edits a receipt, a recorded
 * event, the progress file or a pinned definition, in the same session or for a later one. None
 * of it may turn a check green; each is ignored and the learner is told (HUD, /quest status, a
 * notification). The tool-call guard's decisions are here too; the real pi is in
 * records-rpc.test.ts.
 */
import { existsSync, readdirSync, readFileSync, realpathSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { sealRecord, verifyRecord } from "../../src/core/seal.ts";
import { guardToolCall } from "../../src/extension/record-guard.ts";
import { runCli } from "../support/cli.ts";
import {
  agentShell,
  CHECK_SCRIPT,
  FIX_PACK_FILES,
  hudText,
  NOTES_PACK_FILES,
  type OpenSession,
  openSession,
  piReceipts,
  type RecordsWorld,
  readJson,
  receiptFiles,
  recordsWorld,
} from "../support/records.ts";
import { agentSealer } from "../support/seal.ts";
import {
  expectNoLeftoverWorktrees,
  makeRepo,
  processesMentioning,
  snapshot,
} from "../support/task-verifier.ts";
import { makeWorkspace, removeWorkspaces } from "../support/workspace.ts";

const sessions: OpenSession[] = [];
afterEach(async () => {
  for (const { controller } of sessions.splice(0)) await controller.dispose();
  removeWorkspaces();
});

async function session(world: RecordsWorld): Promise<OpenSession> {
  const opened = await openSession(world);
  sessions.push(opened);
  return opened;
}

async function restart(world: RecordsWorld, previous: OpenSession): Promise<OpenSession> {
  await previous.controller.dispose();
  sessions.splice(sessions.indexOf(previous), 1);
  return session(world);
}

/** A git workspace whose answer is wrong, and the one-command-check quest over it. */
function fixWorld(answer = "broken\n"): RecordsWorld {
  return recordsWorld(makeRepo({ "answer.txt": answer, "check.sh": CHECK_SCRIPT }), FIX_PACK_FILES);
}

/** The check as the HUD shows it, and the last result's receipt, as the session saved them. */
function answerCheck(world: RecordsWorld, opened: OpenSession) {
  const state = opened.ui.lastHud();
  const check = state?.kind === "active" ? state.checks[0] : undefined;
  const progress = readJson(join(world.folder, "progress.json")) as {
    lastResult?: {
      status: string;
      checks: Array<{ evidence: { receipt?: { id: string; reused: boolean } } }>;
    };
  };
  return {
    hud: check,
    result: progress.lastResult,
    receipt: progress.lastResult?.checks[0]?.evidence.receipt,
  };
}

/**
 * The check failed: the session's result says so, and the HUD shows it unmet (✗, or "not yet"
 * while the learner has not acted in the quest: these tests' learner never types).
 */
function expectFailing(answer: ReturnType<typeof answerCheck>): void {
  expect(answer.result?.status).toBe("fail");
  expect(["fail", "unchecked"]).toContain(answer.hud?.status);
}

/** The learner's workspace is byte-identical, git lists no extra worktree, no process of ours runs. */
function expectUntouched(world: RecordsWorld, before: Record<string, string>): void {
  expect(snapshot(world.workspace)).toEqual(before);
  expectNoLeftoverWorktrees(world.workspace);
  expect(processesMentioning(world.dataDir)).toEqual([]);
}

/** The agent's copy of the newest receipt, set to passed, under a new id (the example). */
const FORGE_PASSED_RECEIPT = `
cd "$PI_CODING_AGENT_DIR"/quests/workspaces/*/receipts/pi
newest=$(ls -t *.json | head -1)
"$NODE" -e '
  const fs = require("fs");
  const r = JSON.parse(fs.readFileSync(process.argv[1], "utf8"));
  r.id = "forged-pass"; r.state = "passed"; r.exitCode = 0;
  r.result.status = "pass"; r.result.summary = "exit code 0";
  r.startedAt = new Date(Date.parse(r.startedAt) + 1000).toISOString(); r.endedAt = r.startedAt;
  fs.writeFileSync("forged-pass.json", JSON.stringify(r, null, 2));
' "$newest"
`;

describe("receipts the agent forges or edits", () => {
  it("a copy of the newest failed receipt set to passed under a new id: the check still fails, and the learner is told", async () => {
    const world = fixWorld();
    const before = snapshot(world.workspace);
    const first = await session(world);
    expectFailing(answerCheck(world, first));
    const [failed] = receiptFiles(world);

    await agentShell(world, FORGE_PASSED_RECEIPT);
    expect(receiptFiles(world)).toEqual([failed, "forged-pass.json"].sort());

    const second = await restart(world, first);
    await second.controller.command("check");
    const after = answerCheck(world, second);
    expectFailing(after);
    expect(after.result?.status).toBe("fail");
    expect(after.receipt?.id).not.toBe("forged-pass");
    expect(hudText(second.ui)).toContain("⚠ pi-quests ignored altered records: 1 receipt — /quest status");
    expect(second.ui.notes()).toContainEqual({
      message: expect.stringContaining("pi-quests found records it did not write and ignored them"),
      level: "warning",
    });
    await second.controller.command("status");
    expect(second.ui.lastSaid()).toContain(
      "⚠ altered receipt ignored: forged-pass.json (its seal does not match its content: it was changed after pi-quests wrote it)",
    );
    expectUntouched(world, before);
  });

  it("the forged receipt put in place of the real one: the check runs again and fails", async () => {
    const world = fixWorld();
    const before = snapshot(world.workspace);
    const first = await session(world);
    const firstReceipt = answerCheck(world, first).receipt?.id;
    // The agent replaces the failed receipt by its passed copy, under the real id and file name.
    await agentShell(
      world,
      `${FORGE_PASSED_RECEIPT}
      real=$(ls *.json | grep -v forged-pass); "$NODE" -e '
        const fs = require("fs"); const r = JSON.parse(fs.readFileSync("forged-pass.json", "utf8"));
        r.id = process.argv[1].replace(/\\.json$/, ""); fs.writeFileSync(process.argv[1], JSON.stringify(r));
      ' "$real"; rm forged-pass.json`,
    );
    const second = await restart(world, first);
    const after = answerCheck(world, second);
    expectFailing(after);
    // Not answered by the forged file: a new run, with a receipt of its own.
    expect(after.receipt).toMatchObject({ reused: false });
    expect(after.receipt?.id).not.toBe(firstReceipt);
    expect(hudText(second.ui)).toContain("⚠ pi-quests ignored altered records: 1 receipt — /quest status");
    expectUntouched(world, before);
  });

  it("a receipt edited while the session runs: this process's own receipt wins, and the learner is told", async () => {
    const world = fixWorld();
    const before = snapshot(world.workspace);
    const opened = await session(world);
    const [name] = receiptFiles(world);
    // Edited in place, seal and all left as they were.
    await agentShell(
      world,
      `cd "$PI_CODING_AGENT_DIR"/quests/workspaces/*/receipts/pi && "$NODE" -e '
        const fs = require("fs"); const r = JSON.parse(fs.readFileSync(process.argv[1], "utf8"));
        r.state = "passed"; r.exitCode = 0; r.result.status = "pass"; fs.writeFileSync(process.argv[1], JSON.stringify(r));
      ' ${name}`,
    );
    await opened.controller.command("check");
    expectFailing(answerCheck(world, opened));
    expect(hudText(opened.ui)).toContain("⚠ pi-quests ignored altered records: 1 receipt — /quest status");
    await opened.controller.command("status");
    expect(opened.ui.lastSaid()).toContain(
      `⚠ altered receipt ignored: ${name} (it differs from the receipt this process wrote; this process's own is used)`,
    );
    expectUntouched(world, before);
  });

  it("a passed receipt written from scratch in the old format (receipt/1, no seal): never trusted", async () => {
    const world = fixWorld();
    const before = snapshot(world.workspace);
    const first = await session(world);
    await agentShell(
      world,
      `cd "$PI_CODING_AGENT_DIR"/quests/workspaces/*/receipts/pi && newest=$(ls *.json | head -1) && "$NODE" -e '
        const fs = require("fs"); const r = JSON.parse(fs.readFileSync(process.argv[1], "utf8"));
        delete r.seal; r.schema = "pi-quests.receipt/1"; r.id = "legacy"; r.state = "passed"; r.exitCode = 0;
        r.result.status = "pass"; r.startedAt = new Date(Date.parse(r.startedAt) + 1000).toISOString();
        fs.writeFileSync("legacy.json", JSON.stringify(r));
      ' "$newest"`,
    );
    const second = await restart(world, first);
    await second.controller.command("check");
    expectFailing(answerCheck(world, second));
    expect(answerCheck(world, second).receipt?.id).not.toBe("legacy");
    expectUntouched(world, before);
  });

  it("the receipts deleted while the session runs: this process's own still answer, and the learner is told", async () => {
    const world = fixWorld();
    const before = snapshot(world.workspace);
    const opened = await session(world);
    const [name] = receiptFiles(world);
    await agentShell(world, `rm "$PI_CODING_AGENT_DIR"/quests/workspaces/*/receipts/pi/*.json`);
    await opened.controller.command("check");
    expectFailing(answerCheck(world, opened));
    expect(hudText(opened.ui)).toContain("⚠ pi-quests ignored altered records: 1 receipt — /quest status");
    await opened.controller.command("status");
    expect(opened.ui.lastSaid()).toContain(
      `⚠ altered receipt ignored: ${name} (it was removed after this process wrote it; this process's own is used)`,
    );
    expectUntouched(world, before);
  });

  it("the seal key deleted, then a passed receipt forged: a new key trusts nothing old, and everything is reported", async () => {
    const world = fixWorld();
    const before = snapshot(world.workspace);
    const first = await session(world);
    await first.controller.dispose();
    sessions.splice(0);
    await agentShell(world, `rm "$PI_CODING_AGENT_DIR/quests/seal.key"\n${FORGE_PASSED_RECEIPT}`);
    const second = await session(world);
    await second.controller.command("check");
    expectFailing(answerCheck(world, second));
    // The old failed receipt and the forgery; the one event (the quest's activation); the progress.
    expect(hudText(second.ui).at(-1)).toBe(
      "⚠ pi-quests ignored altered records: 2 receipts, 1 event, 1 progress file — /quest status",
    );
    expectUntouched(world, before);
  });

  it("pi-quests receipts: a forged passed receipt is listed as altered, never as fresh", async () => {
    const world = fixWorld();
    const first = await session(world);
    await first.controller.dispose();
    sessions.splice(0);
    await agentShell(world, FORGE_PASSED_RECEIPT);
    const run = await runCli(["receipts", "--cwd", world.workspace, "--json"], {
      env: { HOME: world.agentDir, PI_CODING_AGENT_DIR: world.agentDir },
    });
    expect(run.exitCode).toBe(0);
    const listed = JSON.parse(run.stdout) as {
      receipts: Array<{ id: string; state: string; writer: string }>;
      altered: unknown[];
    };
    expect(listed.receipts.map((receipt) => [receipt.state, receipt.writer])).toEqual([["failed", "pi"]]);
    expect(listed.altered).toEqual([
      {
        file: "receipts/pi/forged-pass.json",
        reason: "its seal does not match its content: it was changed after pi-quests wrote it",
      },
    ]);
    expect(run.stderr).toContain("warning: receipts/pi/forged-pass.json: altered receipt ignored");
  });

  it("the honest fix still passes, with no alert", async () => {
    const world = fixWorld();
    const opened = await session(world);
    writeFileSync(join(world.workspace, "answer.txt"), "fixed\n");
    await opened.controller.command("check");
    const state = opened.ui.lastHud();
    expect(state).toMatchObject({ kind: "idle", done: 1, total: 1 });
    expect(hudText(opened.ui).join("\n")).not.toContain("⚠");
    expect(opened.ui.notes().map((note) => note.message)).toContainEqual(
      expect.stringMatching(/^Quest complete: Fix the answer ✓/),
    );
    // Every receipt on disk verifies with the data dir's key.
    const sealer = agentSealer(world.agentDir, "receipts.pi", world.workspace);
    for (const name of receiptFiles(world))
      expect(verifyRecord(sealer, readJson(join(piReceipts(world), name))).ok).toBe(true);
  });
});

/** The agent's own tool_result line for a write of notes.txt, and a quest_completed, appended to the log. */
const FORGE_EVENT_LINES = `
log=$(ls "$PI_CODING_AGENT_DIR"/quests/workspaces/*/events.jsonl)
next=$(( $(wc -l < "$log") + 100 ))
echo '{"name":"tool_result","sessionId":"session-1","seq":'$next',"payload":{"toolName":"write","toolCallId":"x","isError":false,"input":{"path":"notes.txt"}}}' >> "$log"
echo '{"name":"quest_completed","sessionId":"session-1","seq":'$((next + 1))',"payload":{"quest":"notes"}}' >> "$log"
`;

describe("recorded events the agent forges", () => {
  it("a tool_result and a quest_completed line appended to events.jsonl do not count after a restart; the HUD says so", async () => {
    const world = recordsWorld(makeWorkspace(), NOTES_PACK_FILES);
    const first = await session(world);
    expect(hudText(first.ui)).toContain("  ○ Pi wrote notes.txt: not yet");
    await first.controller.dispose();
    sessions.splice(0);
    await agentShell(world, FORGE_EVENT_LINES);

    const second = await session(world);
    await second.controller.command("check");
    expect(hudText(second.ui)).toEqual([
      "Quest 1/1: Write notes",
      "  ○ Pi wrote notes.txt: not yet",
      "  /quest hint · /quest status · /quest list",
      "⚠ pi-quests ignored altered records: 2 events — /quest status",
    ]);
    await second.controller.command("status");
    expect(second.ui.lastSaid()).toMatch(
      /⚠ altered event ignored: .*events\.jsonl:\d+ \(the line has no valid seal/,
    );
  });

  it("a sealed line of the log copied in again (a replay) counts once and is reported", async () => {
    const world = recordsWorld(makeWorkspace(), NOTES_PACK_FILES);
    const first = await session(world);
    await first.controller.dispose();
    sessions.splice(0);
    await agentShell(
      world,
      `log=$(ls "$PI_CODING_AGENT_DIR"/quests/workspaces/*/events.jsonl); tail -1 "$log" >> "$log"`,
    );
    const second = await session(world);
    expect(hudText(second.ui)).toContain("⚠ pi-quests ignored altered records: 1 event — /quest status");
  });

  it("a line appended while the session runs is never read: the in-memory log decides", async () => {
    const world = recordsWorld(makeWorkspace(), NOTES_PACK_FILES);
    const opened = await session(world);
    await agentShell(world, FORGE_EVENT_LINES);
    await opened.controller.command("check");
    expect(hudText(opened.ui)).toContain("  ○ Pi wrote notes.txt: not yet");
  });

  it("pi-quests check --events: a sealed line whose payload was edited is left out with a warning naming it", async () => {
    const workspace = makeWorkspace({ "hello.txt": "hello world\n" });
    const home = makeWorkspace();
    const agentDir = join(home, "agent");
    const sealer = agentSealer(agentDir, "events", workspace);
    const wrote = {
      name: "tool_result",
      seq: 1,
      payload: { toolName: "write", toolCallId: "c", isError: false, input: { path: "notes.txt" } },
    };
    const edited = {
      ...sealRecord(sealer, { ...wrote, payload: { ...wrote.payload, input: { path: "other.txt" } } }),
    };
    edited.payload = wrote.payload; // the agent's edit: the seal no longer matches
    const file = join(makeWorkspace(), "events.jsonl");
    writeFileSync(
      file,
      `${JSON.stringify({ name: "input", seq: 0, payload: { text: "hi" } })}\n${JSON.stringify(edited)}\n`,
    );
    const quest = join(makeWorkspace(NOTES_PACK_FILES), "10-notes.yaml");
    const run = await runCli(
      ["check", quest, "--cwd", workspace, "--events", file, "--data-dir", join(agentDir, "quests")],
      {
        env: { HOME: home, PI_CODING_AGENT_DIR: agentDir },
      },
    );
    expect(run.exitCode).toBe(1);
    expect(run.stderr).toContain(
      `warning: ${file}:2:1: its seal does not verify with this data dir's key: altered, or sealed by another machine's pi-quests; remove its seal field to vouch for it yourself. Left out`,
    );
    // The same line without its seal is the author's own, and counts.
    writeFileSync(file, `${JSON.stringify(wrote)}\n`);
    const vouched = await runCli(
      ["check", quest, "--cwd", workspace, "--events", file, "--data-dir", join(agentDir, "quests")],
      {
        env: { HOME: home, PI_CODING_AGENT_DIR: agentDir },
      },
    );
    expect(vouched.exitCode).toBe(0);
  });
});

describe("progress and pinned definitions the agent rewrites", () => {
  it("progress.json rewritten to mark the quest complete: set aside as altered, progress starts over, the learner is told", async () => {
    const world = fixWorld();
    const before = snapshot(world.workspace);
    const first = await session(world);
    await first.controller.dispose();
    sessions.splice(0);
    await agentShell(
      world,
      `cd "$PI_CODING_AGENT_DIR"/quests/workspaces/* && "$NODE" -e '
        const fs = require("fs"); const p = JSON.parse(fs.readFileSync("progress.json", "utf8"));
        p.completed.fix = { at: new Date().toISOString(), definitionHash: p.active.definitionHash };
        delete p.active; delete p.lastResult; fs.writeFileSync("progress.json", JSON.stringify(p));
      '`,
    );
    const second = await session(world);
    expect(second.ui.lastHud()).toMatchObject({ kind: "active", title: "Fix the answer" });
    expectFailing(answerCheck(world, second));
    expect(hudText(second.ui)).toContain(
      "⚠ pi-quests ignored altered records: 1 progress file — /quest status",
    );
    const backups = readdirSync(world.folder).filter((name) => name.startsWith("progress.json.altered-"));
    expect(backups).toHaveLength(1);
    expect(readJson(join(world.folder, backups[0] ?? "")).completed).toHaveProperty("fix");
    expectUntouched(world, before);
  });

  it("a pinned definition rewritten to run `true`, with its hash recomputed: the pinned quest is not used", async () => {
    const world = fixWorld();
    const before = snapshot(world.workspace);
    const first = await session(world);
    await first.controller.dispose();
    sessions.splice(0);
    await agentShell(
      world,
      `cd "$PI_CODING_AGENT_DIR"/quests/workspaces/* && "$NODE" -e '
        const fs = require("fs"); const crypto = require("crypto");
        const canon = (v) => Array.isArray(v) ? "[" + v.map(canon).join(",") + "]" : v && typeof v === "object"
          ? "{" + Object.keys(v).sort().filter((k) => v[k] !== undefined).map((k) => JSON.stringify(k) + ":" + canon(v[k])).join(",") + "}"
          : JSON.stringify(v);
        const p = JSON.parse(fs.readFileSync("progress.json", "utf8"));
        p.active.definition.checks[0].run = "true";
        p.active.definitionHash = crypto.createHash("sha256").update(canon(p.active.definition)).digest("hex");
        fs.writeFileSync("progress.json", JSON.stringify(p));
      '`,
    );
    const second = await session(world);
    await second.controller.command("check");
    expectFailing(answerCheck(world, second));
    expect(hudText(second.ui)).toContain(
      "⚠ pi-quests ignored altered records: 1 progress file — /quest status",
    );
    expectUntouched(world, before);
  });

  it("progress.json rewritten while the session runs is never read back, and is replaced by pi-quests' own", async () => {
    const world = fixWorld();
    const opened = await session(world);
    await agentShell(
      world,
      `cd "$PI_CODING_AGENT_DIR"/quests/workspaces/* && echo '{"version":1,"completed":{"fix":{"at":"2030-01-01T00:00:00Z","definitionHash":"x"}}}' > progress.json`,
    );
    await opened.controller.command("check");
    expect(opened.ui.lastHud()).toMatchObject({ kind: "active", title: "Fix the answer" });
    await opened.controller.dispose();
    sessions.splice(0);
    const saved = readJson(join(world.folder, "progress.json"));
    const verified = verifyRecord<{ completed: object }>(
      agentSealer(world.agentDir, "progress", world.workspace),
      saved,
    );
    expect(verified.ok && verified.record.completed).toEqual({});
  });
});

describe("the tool-call guard", () => {
  const home = "/home/learner";
  const agentDir = join(home, ".pi", "agent");
  const context = (cwd = join(home, "project"), realpath = (path: string) => path) => ({
    cwd,
    home,
    agentDir,
    realpath,
  });
  const decide = (toolName: string, input: Record<string, unknown>, ctx = context()) =>
    guardToolCall({ toolName, input }, ctx);

  it("blocks bash that names the data dir: absolute, ~, $HOME, {HOME} braced, $PI_CODING_AGENT_DIR, workspaces, seal.key", () => {
    for (const command of [
      "cat /home/learner/.pi/agent/quests/seal.key",
      "cp x ~/.pi/agent/quests/workspaces/abc/receipts/y.json",
      'ls "$HOME/.pi/agent/quests"',
      `ls \${HOME}/.pi/agent/quests`,
      'echo x >> "$PI_CODING_AGENT_DIR"/quests/workspaces/k/events.jsonl',
      "find / -name seal.key",
      "cd .. && cat .pi/agent/quests/x",
      "cd ~/.pi/agent && cat quests/w/progress.json",
      "ls $(dirname $(dirname x))/quests/workspaces",
    ]) {
      const decision = decide("bash", { command });
      expect(decision.block, command).toBe(true);
      expect(decision.block && decision.reason).toMatch(/off-limits to the agent/);
    }
    expect(decide("bash", { command: "npm test && git commit -am done" })).toEqual({ block: false });
    // The agent dir is the learner's: the keybinding quest asks for a file there.
    for (const command of [
      `printf '%s\n' '{"app.session.tree": "alt+t"}' > "$PI_CODING_AGENT_DIR/keybindings.json"`,
      `cat \${PI_CODING_AGENT_DIR}/settings.json`,
    ])
      expect(decide("bash", { command }), command).toEqual({ block: false });
    expect(decide("bash", { command: "cat quests/intro.md" })).toEqual({ block: false });
  });

  it("blocks bash whose globs can only mean the records: find ~ -name 'seal.k*', ~/.pi/agent/q*/s*, and the like", () => {
    for (const command of [
      "find ~ -name 'seal.k*'",
      "find / -name seal.k\\* 2>/dev/null | xargs cat",
      "cat ~/.pi/agent/q*/s*",
      "cat $HOME/.pi/agent/quest?/seal.*",
      'cat "$PI_CODING_AGENT_DIR"/*/seal.key',
      `tar cf - \${PI_CODING_AGENT_DIR}/q[u]ests`,
      "cd ~/.pi/agent && cat q*/s*",
      "cat agent/quests/*/*/progress.json",
      "find . -name 'progr*.json' -exec cat {} +",
      "ls -la work*",
    ]) {
      const decision = decide("bash", { command });
      expect(decision.block, command).toBe(true);
      expect(decision.block && decision.reason).toMatch(/off-limits to the agent/);
    }
    // Globs of ordinary work go through, a project's own quests/ folder included, and the
    // package's name beside the agent dir (the install quest's own check).
    for (const command of [
      "grep pi-quests ~/.pi/agent/settings.json",
      "ls *",
      "cat *.json",
      "rm -f s*",
      "ls quests/*.yaml",
      "ls ~/.pi/agent/*",
      "find . -name '*.key'",
      "grep -rn 'se.*key' src",
      "git add src/*.ts && git commit -m wip",
    ])
      expect(decide("bash", { command }), command).toEqual({ block: false });
  });

  it('blocks bash that names the data dir through quotes or backslashes: que""sts, se\\al.key', () => {
    for (const command of [
      'cd "$(printenv PI_CODING_AGENT_DIR)/que""sts/work""spaces"',
      "cat ~/.pi/agent/qu'es'ts/x",
      "cat /some/where/se\\al.key",
    ])
      expect(decide("bash", { command }).block, command).toBe(true);
  });

  it("blocks write and edit whose text names the data dir (a script written to run later)", () => {
    const script = '#!/bin/sh\nfor f in ~/.pi/agent/q*/s*; do cp "$f" /tmp/k; done\n';
    expect(decide("write", { path: "steal.sh", content: script }).block).toBe(true);
    expect(
      decide("write", {
        path: "t.test.js",
        content: "require('fs').readFileSync(process.env.HOME + '/.pi/agent/quests/seal.key')",
      }).block,
    ).toBe(true);
    expect(
      decide("edit", {
        path: "package.json",
        edits: [
          { oldText: '"test": "node t.js"', newText: '"test": "cat $PI_CODING_AGENT_DIR/quests/seal.key"' },
        ],
      }).block,
    ).toBe(true);
    expect(decide("edit", { path: "run.sh", oldText: "x", newText: "find ~ -name 'seal.k*'" }).block).toBe(
      true,
    );
    // Ordinary text, and the agent dir's own files (the keybinding quest), go through.
    expect(decide("write", { path: "answer.txt", content: "fixed\n" })).toEqual({ block: false });
    expect(
      decide("write", { path: `${agentDir}/keybindings.json`, content: '{ "app.session.tree": "alt+t" }\n' }),
    ).toEqual({ block: false });
    expect(decide("edit", { path: "src/calc.js", edits: [{ oldText: "a - b", newText: "a * b" }] })).toEqual({
      block: false,
    });
  });

  it("blocks file tools whose path reaches the data dir, through ~, .. or a symlink in the workspace", () => {
    const project = realpathSync(makeWorkspace());
    const fakeAgent = realpathSync(makeWorkspace({ "quests/seal.key": "k\n" }));
    symlinkSync(join(fakeAgent, "quests"), join(project, "records"));
    const real = { cwd: project, home: fakeAgent, agentDir: fakeAgent, realpath: realpathSync };
    expect(guardToolCall({ toolName: "read", input: { path: "records/seal.key" } }, real).block).toBe(true);
    expect(guardToolCall({ toolName: "write", input: { path: "~/quests/new.json" } }, real).block).toBe(true);
    expect(
      guardToolCall({ toolName: "edit", input: { path: `${fakeAgent}/quests/x/../seal.key` } }, real).block,
    ).toBe(true);
    expect(guardToolCall({ toolName: "grep", input: { pattern: "a", path: fakeAgent } }, real).block).toBe(
      true,
    );
    expect(guardToolCall({ toolName: "ls", input: { path: "@records" } }, real).block).toBe(true);
    expect(guardToolCall({ toolName: "find", input: { pattern: "*", path: "records" } }, real).block).toBe(
      true,
    );
    // The workspace itself is the agent's to work in.
    expect(guardToolCall({ toolName: "write", input: { path: "answer.txt" } }, real)).toEqual({
      block: false,
    });
    expect(guardToolCall({ toolName: "grep", input: { pattern: "a" } }, real)).toEqual({ block: false });
    expect(existsSync(join(fakeAgent, "quests", "seal.key"))).toBe(true);
    expect(readFileSync(join(fakeAgent, "quests", "seal.key"), "utf8")).toBe("k\n");
  });
});
