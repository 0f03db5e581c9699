/**
 * The README's "Use it in Pi", followed as a learner follows it: a fresh `git clone` of this
 * repository's HEAD into a temporary folder, then the section's command block run by bash as it
 * is written, in the clone, with a temporary HOME and PI_CODING_AGENT_DIR. The block is read from
 * the clone's README.md, so the README and this test cannot drift.
 *
 * What stands in for the learner's machine:
 * - `pi` on PATH runs the checkout's Pi 1.6, as `npm install -g @earendil-works/pi-coding-agent`
 *   would, so the block's first line (Pi, unless you have it) has nothing to do. The bare `pi` at
 *   the end, where the learner takes over the terminal, only notes the folder it was started in:
 *   the test starts the same Pi there over RPC, offline, with the scripted model given by `-e`
 *   and nothing of pi-quests but what the install recorded.
 * - npm reads and fills this machine's npm cache, and prefers what it holds to asking the registry
 *   again (`prefer-offline`): the block's `npm ci` still installs every package of the lock file
 *   into the clone's own node_modules, with the integrity the lock file records, in about 10 s
 *   instead of 30.
 *
 * First the same block without its setup line, as a learner who skipped it runs it: Pi says that
 * line, with the folder to run it in, and nothing about a missing module. That leaves the clone
 * as it was cloned (checked), and then the whole block runs in it.
 */
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { homedir } from "node:os";
import { dirname, join } from "node:path";
import { execa } from "execa";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { SETUP_COMMAND } from "../../src/extension/checkout-setup.ts";
import { loadQuestPack } from "../../src/verifier/loader.ts";
import { REPO } from "../support/cli.ts";
import { closeAllPis, PI, type PiRpc, startPiRpc } from "../support/pi-rpc.ts";
import { commandBlock, commandOf } from "../support/readme.ts";
import { makeWorkspace, removeWorkspaces } from "../support/workspace.ts";

/** The whole block; its `npm ci` takes 10 to 20 s here with the npm cache warm. */
const BLOCK_MS = 180_000;

let root: string;
let clone: string;
let block: string[];
/** Where the shim `pi` is: first on the learner's PATH. */
let bin: string;

afterEach(closeAllPis);
afterAll(removeWorkspaces);

beforeAll(async () => {
  root = makeWorkspace();
  clone = join(root, "pi-quests");
  await execa("git", ["clone", "-q", REPO, clone]);
  const head = (dir: string) => execa("git", ["rev-parse", "HEAD"], { cwd: dir }).then((run) => run.stdout);
  expect(await head(clone)).toBe(await head(REPO));
  block = commandBlock(readFileSync(join(clone, "README.md"), "utf8"), "Use it in Pi");
  bin = join(root, "bin");
  mkdirSync(bin);
  writeFileSync(
    join(bin, "pi"),
    [
      "#!/bin/sh",
      '[ "$#" -eq 0 ] && exec pwd > "$PI_STARTED_IN"',
      `exec ${JSON.stringify(process.execPath)} ${JSON.stringify(PI)} "$@"`,
      "",
    ].join("\n"),
  );
  chmodSync(join(bin, "pi"), 0o755);
}, 60_000);

/** A learner of their own: a home, an agent dir, and the file the bare `pi` notes its folder in. */
function learner() {
  const home = makeWorkspace();
  return { home, agentDir: join(home, ".pi", "agent"), startedIn: join(home, "pi-started-in") };
}

/**
 * How this machine reaches the npm registry (a proxy, the certificate authority it signs with):
 * a learner's shell has its machine's too. Nothing else of this process's environment is passed
 * on, least of all the npm_config_* that npm sets for the test run itself.
 */
const NETWORK = [
  "NODE_EXTRA_CA_CERTS",
  "SSL_CERT_FILE",
  "SSL_CERT_DIR",
  "HTTPS_PROXY",
  "HTTP_PROXY",
  "NO_PROXY",
  "https_proxy",
  "http_proxy",
  "no_proxy",
];

/**
 * `lines` run by bash in the clone, stopping at the first that fails; then the folder `pi` started
 * in. bash leads a process group of its own, killed whole when the block overruns or ends: an
 * `npm ci` left behind would outlive the test.
 */
async function follow(lines: string[], { home, agentDir, startedIn }: ReturnType<typeof learner>) {
  const network = Object.fromEntries(
    NETWORK.flatMap((name) => (process.env[name] ? [[name, process.env[name]]] : [])),
  );
  const block = execa("bash", ["-e", "-c", lines.join("\n")], {
    cwd: clone,
    env: {
      ...network,
      PATH: [bin, dirname(process.execPath), "/usr/local/bin", "/usr/bin", "/bin"].join(":"),
      HOME: home,
      PI_CODING_AGENT_DIR: agentDir,
      PI_OFFLINE: "1",
      PI_STARTED_IN: startedIn,
      npm_config_cache: process.env.npm_config_cache ?? join(homedir(), ".npm"),
      npm_config_prefer_offline: "true",
      npm_config_update_notifier: "false",
    },
    extendEnv: false,
    reject: false,
    stdin: "ignore",
    detached: true,
  });
  const killGroup = () => {
    try {
      if (block.pid !== undefined) process.kill(-block.pid, "SIGKILL");
    } catch {
      // The group is gone: nothing was left.
    }
  };
  const timer = setTimeout(killGroup, BLOCK_MS);
  const run = await block.finally(() => {
    clearTimeout(timer);
    killGroup();
  });
  expect(run.exitCode, `${run.stdout}\n${run.stderr}`).toBe(0);
  expect(run.stdout).toContain(`Installed ${clone}`);
  expect(existsSync(startedIn), "the block never started pi").toBe(true);
  return readFileSync(startedIn, "utf8").trim();
}

