/**
 * pi-quests as a Pi package: `pi install <folder>` into a throwaway agent dir, then the real `pi`
 * started WITHOUT `-e src/extension/index.ts` (only the scripted model) loads it from the
 * settings: `/quest` is among its commands, the HUD appears, `/quest list` prints the pack.
 *
 * What Pi 1.6 does with a local path (its docs/packages.md, "Loaded from the resolved path
 * without copying"; "Local packages are not installed or modified"): `pi install` writes the
 * path, relative to the settings file, into $PI_CODING_AGENT_DIR/settings.json and nothing else;
 * no copy, no npm install. `pi install` has no --offline flag; PI_OFFLINE=1 is the same switch.
 *
 * The installed folder is a temporary copy of the package's files (package.json, bin, src,
 * quests, README.md) with node_modules a symlink to the repository's: cheap, and the test can
 * then prove exactly that nothing in the folder changed, which it could not in a repository that
 * others edit meanwhile. The symlink makes npm activity visible too: an install into it would
 * touch the repository's node_modules/.package-lock.json.
 *
 * It tests the pack that ships (quests/, whatever it holds): what it expects on screen (the quest
 * count, the first quest's title and checks, the first two list lines) is read from that pack
 * with the loader, in `shippedPack` below, not written out.
 */
import {
  cpSync,
  lstatSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { join, resolve } from "node:path";
import { execa } from "execa";
import { afterEach, describe, expect, it } from "vitest";
import { loadQuestPack } from "../../src/verifier/loader.ts";
import { REPO } from "../support/cli.ts";
import { closeAllPis, PI, scriptedPiArgs, startPiRpc } from "../support/pi-rpc.ts";
import { makeWorkspace, removeWorkspaces } from "../support/workspace.ts";

afterEach(async () => {
  try {
    await closeAllPis();
  } finally {
    removeWorkspaces();
  }
});

const PACKAGE_FILES = ["package.json", "bin", "src", "quests", "README.md"];
const LOCKFILE = join(REPO, "node_modules/.package-lock.json");

/** Every entry under `dir` with its kind, size and mtime; symlinks are listed, not followed. */
function snapshot(dir: string): string[] {
  const entries: string[] = [];
  const walk = (relative: string) => {
    const path = join(dir, relative);
    const stat = lstatSync(path);
    if (stat.isSymbolicLink()) entries.push(`${relative} -> ${readlinkSync(path)}`);
    else if (stat.isDirectory()) {
      entries.push(`${relative}/ ${stat.mtimeMs}`);
      for (const name of readdirSync(path).sort()) walk(join(relative, name));
    } else entries.push(`${relative} ${stat.size} ${stat.mtimeMs}`);
  };
  walk(".");
  return entries;
}

/** The built-in pack as the installed copy holds it: its size and its first two quests. */
async function shippedPack(dir: string) {
  const loaded = await loadQuestPack(join(dir, "quests"));
  if (!loaded.ok) throw new Error(`the built-in pack does not load: ${JSON.stringify(loaded.diagnostics)}`);
  const [first, second] = loaded.value;
  if (!first || !second) throw new Error("the built-in pack has fewer than two quests");
  return { count: loaded.value.length, first, second };
}

function files(dir: string): string[] {
  return readdirSync(dir, { recursive: true, encoding: "utf8" }).sort();
}

describe("pi install of the pi-quests package folder", () => {
  it("records the folder in the agent's settings, changes nothing in it, and pi then runs pi-quests without -e", async () => {
    const root = makeWorkspace();
    const pkg = join(root, "pi-quests");
    const agentDir = join(root, "agent");
    const home = join(root, "home");
    const workspace = join(root, "workspace");
    for (const dir of [pkg, agentDir, home, workspace]) mkdirSync(dir, { recursive: true });
    for (const entry of PACKAGE_FILES) cpSync(join(REPO, entry), join(pkg, entry), { recursive: true });
    symlinkSync(join(REPO, "node_modules"), join(pkg, "node_modules"), "dir");
    const before = snapshot(pkg);
    const { count, first, second } = await shippedPack(pkg);
    const labels = first.checks.map((check) => check.describe ?? check.id);
    const lockfileMtime = statSync(LOCKFILE).mtimeMs;
    const env = { PATH: process.env.PATH ?? "", HOME: home, PI_CODING_AGENT_DIR: agentDir, PI_OFFLINE: "1" };
    const pi = (args: string[], extra: Record<string, string> = {}) =>
      execa(process.execPath, [PI, ...args], {
        cwd: workspace,
        env: { ...env, ...extra },
        extendEnv: false,
        reject: false,
        stdin: "ignore",
        timeout: 60_000,
      });

    const install = await pi(["install", pkg]);
    expect(install.stderr).toBe("");
    expect(install).toMatchObject({ exitCode: 0 });
    expect(install.stdout).toContain(`Installed ${pkg}`);

    // Only the settings file, naming the folder; no copy of the package anywhere in the agent dir.
    expect(files(agentDir)).toEqual(["settings.json"]);
    const settings = JSON.parse(readFileSync(join(agentDir, "settings.json"), "utf8"));
    expect(settings.packages).toHaveLength(1);
    expect(resolve(agentDir, settings.packages[0])).toBe(pkg);
    expect(snapshot(pkg)).toEqual(before);

    const list = await pi(["list"]);
    expect(list.exitCode).toBe(0);
    expect(list.stdout).toContain(pkg);

    // RPC: `/quest` comes from the installed folder, and the HUD is drawn.
    const rpc = startPiRpc({ workspace, agentDir, withExtension: false, env: { HOME: home } });
    rpc.send({ id: "commands", type: "get_commands" });
    const answer = await rpc.waitFor((line) => line.type === "response" && line.id === "commands");
    const commands = (answer.data as { commands: Array<Record<string, unknown>> }).commands;
    expect(commands.find((command) => command.name === "quest")).toMatchObject({
      source: "extension",
      sourceInfo: {
        path: join(pkg, "src/extension/index.ts"),
        scope: "user",
        origin: "package",
        baseDir: pkg,
      },
    });
    // The first evaluation loads the engine through Pi's loader, uncached here: wait for its
    // result rather than for a quiet moment, which a slow machine can have before it.
    await rpc.waitFor(
      (line) => line.method === "setWidget" && String(line.widgetLines).includes(`○ ${labels[0]}: not yet`),
    );
    await rpc.settled();
    expect(rpc.hud()).toEqual({
      widget: [
        `Quest 1/${count}: ${first.title}`,
        // None passed yet, nothing done: not yet (○, never red nor waiting before the learner acts).
        ...labels.map((label) => `  ○ ${label}: not yet`),
        "  /quest hint · /quest status · /quest list",
      ],
      status: `quest 1/${count}`,
    });
    expect(await rpc.close()).toBe(0);
    // Loaded without a warning (e.g. about host packages bundled as dependencies) or an error.
    expect(rpc.stderr()).toBe("");

    // Print mode: `/quest list` is the extension's command, run by it and never sent to the model
    // (whose scripted answer would say so). Pi 1.6 takes over process.stdout in every mode but the
    // TUI (print, json, rpc) and sends what an extension writes there to stderr: the list the
    // extension writes to process.stdout arrives on stderr, and stdout stays for the model's text.
    const printed = await pi([...scriptedPiArgs({ extension: false }), "-p", "/quest list"], {
      PI_QUESTS_SCRIPT: writeScript(root, "The model got the prompt: pi-quests is not loaded."),
    });
    expect(printed.exitCode).toBe(0);
    const output = `${printed.stdout}\n${printed.stderr}`;
    expect(output).toContain(`1. ${first.id}: ${first.title}`);
    expect(output).toContain(`2. ${second.id}: ${second.title}`);
    expect(output).not.toContain("pi-quests is not loaded");

    // Loading and running the package changed nothing in it either, and npm did not run in it.
    expect(snapshot(pkg)).toEqual(before);
    expect(lstatSync(join(pkg, "node_modules")).isSymbolicLink()).toBe(true);
    expect(statSync(LOCKFILE).mtimeMs).toBe(lockfileMtime);
  }, 120_000);

  it("without the install, the same pi has no /quest (the control)", async () => {
    const root = makeWorkspace();
    const agentDir = join(root, "agent");
    const workspace = join(root, "workspace");
    for (const dir of [agentDir, workspace]) mkdirSync(dir, { recursive: true });
    const printed = await execa(
      process.execPath,
      [PI, ...scriptedPiArgs({ extension: false }), "-p", "/quest list"],
      {
        cwd: workspace,
        env: {
          PATH: process.env.PATH ?? "",
          HOME: join(root, "home"),
          PI_CODING_AGENT_DIR: agentDir,
          PI_QUESTS_SCRIPT: writeScript(root, "The model got the prompt: pi-quests is not loaded."),
        },
        extendEnv: false,
        reject: false,
        stdin: "ignore",
        timeout: 60_000,
      },
    );
    expect(printed.exitCode).toBe(0);
    expect(printed.stdout).toContain("pi-quests is not loaded");
    expect(printed.stdout).not.toContain("first-prompt");
  }, 60_000);
});

function writeScript(dir: string, text: string): string {
  const file = join(dir, "script.json");
  writeFileSync(file, JSON.stringify([{ text }]));
  return file;
}
