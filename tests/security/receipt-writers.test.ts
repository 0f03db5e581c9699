/**
 * Red team: a receipt is only as honest as the process that wrote it (docs/security.md, 15). The
 * agent runs `pi-quests check` itself, from its shell, with a preload that patches
 * `child_process` in the CLI's own process so the failing check "passes": the CLI seals a passed
 * receipt of the unchanged, wrong files. No key is read and no guard trips. Then Pi's extension
 * evaluates the same workspace. Real processes: the real CLI, the real session, task verifier
 * and receipts over a real data dir.
 */
import { copyFileSync, existsSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { inputEvent } from "../../src/events/names.ts";
import { openQuestSession } from "../../src/extension/session.ts";
import { BIN } from "../support/cli.ts";
import { fakeQuestUi } from "../support/fake-quest-ui.ts";
import {
  agentShell,
  CHECK_SCRIPT,
  FIX_PACK_FILES,
  hudText,
  type OpenSession,
  openSession,
  type RecordsWorld,
  readJson,
  recordsWorld,
  SESSION,
} from "../support/records.ts";
import { makeRepo, snapshot } from "../support/task-verifier.ts";
import { makeWorkspace, removeWorkspaces } from "../support/workspace.ts";

const sessions: OpenSession[] = [];
afterEach(async () => {
  for (const { controller } of sessions.splice(0)) await controller.dispose();
  removeWorkspaces();
});

async function session(world: RecordsWorld): Promise<OpenSession> {
  const opened = await openSession(world);
  sessions.push(opened);
  learnerAsks(opened);
  return opened;
}

/**
 * The learner asks Pi for the fix (the agent's shell below is that turn's), so a check that
 * fails is shown as failed (✗), no longer as "not yet" from the next time the HUD is drawn.
 */
function learnerAsks(opened: Pick<OpenSession, "controller">): void {
  opened.controller.record(inputEvent({ content: "Fix answer.txt" }));
}

/** A git workspace whose answer is wrong, and the quest whose one command check wants it fixed. */
function fixWorld(): RecordsWorld {
  return recordsWorld(makeRepo({ "answer.txt": "broken\n", "check.sh": CHECK_SCRIPT }), FIX_PACK_FILES);
}

/** The check as the HUD shows it, and the receipt of the last result the session saved. */
function answerCheck(world: RecordsWorld, opened: OpenSession) {
  const state = opened.ui.lastHud();
  const progress = readJson(join(world.folder, "progress.json")) as {
    lastResult?: {
      status: string;
      checks: Array<{ evidence: { receipt?: { id: string; reused: boolean } } }>;
    };
  };
  return {
    status: progress.lastResult?.status,
    hud: state?.kind === "active" ? state.checks[0] : undefined,
    receipt: progress.lastResult?.checks[0]?.evidence.receipt,
  };
}

/**
 * The agent's preload: the check's script (`bash check.sh`) becomes `true` wherever pi-quests
 * starts it, so the task verifier runs a no-op in its worktree and reports exit 0 with the real
 * fingerprint of the files. `hide`: it also removes NODE_OPTIONS from the process's environment,
 * as a preload that knows pi-quests looks there would.
 */
function preload(hide: boolean): string {
  const folder = makeWorkspace({
    "patch.mjs": [
      'import childProcess from "node:child_process";',
      'import { syncBuiltinESMExports } from "node:module";',
      "const spawn = childProcess.spawn;",
      "childProcess.spawn = function (file, args, options) {",
      '  const patched = Array.isArray(args) ? args.map((arg) => (/^bash check\\.sh\\s*$/.test(arg) ? "true" : arg)) : args;',
      "  return spawn.call(this, file, patched, options);",
      "};",
      "syncBuiltinESMExports();",
      hide ? "delete process.env.NODE_OPTIONS;" : "",
      "",
    ].join("\n"),
  });
  return join(folder, "patch.mjs");
}

type CliOutcome = { status: string; receipt?: string; stderr: string };

/** The agent's `pi-quests check` of the quest in the workspace, started with the preload: its verdict, receipt and stderr. */
async function preloadedCheck(world: RecordsWorld, patch: string): Promise<CliOutcome> {
  const quest = join(world.pack, "10-fix.yaml");
  const out = await agentShell(
    world,
    // stderr goes outside the workspace: a file there would be part of what the check judges.
    `e=$(mktemp); NODE_OPTIONS="--import ${patch}" "$NODE" ${BIN} check ${quest} --cwd . --json 2>"$e"; echo "exit $?"; cat "$e"; rm "$e"`,
  );
  const [json = "{}", ...rest] = out.split("\n");
  const result = JSON.parse(json) as {
    status?: string;
    checks?: Array<{ evidence?: { receipt?: { id?: string } } }>;
  };
  const receipt = result.checks?.[0]?.evidence?.receipt?.id;
  return { status: result.status ?? "?", ...(receipt ? { receipt } : {}), stderr: rest.join("\n") };
}

/** Every receipt file of the workspace in the data dir, wherever its writer keeps it. */
function receiptFilesEverywhere(world: RecordsWorld): string[] {
  const found: string[] = [];
  const walk = (folder: string, prefix: string) => {
    if (!existsSync(folder)) return;
    for (const entry of readdirSync(folder, { withFileTypes: true })) {
      if (entry.isDirectory()) walk(join(folder, entry.name), `${prefix}${entry.name}/`);
      else if (entry.name.endsWith(".json")) found.push(`${prefix}${entry.name}`);
    }
  };
  walk(join(world.folder, "receipts"), "");
  return found.sort();
}

describe("receipts the agent has pi-quests check write for it", () => {
  it("the issue's attack: a preload (hiding itself) makes the agent's pi-quests check pass the wrong files; the extension is not answered by that receipt and stays red", async () => {
    const world = fixWorld();
    const opened = await session(world);
    const first = answerCheck(world, opened);
    // Drawn before the learner asked anything: not yet, never red; the result is a fail.
    expect(first).toMatchObject({ status: "fail", hud: { status: "unchecked", reason: "not yet" } });
    const ours = receiptFilesEverywhere(world);

    // The attack's first half works: the CLI, patched in its own process, says pass and seals it.
    // A new file first, so the files' fingerprint is one no earlier receipt answers: the CLI runs
    // the check (patched) instead of answering from the session's failed receipt.
    await agentShell(world, "echo scratch > notes.md");
    const before = snapshot(world.workspace);
    const cli = await preloadedCheck(world, preload(true));
    expect(cli.status).toBe("pass");
    const written = receiptFilesEverywhere(world).filter((file) => !ours.includes(file));
    expect(written).toEqual([expect.stringContaining(cli.receipt ?? "no receipt")]);

    // The session runs the check on these files itself, and it fails: the CLI's pass never answers.
    await opened.controller.command("check");
    const after = answerCheck(world, opened);
    expect(after.receipt?.id).not.toBe(cli.receipt);
    expect([after.status, after.hud?.status]).toEqual(["fail", "fail"]);
    expect(after.receipt).toMatchObject({ reused: false });
    // A CLI receipt in the CLI's folder is not a forgery: nothing to warn the learner about.
    expect(hudText(opened.ui).join("\n")).not.toContain("⚠");
    expect(snapshot(world.workspace)).toEqual(before);
  }, 60_000);

  it("the same preload not hidden: pi-quests check says it trusts nothing of this process and leaves no receipt; the extension stays red", async () => {
    const world = fixWorld();
    const opened = await session(world);
    const ours = receiptFilesEverywhere(world);
    const cli = await preloadedCheck(world, preload(false));
    expect(cli.stderr).toMatch(
      /pi-quests check: this process was started with code that runs before pi-quests \(NODE_OPTIONS --import .*patch\.mjs\): the quest is checked, but no receipt is read or left/,
    );
    expect(receiptFilesEverywhere(world)).toEqual(ours);
    await opened.controller.command("check");
    expect(answerCheck(world, opened).hud?.status).toBe("fail");
  }, 60_000);

  it("the CLI's passed receipt copied into the Pi session's folder: refused as altered, its seal says the CLI; the check runs and stays red", async () => {
    const world = fixWorld();
    const opened = await session(world);
    await preloadedCheck(world, preload(true));
    const [cliReceipt] = readdirSync(join(world.folder, "receipts", "cli"));
    expect(cliReceipt).toBeDefined();
    copyFileSync(
      join(world.folder, "receipts", "cli", cliReceipt ?? ""),
      join(world.folder, "receipts", "pi", cliReceipt ?? ""),
    );
    await opened.controller.command("check");
    expect(answerCheck(world, opened).hud?.status).toBe("fail");
    expect(hudText(opened.ui)).toContain("⚠ pi-quests ignored altered records: 1 receipt — /quest status");
    await opened.controller.command("status");
    expect(opened.ui.lastSaid()).toContain(
      `⚠ altered receipt ignored: ${cliReceipt} (it was written by pi-quests check, whose receipts a Pi session never reuses`,
    );
  }, 60_000);
});

describe("a Pi started with code loaded before pi-quests", () => {
  it("keeps its receipts in memory: it answers itself from its own run, and the next session runs the check again", async () => {
    const world = fixWorld();
    const ui = fakeQuestUi();
    const opened = await openQuestSession({
      cwd: world.workspace,
      env: world.env,
      ui,
      sessionId: () => SESSION,
      debounceMs: 5,
      untrustedStart: true,
    });
    if (!opened.ok) throw new Error(opened.message);
    sessions.push({ controller: opened.controller, ui });
    await opened.controller.idle();
    const untrusted = { controller: opened.controller, ui };
    expect(answerCheck(world, untrusted)).toMatchObject({
      status: "fail",
      hud: { status: "unchecked" },
      receipt: { reused: false },
    });
    learnerAsks(untrusted);
    await opened.controller.command("check");
    expect(answerCheck(world, untrusted)).toMatchObject({
      hud: { status: "fail" },
      receipt: { reused: true },
    });
    expect(receiptFilesEverywhere(world)).toEqual([]);

    await opened.controller.dispose();
    sessions.splice(0);
    const next = await session(world);
    expect(answerCheck(world, next)).toMatchObject({ hud: { status: "fail" }, receipt: { reused: false } });
  }, 60_000);
});
