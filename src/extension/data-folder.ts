/**
 * Where a workspace's quest files live: `{agent_dir}/quests/workspaces/<key>/` (the key a hash
 * of the workspace's real path): progress.json, events.jsonl, and the task verifier's and
 * receipts' files. Never inside the project. No schema library: print mode uses it too.
 */
import { constants } from "node:fs";
import { access, realpath } from "node:fs/promises";
import { homedir } from "node:os";
import { dirname, join } from "node:path";
import { agentDirFrom } from "../core/paths.ts";
import { workspaceHome } from "../core/workspace-key.ts";
import { type ActivePack, packDataDir } from "../runtime/pack-records.ts";

export type DataFolder = {
  home: string;
  agentDir: string;
  /** The pack's data dir the task verifier and receipts are given (`{agent_dir}/quests` for the built-in pack). */
  dataDir: string;
  /** `{agent_dir}/quests`: where the active pack and the learner's consents are kept. */
  rootDataDir: string;
  /** The folder Pi runs in, its real path. */
  workspace: string;
  /** This workspace's own folder in the data dir. */
  folder: string;
  eventsFile: string;
  progressFile: string;
  /**
   * The data dir is on a read-only file system: a Pi started from the agent's sandboxed bash
   * (src/probes/os/bash-sandbox.ts) sees it as an empty read-only folder. pi-quests then records
   * nothing, quietly: the Pi outside records the session that started it.
   */
  readOnly: boolean;
};

/**
 * The data folder of the workspace at `cwd` for `pack` (default: the built-in pack's, where
 * records lived before packs; another pack's is under `{data_dir}/packs/<id>/`, pack-records.ts).
 */
export async function locateDataFolder(
  cwd: string,
  env: Record<string, string | undefined>,
  pack?: ActivePack,
): Promise<DataFolder> {
  const home = homedir();
  const agentDir = agentDirFrom(env, cwd, home);
  const rootDataDir = join(agentDir, "quests");
  const dataDir = pack ? packDataDir(rootDataDir, pack) : rootDataDir;
  const workspace = await realpath(cwd);
  const folder = workspaceHome(dataDir, workspace);
  return {
    home,
    agentDir,
    dataDir,
    rootDataDir,
    workspace,
    folder,
    eventsFile: join(folder, "events.jsonl"),
    progressFile: join(folder, "progress.json"),
    readOnly: await onReadOnlyFileSystem(dataDir),
  };
}

/** Whether `path`, or the nearest folder above it that exists (where it would be made), is read-only. */
async function onReadOnlyFileSystem(path: string): Promise<boolean> {
  for (let at = path; ; at = dirname(at)) {
    try {
      await access(at, constants.W_OK);
      return false;
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === "EROFS") return true;
      // Not there yet: where it would be made decides. Any other answer is not a read-only disk.
      if (code !== "ENOENT" || dirname(at) === at) return false;
    }
  }
}
