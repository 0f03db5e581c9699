/** The real `pi` binary, offline, with the scripted model of fixtures/pi/scripted-model.ts. */
import { readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { execa } from "execa";
import {
  PI,
  SCRIPTED_MODEL,
  type ScriptedTurn,
  scriptedPiArgs,
  scriptedPiEnv,
} from "../../scripts/pi-rpc.ts";
import { makeWorkspace } from "./workspace.ts";

export { PI, SCRIPTED_MODEL, type ScriptedTurn, scriptedPiEnv };

/**
 * Runs one prompt in the real pi (print mode) in `workspace`, the model's turns scripted, with
 * a throwaway agent dir and home. Returns the session file Pi wrote.
 */
export async function runPi(workspace: string, prompt: string, script: ScriptedTurn[]): Promise<string> {
  const agentDir = makeWorkspace();
  const scriptFile = join(agentDir, "script.json");
  writeFileSync(scriptFile, JSON.stringify(script));
  const run = await execa(
    process.execPath,
    [PI, ...scriptedPiArgs({ extension: false, session: true }), "-p", prompt],
    {
      cwd: workspace,
      env: scriptedPiEnv(agentDir, scriptFile),
      reject: false,
      stdin: "ignore",
      timeout: 60_000,
    },
  );
  if (run.exitCode !== 0) throw new Error(`pi exited with ${run.exitCode}: ${run.stderr}`);
  const sessions = join(agentDir, "sessions");
  const [folder = ""] = readdirSync(sessions);
  const [file = ""] = readdirSync(join(sessions, folder));
  return join(sessions, folder, file);
}
