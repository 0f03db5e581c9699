/**
 * pi-quests as a learner gets it: `npm pack`ed, published to a registry, installed by
 * `pi install npm:pi-quests`, then updated by `pi update --extensions` to the next version, the
 * learner's progress kept. The registry is verdaccio on loopback with no uplink
 * (tests/support/local-registry.ts); npm reaches it through the environment Pi passes on
 * (`npm_config_registry`), as a learner's `.npmrc` would. `pi update` alone would update Pi itself
 * over the network: never run here. Every pi that neither installs nor updates runs offline
 * (`--offline`), so nothing but the loopback registry is contacted. No real home: HOME, the npm
 * config and cache and PI_CODING_AGENT_DIR are temporary folders.
 *
 * The tarball is the real pack (tests/support/packed-package.ts: the checkout's files copied to a
 * temporary folder, `npm pack` there, whose prepack builds; the checkout is never packed). The
 * second version is that same tarball with only package.json's version changed, packed again
 * without scripts: one build for both, and the same files (checked).
 *
 * No uplink means no dependency can come from anywhere: the install works only because the
 * tarball carries what it runs (no dependencies in its package.json; npm's lock holds one
 * package). Pi's own packages are peers, which Pi's install skips, and nothing above the install
 * folder provides them: the extension gets them from the Pi that runs it, and its entry is
 * imported natively by Pi's loader (`JITI_DEBUG`); the installed CLI needs none for `lint`.
 */
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { execa } from "execa";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadQuestPack } from "../../src/verifier/loader.ts";
import { piPackageAbove } from "../support/built-extension.ts";
import {
  type LocalRegistry,
  listening,
  processesOfRun,
  startLocalRegistry,
} from "../support/local-registry.ts";
import { packRepository, unpackPackage } from "../support/packed-package.ts";
import { closeAllPis, PI, type PiRpc, startPiRpc } from "../support/pi-rpc.ts";
import { makeWorkspace, removeWorkspaces } from "../support/workspace.ts";

const STEP_MS = 120_000;
/** The extension entry package.json names for Pi: built JavaScript. */
const ENTRY = "dist/extension/index.js";

type Packed = { version: string; tarball: string };

let registry: LocalRegistry;
let first: Packed;
let second: Packed;
/** The learner's Pi (PI_CODING_AGENT_DIR) and the empty folder they start it in. */
let agentDir: string;
let workspace: string;
/** Where Pi's npm installs pi-quests: {agentDir}/npm/node_modules/pi-quests. */
let installed: string;

/** A command bounded in time, with the registry's client environment (and nothing else of ours). */
function run(file: string, args: string[], options: { cwd: string; env?: Record<string, string> }) {
  return execa(file, args, {
    cwd: options.cwd,
    env: { ...registry.env, ...options.env },
    extendEnv: false,
    reject: false,
    stdin: "ignore",
    timeout: STEP_MS,
  });
}

function pi(args: string[]) {
  return run(process.execPath, [PI, ...args], { cwd: workspace, env: { PI_CODING_AGENT_DIR: agentDir } });
}

/** `npm pack --ignore-scripts` of a folder as it is (no prepack build): its tarball and files. */
async function packAsIs(dir: string): Promise<{ tarball: string; files: string[] }> {
  const out = makeWorkspace();
  const packed = await run("npm", ["pack", "--json", "--ignore-scripts", "--pack-destination", out], {
    cwd: dir,
  });
  if (packed.exitCode !== 0) throw new Error(`npm pack in ${dir} failed:\n${packed.stderr}`);
  const [report] = JSON.parse(packed.stdout) as [{ filename: string; files: { path: string }[] }];
  return { tarball: join(out, report.filename), files: report.files.map((file) => file.path).sort() };
}

/** The next patch version: 0.2.0 -> 0.2.1. */
function nextPatch(version: string): string {
  const [major, minor, patch] = version.split(".").map(Number);
  return `${major}.${minor}.${(patch ?? 0) + 1}`;
}

/**
 * The real pack (a copy of the checkout, built by prepack), and the same files as the next patch
 * version: unpacked, package.json's version changed, packed again without scripts.
 */
