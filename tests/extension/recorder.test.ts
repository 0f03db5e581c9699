import { mkdirSync, mkdtempSync, realpathSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { workspaceHome } from "../../src/core/workspace-key.ts";
import { rememberActivePack } from "../../src/extension/quest-packs.ts";
import { openEventRecorder } from "../../src/extension/recorder.ts";

describe("print mode's recorder and the active pack", () => {
  it("records into the active pack's own folder; the built-in pack's where it always was", async () => {
    const root = realpathSync(mkdtempSync(join(tmpdir(), "pi-quests-recorder-")));
    const agentDir = join(root, "agent");
    const workspace = join(root, "work");
    mkdirSync(workspace);
    const env = { PI_CODING_AGENT_DIR: agentDir };
    const open = () =>
      openEventRecorder({
        cwd: workspace,
        env,
        onWriteError: (error) => {
          throw error;
        },
      });
    const dataDir = join(agentDir, "quests");
    expect((await open()).file).toBe(join(workspaceHome(dataDir, workspace), "events.jsonl"));
    const world = { cwd: workspace, workspace, env, home: root, builtIn: "" };
    await rememberActivePack(world, { id: "team", source: "package" });
    const log = await open();
    expect(log.file).toBe(join(workspaceHome(join(dataDir, "packs", "team"), workspace), "events.jsonl"));
    // PI_QUESTS_PACK plays its pack alone, recorded where it always was.
    const author = await openEventRecorder({
      cwd: workspace,
      env: { ...env, PI_QUESTS_PACK: "/p" },
      onWriteError: () => {},
    });
    expect(author.file).toBe(join(workspaceHome(dataDir, workspace), "events.jsonl"));
  });
});
