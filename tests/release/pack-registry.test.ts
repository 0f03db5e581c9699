/**
 * A quest pack as an author publishes it and a learner gets it: made by `pi-quests init`,
 * `npm pack`ed and published to the loopback registry (verdaccio, no uplink:
 * tests/support/local-registry.ts), installed with the real `pi install npm:...`, then played in
 * the real `pi` over RPC: offered by `/quest packs`, switched to after consent, its quest done.
 * The pack's peers (pi-quests and Pi) are not in the registry: Pi's install skips peers, and
 * the pack carries no code, so nothing else is needed. No real home anywhere.
 */
import { mkdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { execa } from "execa";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { workspaceHome } from "../../src/core/workspace-key.ts";
import { runCli } from "../support/cli.ts";
import { type LocalRegistry, startLocalRegistry } from "../support/local-registry.ts";
import { closeAllPis, command, PI, type PiRpc, startPiRpc } from "../support/pi-rpc.ts";
import { makeWorkspace, removeWorkspaces } from "../support/workspace.ts";

let registry: LocalRegistry;

beforeAll(async () => {
  registry = await startLocalRegistry();
}, 120_000);

afterAll(async () => {
  try {
    await closeAllPis();
    await registry?.stop();
  } finally {
    removeWorkspaces();
  }
}, 60_000);

function run(file: string, args: string[], cwd: string, env: Record<string, string> = {}) {
  return execa(file, args, {
    cwd,
    env: { ...registry.env, ...env },
    extendEnv: false,
    reject: false,
    stdin: "ignore",
    timeout: 120_000,
  });
}

async function answering(learner: PiRpc, text: string, confirmed: boolean) {
  const from = learner.lines.length;
  const id = `cmd-${from}`;
  learner.send({ id, type: "prompt", message: text });
  const dialog = await learner.answerConfirm(confirmed, from);
  await learner.waitFor((line) => line.type === "response" && line.id === id, from);
  await learner.settled();
  return { dialog, said: learner.notifications(from) };
}

describe("a quest pack from a registry", () => {
  it("init, npm publish, pi install npm:..., then played in the real pi", async () => {
    const root = makeWorkspace();
    const pack = join(root, "acme-onboarding");
    expect((await runCli(["init", pack])).exitCode).toBe(0);
    const packed = await run("npm", ["pack", "--json", "--pack-destination", root], pack);
    expect(packed.exitCode, packed.stderr).toBe(0);
    const [report] = JSON.parse(packed.stdout) as [{ filename: string; files: { path: string }[] }];
    // What a learner installs: the quests, their sandbox, the manifest and the README; no plays.
    expect(report.files.map((file) => file.path).sort()).toEqual([
      "010-hello-file.yaml",
      "README.md",
      "pack.yaml",
      "package.json",
      "sandboxes/hello/README.md",
    ]);
    expect(await registry.publish(join(root, report.filename))).toContain("+ acme-onboarding@0.1.0");

    const agentDir = join(root, "agent");
    const workspace = join(root, "workspace");
    mkdirSync(agentDir);
    mkdirSync(workspace);
    const install = await run(process.execPath, [PI, "install", "npm:acme-onboarding"], workspace, {
      PI_CODING_AGENT_DIR: agentDir,
    });
    expect(install.exitCode, install.stderr).toBe(0);
    const installed = join(agentDir, "npm", "node_modules", "acme-onboarding");
    expect(JSON.parse(readFileSync(join(installed, "package.json"), "utf8")).pi).toEqual({
      extensions: [],
      quests: ["."],
    });

    const learner = startPiRpc({
      workspace,
      agentDir,
      env: { ...registry.env, PI_QUESTS_START: "off" },
      script: [
        { tools: [{ name: "write", arguments: { path: "hello.txt", content: "hello world\n" } }] },
        { text: "Done! I created hello.txt." },
      ],
    });
    await learner.settled();
    expect((await command(learner, "/quest packs")).join("\n")).toContain(
      "  acme-onboarding: Acme onboarding (package npm:acme-onboarding) · 0/1 done",
    );
    const switched = await answering(learner, "/quest pack acme-onboarding", true);
    expect(String(switched.dialog.message)).toContain("the Pi package npm:acme-onboarding");
    await command(learner, "/quest start hello-file");
    await learner.prompt("Create hello.txt that says hello to the world.");
    await learner.settled();
    expect(learner.hud().widget?.[0]).toBe("Acme onboarding · Quests 1/1 done. Well played!");
    const folder = workspaceHome(join(agentDir, "quests", "packs", "acme-onboarding"), workspace);
    expect(Object.keys(JSON.parse(readFileSync(join(folder, "progress.json"), "utf8")).completed)).toEqual([
      "hello-file",
    ]);
  }, 300_000);
});
