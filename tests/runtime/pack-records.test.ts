import { mkdirSync, mkdtempSync, readFileSync, realpathSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { beforeEach, describe, expect, it } from "vitest";
import { openRecordSealer } from "../../src/core/record-sealers.ts";
import { workspaceHome } from "../../src/core/workspace-key.ts";
import { locateDataFolder } from "../../src/extension/data-folder.ts";
import {
  hasConsent,
  packDataDir,
  readActivePack,
  recordConsent,
  writeActivePack,
} from "../../src/runtime/pack-records.ts";
import { emptyProgress, openProgressStore } from "../../src/runtime/progress.ts";

let agentDir: string;
let workspace: string;
let dataDir: string;
beforeEach(() => {
  const root = realpathSync(mkdtempSync(join(tmpdir(), "pi-quests-pack-records-")));
  agentDir = join(root, "agent");
  workspace = join(root, "work");
  mkdirSync(workspace);
  dataDir = join(agentDir, "quests");
});
const env = () => ({ PI_CODING_AGENT_DIR: agentDir });

describe("where each pack's records live", () => {
  it("keeps the built-in pack's progress where it was before packs: an old file loads unchanged", async () => {
    // What the code before packs wrote: {agent_dir}/quests/workspaces/<key>/progress.json.
    const before = join(workspaceHome(dataDir, workspace), "progress.json");
    const old = openProgressStore(before, openRecordSealer(dataDir, "progress", workspace));
    await old.save({
      ...emptyProgress(),
      completed: { "first-prompt": { at: "2026-01-01T00:00:00.000Z", definitionHash: "h" } },
    });
    const text = readFileSync(before, "utf8");

    const builtIn = await locateDataFolder(workspace, env(), { id: "built-in", source: "built-in" });
    expect(builtIn.progressFile).toBe(before);
    const loaded = await openProgressStore(
      builtIn.progressFile,
      openRecordSealer(builtIn.dataDir, "progress", workspace),
    ).load();
    expect(loaded.kind).toBe("loaded");
    expect(Object.keys(loaded.progress.completed)).toEqual(["first-prompt"]);
    expect(readFileSync(before, "utf8")).toBe(text);
    // With no pack named (print mode, PI_QUESTS_PACK): the same folder as before.
    expect((await locateDataFolder(workspace, env())).progressFile).toBe(before);
  });

  it("puts a package's or a project's pack in a folder of its own, per workspace", async () => {
    expect(packDataDir(dataDir, { id: "team", source: "package" })).toBe(join(dataDir, "packs", "team"));
    expect(packDataDir(dataDir, { id: "ours", source: "project" })).toBe(join(dataDir, "packs", "ours"));
    expect(packDataDir(dataDir, { id: "mine", source: "env" })).toBe(dataDir);
    const team = await locateDataFolder(workspace, env(), { id: "team", source: "package" });
    expect(team.progressFile).toBe(
      join(workspaceHome(join(dataDir, "packs", "team"), workspace), "progress.json"),
    );
    expect(team.rootDataDir).toBe(dataDir);
  });
});

describe("the active pack and the learner's consent", () => {
  it("remembers the active pack per workspace, sealed: a file pi-quests did not write counts as none", async () => {
    expect(await readActivePack(dataDir, workspace)).toBeUndefined();
    await writeActivePack(dataDir, workspace, { id: "team", source: "package" });
    expect(await readActivePack(dataDir, workspace)).toEqual({ id: "team", source: "package" });
    const file = join(workspaceHome(dataDir, workspace), "active-pack.json");
    const forged = { ...JSON.parse(readFileSync(file, "utf8")), pack: "other" };
    writeFileSync(file, JSON.stringify(forged));
    expect(await readActivePack(dataDir, workspace)).toBeUndefined();
  });

  it("remembers consent for a pack by its id and folder", async () => {
    const pack = { id: "team", path: "/packs/team" };
    expect(await hasConsent(dataDir, pack)).toBe(false);
    await recordConsent(dataDir, pack);
    expect(await hasConsent(dataDir, pack)).toBe(true);
    expect(await hasConsent(dataDir, { id: "team", path: "/elsewhere/team" })).toBe(false);
  });
});
