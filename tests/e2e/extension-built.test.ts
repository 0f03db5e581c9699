/**
 * The built extension as an installed package holds it, in the real `pi`: JavaScript with every
 * dependency inlined, in a folder with no Pi package above it (Pi installs packages without their
 * peers). Pi's loader must import the entry natively, never fall back to transforming it, and
 * pi-quests must still get Pi's functions, from the running Pi (src/runtime/pi-host.ts): a
 * skill check, which needs Pi's skill loader, passes, in RPC and in the terminal UI (whose HUD
 * and messages need pi-tui, found from Pi's own package folder).
 *
 * `JITI_DEBUG=1` makes Pi's loader say how it loads each file: `[native] [import] FILE`, or
 * `[transpile]` after a native failure (`[fallback]`).
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { type BuiltExtension, buildExtensionPackage, piPackageAbove } from "../support/built-extension.ts";
import { REPO } from "../support/cli.ts";
import { closeAllPis, command, PI, scriptedPiArgs, startPiRpc } from "../support/pi-rpc.ts";
import { cleanUpTmuxTest, requireTmux, startTmux } from "../support/tmux.ts";
import { makeWorkspace } from "../support/workspace.ts";

const SKILL_MD =
  "---\nname: greeter\ndescription: Greets the user. Use when asked to say hello.\n---\n\nSay hello.\n";
const CHECK = "greeter is a valid skill";
const PACK = {
  "10-skill.yaml": [
    "version: 1",
    "id: skill",
    "title: Write a skill",
    "goal: Give Pi a **greeter** skill.",
    "checks:",
    `  - describe: ${CHECK}`,
    "    type: skill_valid",
    "    name: greeter",
    "",
  ].join("\n"),
};

// Built once for the file, in a folder of its own (each test's workspaces are removed after it).
let root: string;
let built: BuiltExtension;
let pack: string;
beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), "pi-quests-built-"));
  built = await buildExtensionPackage(root);
  pack = join(root, "pack");
  mkdirSync(pack);
  for (const [name, text] of Object.entries(PACK)) writeFileSync(join(pack, name), text);
}, 120_000);
afterAll(() => rmSync(root, { recursive: true, force: true }));

afterEach(async () => {
  try {
    await closeAllPis();
  } finally {
    await cleanUpTmuxTest();
  }
});

/** An agent dir holding the learner's skill (a user skill: no project-trust prompt). */
function agentWithSkill(): string {
  const agentDir = makeWorkspace({ "skills/greeter/SKILL.md": SKILL_MD });
  writeFileSync(join(agentDir, "settings.json"), JSON.stringify({ defaultProjectTrust: "never" }));
  return agentDir;
}

const ESC = String.fromCharCode(27);
const plain = (text: string) => text.replace(new RegExp(`${ESC}\\[[0-9;]*m`, "g"), "");

describe("the built extension in an installed layout", () => {
  it("has no Pi package above it to resolve", () => {
    expect(piPackageAbove(built.pkg)).toBeUndefined();
  });

  it("is imported natively by Pi's loader, and a skill check passes with the running Pi's loader", async () => {
    const workspace = makeWorkspace();
    const rpc = startPiRpc({
      workspace,
      agentDir: agentWithSkill(),
      withExtension: false,
      extensions: [built.entry],
      pack,
      env: { JITI_DEBUG: "1" },
    });
    await rpc.waitFor(
      (line) => line.method === "setWidget" && String(line.widgetLines).includes(`✓ ${CHECK}`),
    );
    await rpc.settled();
    expect(rpc.hud().widget).toEqual(["Quests 1/1 done. Well played!"]);
    const status = await command(rpc, "/quest list");
    expect(status.join("\n")).toContain("skill: Write a skill");

    const loader = plain(rpc.stderr())
      .split("\n")
      .filter((line) => line.startsWith("[jiti]"));
    expect(loader).toContain(`[jiti] [native] [import] ${built.entry}`);
    const ours = loader.filter((line) => line.includes(built.pkg));
    expect(ours.filter((line) => /\[(transpile|fallback)\]/.test(line))).toEqual([]);
    expect(loader.filter((line) => line.includes("[fallback]"))).toEqual([]);
    expect(await rpc.close()).toBe(0);
  }, 120_000);

  it("records what a tool call changed: the looks, loaded on first use, run from the bundle", async () => {
    const workspace = makeWorkspace();
    const rpc = startPiRpc({
      workspace,
      withExtension: false,
      extensions: [built.entry],
      pack: join(REPO, "fixtures/packs/changed-paths"),
      script: [
        { tools: [{ name: "bash", arguments: { command: "cat > hello.txt <<'EOF'\nhello\nEOF" } }] },
        { text: "Created it." },
      ],
    });
    await rpc.settled();
    const from = rpc.lines.length;
    await rpc.prompt("Create hello.txt");
    await rpc.waitFor(
      (line) =>
        line.method === "notify" &&
        String(line.message).startsWith("Quest complete: Have Pi create hello.txt"),
      from,
    );
    expect(rpc.stderr()).not.toMatch(/pi-quests|Error/);
    expect(await rpc.close()).toBe(0);
  }, 120_000);

  it("draws the HUD and its messages in the terminal UI, with pi-tui from Pi's package folder", async () => {
    requireTmux();
    const dir = makeWorkspace();
    const workspace = join(dir, "workspace");
    const home = join(dir, "home");
    for (const folder of [workspace, home]) mkdirSync(folder, { recursive: true });
    const pane = startTmux({
      dir,
      home,
      cwd: workspace,
      width: 100,
      height: 40,
      command: [process.execPath, PI, ...scriptedPiArgs({ extension: false, extensions: [built.entry] })],
      env: { PI_CODING_AGENT_DIR: agentWithSkill(), PI_QUESTS_PACK: pack, GIT_CONFIG_NOSYSTEM: "1" },
    });
    // The goal, drawn from Markdown (**greeter** in bold, no asterisks), then the completion.
    const screen = await pane.waitForScreen(
      (text) => text.includes("Quest complete: Write a skill ✓") && text.includes("Quests 1/1 done"),
      "the skill quest completed",
    );
    expect(screen).toContain("Give Pi a greeter skill.");
    expect(screen).not.toContain("**greeter**");
    expect(screen).not.toContain("pi-quests could not start");
    await pane.kill();
  }, 120_000);
});
