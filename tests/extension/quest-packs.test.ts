import { cpSync, mkdirSync, mkdtempSync, realpathSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import * as Pi from "@earendil-works/pi-coding-agent";
import { beforeEach, describe, expect, it } from "vitest";
import {
  chooseActivePack,
  consentToRun,
  type PackWorld,
  packsText,
  rememberActivePack,
} from "../../src/extension/quest-packs.ts";
import type { FoundPack } from "../../src/runtime/packs.ts";
import { STARTER_PACK } from "../support/cli.ts";

const BUILT_IN = join(import.meta.dirname, "../../quests");

let root: string;
let world: PackWorld;
beforeEach(() => {
  root = realpathSync(mkdtempSync(join(tmpdir(), "pi-quests-quest-packs-")));
  const agentDir = join(root, "agent");
  const workspace = join(root, "work");
  mkdirSync(agentDir);
  mkdirSync(workspace);
  const pack = join(root, "team");
  cpSync(STARTER_PACK, pack, { recursive: true });
  writeFileSync(
    join(pack, "package.json"),
    JSON.stringify({ name: "team", pi: { extensions: [], quests: ["."] } }),
  );
  writeFileSync(join(agentDir, "settings.json"), JSON.stringify({ packages: [pack] }));
  world = {
    cwd: workspace,
    workspace,
    env: { PI_CODING_AGENT_DIR: agentDir },
    home: root,
    builtIn: BUILT_IN,
    pi: Pi,
    sessionTrusted: () => true,
  };
});

const idOf = async () => {
  const chosen = await chooseActivePack(world);
  return "pack" in chosen ? { id: chosen.pack.id, notice: chosen.notice } : chosen;
};

describe("the active pack of a workspace", () => {
  it("is the built-in pack in a new workspace, then the one last made active", async () => {
    expect(await idOf()).toEqual({ id: "built-in", notice: undefined });
    await rememberActivePack(world, { id: "team", source: "package" });
    expect(await idOf()).toEqual({ id: "team", notice: undefined });
  });

  it("is the project's pack in a new trusted workspace that has one", async () => {
    cpSync(STARTER_PACK, join(world.cwd, ".pi", "quests"), { recursive: true });
    writeFileSync(join(world.cwd, ".pi", "quests", "pack.yaml"), "id: ours\n");
    expect(await idOf()).toMatchObject({ id: "built-in" });
    writeFileSync(
      join(String(world.env.PI_CODING_AGENT_DIR), "trust.json"),
      JSON.stringify({ [world.cwd]: true }),
    );
    expect(await idOf()).toMatchObject({ id: "ours" });
  });

  it("falls back to the built-in pack, saying so, when the pack last played is no longer offered", async () => {
    await rememberActivePack(world, { id: "gone", source: "package" });
    expect(await idOf()).toEqual({
      id: "built-in",
      notice:
        'the pack "gone" you were playing is not offered here any more (/quest packs says why); back on "Pi basics".',
    });
  });
});

describe("consent before a pack from elsewhere", () => {
  const team: FoundPack = {
    id: "team",
    title: "Team",
    source: "package",
    path: "/p/team",
    package: { source: "npm:team", scope: "user" },
  };

  it("is not asked for the built-in pack; a package's asks once, and a No runs nothing", async () => {
    const asked: string[] = [];
    const ui = (answer: boolean | undefined) => ({
      confirm: async (title: string) => {
        asked.push(title);
        return answer;
      },
    });
    expect(
      await consentToRun(
        world,
        { id: "built-in", title: "Pi basics", source: "built-in", path: BUILT_IN },
        ui(false),
      ),
    ).toBe(true);
    expect(await consentToRun(world, team, ui(false))).toBe(false);
    expect(await consentToRun(world, team, ui(undefined))).toBe(false);
    expect(await consentToRun(world, team, ui(true))).toBe(true);
    expect(await consentToRun(world, team, ui(false))).toBe(true);
    expect(asked).toEqual([
      'Play the quest pack "Team"?',
      'Play the quest pack "Team"?',
      'Play the quest pack "Team"?',
    ]);
  });
});

describe("/quest packs", () => {
  it("lists each pack with its source and quests done, marks the active one, then what is not offered", () => {
    const pack = (id: string, source: FoundPack["source"], done: number) => ({
      id,
      title: id.toUpperCase(),
      source,
      path: `/p/${id}`,
      quests: [{}, {}] as never,
      done,
      ...(source === "package" ? { package: { source: `npm:${id}`, scope: "user" as const } } : {}),
    });
    expect(
      packsText(
        {
          packs: [pack("built-in", "built-in", 1), pack("team", "package", 2)],
          problems: [{ message: "/p/x/pack.yaml:1:5: bad" }],
        },
        "team",
      ),
    ).toBe(
      [
        "Quest packs:",
        "  built-in: BUILT-IN (built-in) · 1/2 done",
        "▶ team: TEAM (package npm:team) · 2/2 done · active",
        "Not offered:",
        "  ! /p/x/pack.yaml:1:5: bad",
        "Switch with /quest pack ID; your progress in each pack is kept.",
      ].join("\n"),
    );
  });
});
