import { createHash } from "node:crypto";
import { join } from "node:path";

/**
 * Each workspace's own folder in the data dir: `{data_dir}/workspaces/<key>`, the key a hash of
 * the workspace's real path. The task verifier keeps its worktrees, runs and lock there, and
 * the receipts live there too.
 */
export function workspaceHome(dataDir: string, realWorkspace: string): string {
  const key = createHash("sha256")
    .update(JSON.stringify([realWorkspace]))
    .digest("hex")
    .slice(0, 16);
  return join(dataDir, "workspaces", key);
}
