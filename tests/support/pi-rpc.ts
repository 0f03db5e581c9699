/** The real `pi` over RPC (scripts/pi-rpc.ts), with every pi a test file starts closed after each test. */

import { realpathSync } from "node:fs";
import { join } from "node:path";
import { type PiRpc, type PiRpcOptions, startPiRpc as startPi } from "../../scripts/pi-rpc.ts";
import { workspaceHome } from "../../src/core/workspace-key.ts";
import { makeWorkspace } from "./workspace.ts";

export type { PiRpc, PiRpcOptions, RpcLine, ScriptedTurn } from "../../scripts/pi-rpc.ts";
export {
  EXTENSION,
  PI,
  PI_PREVIOUS,
  PLAIN_BASH,
  PLAY_CONTROLS,
  SCRIPTED_MODEL,
  scriptedPiArgs,
  TEST_CONTROLS,
} from "../../scripts/pi-rpc.ts";

const started = new Set<PiRpc>();

/** Starts pi in RPC mode, with a throwaway agent dir unless one is given. */
export function startPiRpc(options: PiRpcOptions): PiRpc {
  const pi = startPi({ agentDir: makeWorkspace(), ...options });
  started.add(pi);
  return pi;
}

/** Closes every pi this file started (an `afterEach`), so none outlives its test. */
export async function closeAllPis(): Promise<void> {
  const all = [...started];
  started.clear();
  await Promise.all(all.map((pi) => pi.close()));
}

/** A one-quest pack whose only check runs `run` in the workspace (isolation none): a slow check. */
export function slowQuestPack(run: string): string {
  return makeWorkspace({
    "10-slow.yaml": [
      "version: 1",
      "id: slow",
      "title: A slow check",
      "goal: Wait.",
      "checks:",
      "  - describe: sleeps",
      "    type: command",
      "    isolation: none",
      `    run: "${run}"`,
      "",
    ].join("\n"),
  });
}

/** Runs a slash command and returns the notifications it produced. */
export async function command(pi: PiRpc, text: string): Promise<string[]> {
  const from = pi.lines.length;
  await pi.prompt(text);
  return pi.notifications(from);
}

/** The workspace's quest data folder in `agentDir` (progress.json, events.jsonl), as the extension finds it. */
export function dataFolderOf(agentDir: string, workspace: string): string {
  return workspaceHome(join(agentDir, "quests"), realpathSync(workspace));
}
