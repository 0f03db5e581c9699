/**
 * A quest session over real files for the records red team: a real agent dir (seal key,
 * receipts, events, progress), a real git workspace, the real session, task verifier and
 * receipts, a fake UI; and the agent's shell, which runs commands as the learner's user with
 * Pi's environment.
 */
import { readdirSync, readFileSync, realpathSync } from "node:fs";
import { join } from "node:path";
import { execa } from "execa";
import { workspaceHome } from "../../src/core/workspace-key.ts";
import type { QuestController } from "../../src/extension/controller.ts";
import { hudLines } from "../../src/extension/hud.ts";
import { openQuestSession } from "../../src/extension/session.ts";
import { receiptsFolder } from "../../src/receipts/writers.ts";
import { type FakeQuestUi, fakeQuestUi } from "./fake-quest-ui.ts";
import { makeWorkspace } from "./workspace.ts";

/** One quest whose only check runs in the isolated verifier: check.sh (in the baseline) wants answer.txt to say `fixed`. */
export const FIX_PACK_FILES = {
  "10-fix.yaml": [
    "version: 1",
    "id: fix",
    "title: Fix the answer",
    "goal: Make answer.txt say fixed.",
    "checks:",
    "  - id: answer-fixed",
    "    describe: answer.txt says fixed",
    "    type: command",
    "    run: bash check.sh",
    "",
  ].join("\n"),
};

export const CHECK_SCRIPT = "grep -qx fixed answer.txt\n";

/** One quest whose only check is an event: Pi's write tool wrote notes.txt. */
export const NOTES_PACK_FILES = {
  "10-notes.yaml": [
    "version: 1",
    "id: notes",
    "title: Write notes",
    "goal: Ask Pi to write notes.txt.",
    "checks:",
    "  - id: wrote-notes",
    "    describe: Pi wrote notes.txt",
    "    type: event",
    "    match:",
    "      event: tool_result",
    "      tool: write",
    "      outcome: success",
    "      fields:",
    "        input.path: { ends_with: notes.txt }",
    "",
  ].join("\n"),
};

export const SESSION = "session-1";

export type RecordsWorld = {
  workspace: string;
  agentDir: string;
  pack: string;
  env: Record<string, string | undefined>;
  /** `{agent_dir}/quests`. */
  dataDir: string;
  /** This workspace's folder in the data dir. */
  folder: string;
};

export function recordsWorld(workspace: string, packFiles: Record<string, string>): RecordsWorld {
  const agentDir = realpathSync(makeWorkspace());
  const pack = makeWorkspace(packFiles);
  const dataDir = join(agentDir, "quests");
  return {
    workspace,
    agentDir,
    pack,
    dataDir,
    folder: workspaceHome(dataDir, realpathSync(workspace)),
    env: { ...process.env, PI_CODING_AGENT_DIR: agentDir, PI_QUESTS_PACK: pack },
  };
}

export type OpenSession = { controller: QuestController; ui: FakeQuestUi };

/** Opens the real quest session (as Pi's start does) and waits for its first evaluation. */
export async function openSession(world: RecordsWorld): Promise<OpenSession> {
  const ui = fakeQuestUi();
  const opened = await openQuestSession({
    cwd: world.workspace,
    env: world.env,
    ui,
    sessionId: () => SESSION,
    debounceMs: 5,
  });
  if (!opened.ok) throw new Error(opened.message);
  await opened.controller.idle();
  return { controller: opened.controller, ui };
}

/** The agent's bash tool: a shell in the workspace, as the learner's user, with Pi's environment. */
export async function agentShell(world: RecordsWorld, command: string): Promise<string> {
  const run = await execa("bash", ["-c", command], {
    cwd: world.workspace,
    env: { ...world.env, NODE: process.execPath },
    reject: false,
  });
  if (run.exitCode !== 0) throw new Error(`the attack failed (${run.exitCode}): ${run.stderr}`);
  return run.stdout;
}

/** The HUD's lines as the learner reads them. */
export function hudText(ui: FakeQuestUi): string[] {
  const state = ui.lastHud();
  return state ? hudLines(state).map((line) => line.text) : [];
}

/** The folder of the receipts a Pi session writes (src/receipts/writers.ts). */
export function piReceipts(world: RecordsWorld): string {
  return receiptsFolder(world.folder, "pi");
}

/** The receipt files a Pi session wrote in the workspace, by name. */
export function receiptFiles(world: RecordsWorld): string[] {
  try {
    return readdirSync(piReceipts(world))
      .filter((name) => name.endsWith(".json"))
      .sort();
  } catch {
    return [];
  }
}

export function readJson(path: string): Record<string, unknown> {
  return JSON.parse(readFileSync(path, "utf8")) as Record<string, unknown>;
}