/** Pi as the learner starts it in `folder`, over RPC: pi-quests only from the agent dir's settings. */
function learnersPi(folder: string, { home, agentDir }: ReturnType<typeof learner>): PiRpc {
  return startPiRpc({ workspace: folder, agentDir, withExtension: false, env: { HOME: home } });
}

async function questCommand(pi: PiRpc): Promise<Record<string, unknown> | undefined> {
  const answer = await pi.request({ type: "get_commands" });
  const commands = (answer.data as { commands: Array<Record<string, unknown>> }).commands;
  return commands.find((command) => command.name === "quest");
}

const literally = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

/** What git sees in the clone besides what it cloned, ignored files included. */
async function changesIn(dir: string, ...flags: string[]): Promise<string> {
  return (await execa("git", ["status", "--porcelain", ...flags], { cwd: dir })).stdout;
}

describe("README.md, Use it in Pi, in a fresh clone", () => {
  it("skipping the setup line: Pi starts, and pi-quests says that line and where to run it", async () => {
    const setup = block.filter((line) => commandOf(line) === SETUP_COMMAND);
    expect(setup).toHaveLength(1);
    const you = learner();
    const practice = await follow(
      block.filter((line) => commandOf(line) !== SETUP_COMMAND),
      you,
    );
    expect(practice).toBe(join(you.home, "pi-quests-practice"));

    const pi = learnersPi(practice, you);
    expect(await questCommand(pi)).toBeUndefined();
    const notice = await pi.waitFor((line) => line.method === "notify");
    expect(notice).toMatchObject({ notifyType: "error" });
    expect(notice.message).toMatch(
      new RegExp(
        `^pi-quests is not set up in ${literally(clone)}: .* Run this once, then start Pi again: cd ${literally(clone)} && ${literally(SETUP_COMMAND)}$`,
      ),
    );
    expect(await pi.close()).toBe(0);
    const everything = `${pi.notifications().join("\n")}\n${pi.stderr()}`;
    expect(everything).not.toMatch(/Cannot find module|\n\s+at /);
    // Nothing was written into the clone: the whole block runs next in a clone as it was cloned.
    expect(await changesIn(clone, "--ignored")).toBe("");
  }, 120_000);

  it(
    "the block as written: Pi in the empty practice folder shows the first quest",
    async () => {
      expect(await changesIn(clone, "--ignored")).toBe("");
      const you = learner();
      const practice = await follow(block, you);
      expect(practice).toBe(join(you.home, "pi-quests-practice"));
      // The setup filled node_modules; nothing git tracks was changed.
      expect(await changesIn(clone)).toBe("");

      const pack = await loadQuestPack(join(clone, "quests"));
      if (!pack.ok) throw new Error(`the clone's pack does not load: ${JSON.stringify(pack.diagnostics)}`);
      const [first] = pack.value;
      if (!first) throw new Error("the clone's pack has no quest");
      const labels = first.checks.map((check) => check.describe ?? check.id);

      const pi = learnersPi(practice, you);
      expect(await questCommand(pi)).toMatchObject({
        source: "extension",
        sourceInfo: {
          path: join(clone, "src/extension/index.ts"),
          scope: "user",
          origin: "package",
          baseDir: clone,
        },
      });
      // The first evaluation loads the engine through Pi's loader, uncached: wait for its result.
      await pi.waitFor(
        (line) => line.method === "setWidget" && String(line.widgetLines).includes(`○ ${labels[0]}: not yet`),
      );
      await pi.settled();
      const { widget = [], status } = pi.hud();
      expect(widget[0]).toBe(`Quest 1/${pack.value.length}: ${first.title}`);
      expect(status).toBe(`quest 1/${pack.value.length}`);
      // Each check on a line of its own, none passed yet: not yet (○, never red before the learner acts) or waiting for another (…).
      expect(widget.slice(1, -1)).toEqual(
        labels.map((label) => expect.stringMatching(new RegExp(`^ {2}[○…] ${literally(label)}: `))),
      );
      expect(pi.notifications().filter((text) => text.includes("pi-quests"))).toEqual([]);
      expect(await pi.close()).toBe(0);
      expect(pi.stderr()).toBe("");
    },
    BLOCK_MS + 60_000,
  );
});
