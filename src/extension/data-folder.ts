/**
 * Where a workspace's quest files live: `{agent_dir}/quests/workspaces/<key>/` (the key a hash
 * of the workspace's real path): progress.json, events.jsonl, and the task verifier's and
 * receipts' files. Never inside the project. No schema library: print mode uses it too.
 */
import { realpath } from "node:fs/promises";
import { homedir } from "node:os";
import { join } from "node:path";
import { agentDirFrom } from "../core/paths.ts";
import { workspaceHome } from "../core/workspace-key.ts";

export type DataFolder = {
  home: string;
  agentDir: string;
  /** `{agent_dir}/quests`, the data dir the task verifier and receipts are given. */
  dataDir: string;
  /** The folder Pi runs in, its real path. */
  workspace: string;
  /** This workspace's own folder in the data dir. */
  folder: string;
  eventsFile: string;
  progressFile: string;
};

export async function locateDataFolder(
  cwd: string,
  env: Record<string, string | undefined>,
): Promise<DataFolder> {
  const home = homedir();
  const agentDir = agentDirFrom(env, cwd, home);
  const dataDir = join(agentDir, "quests");
  const workspace = await realpath(cwd);
  const folder = workspaceHome(dataDir, workspace);
  return {
    home,
    agentDir,
    dataDir,
    workspace,
    folder,
    eventsFile: join(folder, "events.jsonl"),
    progressFile: join(folder, "progress.json"),
  };
}