async function packTwice(): Promise<[Packed, Packed]> {
  const built = await packRepository({ workDir: makeWorkspace() });
  const unpacked = await unpackPackage(built.tarball, makeWorkspace());
  const manifestFile = join(unpacked, "package.json");
  const manifest = JSON.parse(readFileSync(manifestFile, "utf8")) as { version: string };
  const version = nextPatch(manifest.version);
  writeFileSync(manifestFile, `${JSON.stringify({ ...manifest, version }, null, 2)}\n`);
  const next = await packAsIs(unpacked);
  if (next.files.join("\n") !== built.files.join("\n"))
    throw new Error(`the second tarball holds other files than the first:\n${next.files.join("\n")}`);
  return [
    { version: built.version, tarball: built.tarball },
    { version, tarball: next.tarball },
  ];
}

/** The command npm linked for the installed package's `bin`. */
const INSTALLED_BIN = () => join(agentDir, "npm", "node_modules", ".bin", "pi-quests");

/** The built-in pack as the installed package holds it: its size and first two quests. */
async function installedPack() {
  const loaded = await loadQuestPack(join(installed, "quests"));
  if (!loaded.ok) throw new Error(`the installed pack does not load: ${JSON.stringify(loaded.diagnostics)}`);
  const [quest1, quest2] = loaded.value;
  if (!quest1 || !quest2) throw new Error("the installed pack has fewer than two quests");
  return { count: loaded.value.length, quest1, quest2 };
}

/** The learner's pi, offline, in their folder, with only the scripted model given by `-e`. */
function learnersPi(script: Array<{ text: string }> = [], env: Record<string, string> = {}): PiRpc {
  return startPiRpc({ workspace, agentDir, withExtension: false, script, env: { ...registry.env, ...env } });
}

const ESC = String.fromCharCode(27);
const plain = (text: string) => text.replace(new RegExp(`${ESC}\\[[0-9;]*m`, "g"), "");

function partition<T>(items: T[], test: (item: T) => boolean): [T[], T[]] {
  return [items.filter(test), items.filter((item) => !test(item))];
}

async function questCommand(rpc: PiRpc): Promise<Record<string, unknown> | undefined> {
  const answer = await rpc.request({ type: "get_commands" });
  const commands = (answer.data as { commands: Array<Record<string, unknown>> }).commands;
  return commands.find((command) => command.name === "quest");
}

beforeAll(async () => {
  registry = await startLocalRegistry();
  [first, second] = await packTwice();
  expect(await registry.publish(first.tarball)).toContain(`+ pi-quests@${first.version}`);
  const root = makeWorkspace();
  agentDir = join(root, "agent");
  workspace = join(root, "workspace");
  for (const dir of [agentDir, workspace]) mkdirSync(dir, { recursive: true });
  installed = join(agentDir, "npm", "node_modules", "pi-quests");
}, 300_000);

afterAll(async () => {
  try {
    await closeAllPis();
    await registry?.stop();
    if (registry) {
      expect(processesOfRun(registry.run)).toEqual([]);
      expect(await listening(registry.port)).toBe(false);
    }
  } finally {
    removeWorkspaces();
  }
}, 60_000);

describe("pi-quests from a registry", () => {
  it(
    "pi install npm:pi-quests installs the one published package from the loopback registry",
    async () => {
      const install = await pi(["install", "npm:pi-quests"]);
      expect(install.exitCode, install.stderr).toBe(0);
      expect(install.stdout).toContain("Installed npm:pi-quests");

      const settings = JSON.parse(readFileSync(join(agentDir, "settings.json"), "utf8"));
      expect(settings.packages).toEqual(["npm:pi-quests"]);
      const manifest = JSON.parse(readFileSync(join(installed, "package.json"), "utf8"));
      expect(manifest).toMatchObject({ name: "pi-quests", version: first.version });
      // It carries what it runs: nothing else was installed beside it, and it came from loopback.
      expect(manifest.dependencies ?? {}).toEqual({});
      const lock = JSON.parse(readFileSync(join(agentDir, "npm", "package-lock.json"), "utf8"));
      expect(Object.keys(lock.packages).filter(Boolean)).toEqual(["node_modules/pi-quests"]);
      expect(lock.packages["node_modules/pi-quests"].resolved).toBe(
        `${registry.url}pi-quests/-/pi-quests-${first.version}.tgz`,
      );
    },
    STEP_MS,
  );

  it(
    "pi in an empty folder runs it: /quest, the HUD on quest 1, and a prompt completes quest 1",
    async () => {
      const { count, quest1, quest2 } = await installedPack();
      // Nothing above the installed package resolves Pi's packages: pi-quests must get them from
      // the Pi that runs it (src/runtime/pi-host.ts), as in any learner's install.
      expect(piPackageAbove(installed)).toBeUndefined();
      const rpc = learnersPi([{ text: "Hello! I can read, write and run commands here." }], {
        JITI_DEBUG: "1",
      });
      // Loaded from the installed package's built entry (no -e for pi-quests), not from sources.
      expect(await questCommand(rpc)).toMatchObject({
        source: "extension",
        sourceInfo: { path: join(installed, ENTRY), scope: "user", origin: "package", baseDir: installed },
      });
      await rpc.waitFor(
        (line) => line.method === "setWidget" && String(line.widgetLines).includes(quest1.title),
      );
      await rpc.settled();
      expect(rpc.hud().widget?.[0]).toBe(`Quest 1/${count}: ${quest1.title}`);
      expect(rpc.hud().status).toBe(`quest 1/${count}`);

      const from = rpc.lines.length;
      await rpc.prompt("Hi Pi, what can you do in this folder?");
      await rpc.waitFor(
        (line) => line.method === "notify" && String(line.message).startsWith("Quest complete:"),
        from,
      );
      await rpc.settled();
      expect(rpc.hud().widget?.[0]).toBe(`Quest 2/${count}: ${quest2.title}`);
      expect(await rpc.close()).toBe(0);
      // Pi's loader imported the entry natively, nothing of the package transformed (the scripted
      // model, a TypeScript fixture, is); and Pi printed nothing else.
      const [loader, other] = partition(plain(rpc.stderr()).split("\n").filter(Boolean), (line) =>
        line.startsWith("[jiti]"),
      );
      expect(other).toEqual([]);
      expect(loader).toContain(`[jiti] [native] [import] ${join(installed, ENTRY)}`);
      const ours = loader.filter((line) => line.includes(installed));
      expect(ours.filter((line) => /\[(transpile|fallback)\]/.test(line))).toEqual([]);
      expect(loader.filter((line) => line.includes("[fallback]"))).toEqual([]);
    },
    STEP_MS,
  );

  it(
    "the installed bin answers --version with the published version",
    async () => {
      const version = await run(INSTALLED_BIN(), ["--version"], { cwd: workspace });
      expect(version.stderr).toBe("");
      expect(version).toMatchObject({ exitCode: 0, stdout: first.version });
    },
    STEP_MS,
  );

  it(
    "the installed bin lints the quests it ships",
    async () => {
      const { count } = await installedPack();
      const lint = await run(INSTALLED_BIN(), ["lint", join(installed, "quests")], { cwd: workspace });
      expect(lint.stderr).toBe("");
      expect(lint.exitCode).toBe(0);
      expect(lint.stdout).toMatch(new RegExp(`^${count} quest\\(s\\)( and \\d+ play\\(s\\))? valid$`));
    },
    STEP_MS,
  );

  it(
    "pi update --extensions takes the next published version, and the learner's progress stays",
    async () => {
      expect(await registry.publish(second.tarball)).toContain(`+ pi-quests@${second.version}`);
      const update = await pi(["update", "--extensions"]);
      expect(update.exitCode, update.stderr).toBe(0);
      expect(update.stdout).toContain(`npm:pi-quests ${first.version} -> ${second.version}`);
      const manifest = JSON.parse(readFileSync(join(installed, "package.json"), "utf8"));
      expect(manifest.version).toBe(second.version);
      const version = await run(INSTALLED_BIN(), ["--version"], { cwd: workspace });
      expect(version).toMatchObject({ exitCode: 0, stdout: second.version });

      const { count, quest1, quest2 } = await installedPack();
      const rpc = learnersPi();
      expect(await questCommand(rpc)).toMatchObject({
        sourceInfo: { path: join(installed, ENTRY), origin: "package", baseDir: installed },
      });
      // Whichever quest the HUD shows first (a lost progress would show quest 1: fail, not wait).
      await rpc.waitFor(
        (line) => line.method === "setWidget" && String(line.widgetLines).startsWith("Quest "),
      );
      await rpc.settled();
      expect(rpc.hud().widget?.[0]).toBe(`Quest 2/${count}: ${quest2.title}`);
      expect(rpc.hud().status).toBe(`quest 2/${count}`);
      const from = rpc.lines.length;
      await rpc.prompt("/quest list");
      const lines = rpc.notifications(from).join("\n").split("\n");
      expect(lines.find((line) => line.includes(`1. ${quest1.id}: ${quest1.title}`))).toContain("✓ done");
      expect(lines.find((line) => line.includes(`2. ${quest2.id}: ${quest2.title}`))).toContain("▶ active");
      expect(await rpc.close()).toBe(0);
      expect(rpc.stderr()).toBe("");
    },
    STEP_MS,
  );
});
