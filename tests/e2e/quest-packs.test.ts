/**
 * Quest packs in the real `pi` over RPC: a pack package made by `pi-quests init`, installed with
 * the real `pi install` (user scope) and `pi install -l` (project scope), listed by `/quest
 * packs`, switched to after the learner's consent, a quest of it completed, and the built-in
 * pack's progress intact on the way back; a project's `.pi/quests/` offered only once the
 * project is trusted.
 */
import { cpSync, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { execa } from "execa";
import { afterEach, describe, expect, it } from "vitest";
import { workspaceHome } from "../../src/core/workspace-key.ts";
import { runCli } from "../support/cli.ts";
import { closeAllPis, command, dataFolderOf, PI, type PiRpc, startPiRpc } from "../support/pi-rpc.ts";
import { makeWorkspace, removeWorkspaces } from "../support/workspace.ts";

afterEach(async () => {
  try {
    await closeAllPis();
  } finally {
    removeWorkspaces();
  }
});

/** The real `pi` as a command (install, list), offline, in `cwd`. */
const pi = (args: string[], cwd: string, agentDir: string) =>
  execa(process.execPath, [PI, ...args], {
    cwd,
    env: { PATH: process.env.PATH ?? "", HOME: agentDir, PI_CODING_AGENT_DIR: agentDir, PI_OFFLINE: "1" },
    extendEnv: false,
    reject: false,
    stdin: "ignore",
    timeout: 60_000,
  });

/** A slash command whose confirm dialog is answered; the notifications it produced. */
async function answering(learner: PiRpc, text: string, confirmed: boolean) {
  const from = learner.lines.length;
  const id = `cmd-${from}`;
  learner.send({ id, type: "prompt", message: text });
  const dialog = await learner.answerConfirm(confirmed, from);
  await learner.waitFor((line) => line.type === "response" && line.id === id, from);
  await learner.settled();
  return { dialog, said: learner.notifications(from) };
}

const progressAt = (folder: string) => JSON.parse(readFileSync(join(folder, "progress.json"), "utf8"));

describe("quest packs in the real pi", () => {
  it("a pack package installed with pi install: listed, switched to, played, and back with the built-in progress intact", async () => {
    const root = makeWorkspace();
    const agentDir = join(root, "agent");
    const workspace = join(root, "workspace");
    const teamPack = join(root, "team-pack");
    const otherPack = join(root, "other-pack");
    mkdirSync(agentDir);
    mkdirSync(workspace);
    expect((await runCli(["init", teamPack])).exitCode).toBe(0);
    expect((await runCli(["init", otherPack])).exitCode).toBe(0);
    const installed = await pi(["install", teamPack], workspace, agentDir);
    expect(installed.exitCode).toBe(0);
    // A package whose pack does not load: never in the way of the others, or of Pi.
    const broken = join(root, "broken-pack");
    mkdirSync(broken);
    writeFileSync(
      join(broken, "package.json"),
      JSON.stringify({ name: "broken-pack", pi: { extensions: [], quests: ["gone"] } }),
    );
    expect((await pi(["install", broken], workspace, agentDir)).exitCode).toBe(0);
    // pi install -l in another project (it writes .pi/ there, and a sandbox quest needs an empty
    // folder): Pi reads a project's settings only in a trusted project.
    const project = join(root, "project");
    mkdirSync(project);
    writeFileSync(join(agentDir, "trust.json"), JSON.stringify({ [project]: true }));
    const local = await pi(["install", "-l", otherPack], project, agentDir);
    expect(local.exitCode).toBe(0);
    // What Pi would load from the pack packages: no extension (pi.extensions: []), so no error.
    expect(`${installed.stderr}${local.stderr}`).toBe("");
    const listed = await runCli(["packs", "--cwd", project, "--json"], {
      env: { HOME: agentDir, PI_CODING_AGENT_DIR: agentDir },
    });
    expect(
      JSON.parse(listed.stdout).packs.map((pack: { id: string; source: string }) => [pack.id, pack.source]),
    ).toEqual([
      ["built-in", "built-in"],
      ["team-pack", "package"],
      ["other-pack", "package"],
    ]);

    const learner = startPiRpc({
      workspace,
      agentDir,
      env: { PI_QUESTS_START: "off" },
      script: [
        { text: "Hello!" },
        { tools: [{ name: "write", arguments: { path: "hello.txt", content: "hello world\n" } }] },
        { text: "Done! I created hello.txt." },
      ],
    });
    await learner.settled();
    // The built-in pack first: one quest done there.
    await command(learner, "/quest start first-prompt");
    await learner.prompt("Hello Pi");
    await learner.settled();
    const builtInFolder = dataFolderOf(agentDir, workspace);
    expect(Object.keys(progressAt(builtInFolder).completed)).toEqual(["first-prompt"]);

    const packs = (await command(learner, "/quest packs")).join("\n");
    expect(packs).toMatch(/▶ built-in: Pi basics \(built-in\) · 1\/\d+ done · active/);
    expect(packs).toContain(`  team-pack: Team pack (package ${teamPack}) · 0/1 done`);
    // A project's package is offered in that project only.
    expect(packs).not.toContain("other-pack");
    expect(packs).toContain(`Not offered:\n  ! ${broken}/gone: the pack folder does not exist (pi.quests of`);

    // Switching to a pack from elsewhere asks first, naming it, where it comes from, and that it runs commands.
    const declined = await answering(learner, "/quest pack team-pack", false);
    expect(declined.dialog).toMatchObject({ title: 'Play the quest pack "Team pack"?' });
    expect(String(declined.dialog.message)).toMatch(
      /comes from the Pi package .*team-pack.*run commands on this machine/,
    );
    expect(declined.said).toEqual(['Still on "Pi basics": "Team pack" was not started.']);
    const switched = await answering(learner, "/quest pack team-pack", true);
    expect(switched.said[0]).toBe(
      'Now playing "Team pack" (team-pack); /quest pack built-in goes back, with your progress there kept.',
    );
    expect(learner.hud().widget?.[0]).toMatch(/^Team pack · Quests 0\/1/);

    await command(learner, "/quest start hello-file");
    await learner.prompt("Create hello.txt that says hello to the world.");
    await learner.settled();
    const teamFolder = workspaceHome(join(agentDir, "quests", "packs", "team-pack"), workspace);
    expect(Object.keys(progressAt(teamFolder).completed)).toEqual(["hello-file"]);
    expect(learner.hud().widget?.[0]).toBe("Team pack · Quests 1/1 done. Well played!");

    // Back: the built-in pack's progress is as it was; the team pack's is kept too.
    const back = (await command(learner, "/quest pack built-in")).join("\n");
    expect(back).toContain('Now playing "Pi basics" (built-in)');
    expect(Object.keys(progressAt(builtInFolder).completed)).toEqual(["first-prompt"]);
    const after = (await command(learner, "/quest packs")).join("\n");
    expect(after).toMatch(/▶ built-in: Pi basics \(built-in\) · 1\/\d+ done · active/);
    expect(after).toContain("  team-pack: Team pack (package");
    expect(after).toMatch(/team-pack: .* · 1\/1 done/);
    // Tab completes pack ids after `/quest pack `.
    const commands = await learner.request({ type: "get_commands" });
    expect(JSON.stringify(commands.data)).toContain('"quest"');
  }, 180_000);

  it("a project's .pi/quests is offered only once the project is trusted", async () => {
    const root = makeWorkspace();
    const agentDir = join(root, "agent");
    const workspace = join(root, "repo");
    mkdirSync(agentDir);
    expect((await runCli(["init", join(root, "made")])).exitCode).toBe(0);
    mkdirSync(join(workspace, ".pi"), { recursive: true });
    cpSync(join(root, "made"), join(workspace, ".pi", "quests"), { recursive: true });
    writeFileSync(join(workspace, ".pi", "quests", "pack.yaml"), "id: our-repo\ntitle: Our repository\n");

    const learner = startPiRpc({ workspace, agentDir, env: { PI_QUESTS_START: "off" } });
    await learner.settled();
    const untrusted = (await command(learner, "/quest packs")).join("\n");
    expect(untrusted).not.toContain("our-repo:");
    expect(untrusted).toMatch(
      /Not offered:\n {2}! .*\.pi\/quests: this project's quest pack is not read because the project is not trusted/,
    );
    expect(await command(learner, "/quest pack our-repo")).toEqual([
      expect.stringMatching(/not trusted; trust it/),
    ]);
    await learner.close();

    // Trusted (what /trust saves): a new session in this workspace starts on its project pack, after consent.
    writeFileSync(join(agentDir, "trust.json"), JSON.stringify({ [workspace]: true }));
    const again = startPiRpc({ workspace, agentDir, env: { PI_QUESTS_START: "off" } });
    const dialog = await again.answerConfirm(true);
    expect(dialog).toMatchObject({ title: 'Play the quest pack "Our repository"?' });
    await again.settled();
    expect(again.hud().widget?.[0]).toMatch(/^Our repository · Quests 0\/1/);
    const trusted = (await command(again, "/quest packs")).join("\n");
    expect(trusted).toContain("▶ our-repo: Our repository (project) · 0/1 done · active");
    expect(existsSync(join(agentDir, "quests", "pack-consent.json"))).toBe(true);
  }, 180_000);

  it("a pack that stops loading after it was made active: said with its file and line, and the built-in pack is played", async () => {
    const root = makeWorkspace();
    const agentDir = join(root, "agent");
    const workspace = join(root, "workspace");
    const teamPack = join(root, "team-pack");
    mkdirSync(agentDir);
    mkdirSync(workspace);
    expect((await runCli(["init", teamPack])).exitCode).toBe(0);
    expect((await pi(["install", teamPack], workspace, agentDir)).exitCode).toBe(0);
    const first = startPiRpc({ workspace, agentDir, env: { PI_QUESTS_START: "off" } });
    await first.settled();
    await answering(first, "/quest pack team-pack", true);
    expect(first.hud().widget?.[0]).toMatch(/^Team pack · Quests 0\/1/);
    await first.close();

    // The pack's quest file is broken (an update gone wrong): the next session still starts.
    writeFileSync(
      join(teamPack, "010-hello-file.yaml"),
      "version: 2\nid: hello-file\ntitle: x\ngoal: y\nchecks: 3\n",
    );
    const again = startPiRpc({ workspace, agentDir, env: { PI_QUESTS_START: "off" } });
    await again.settled();
    const said = again.notifications().join("\n");
    expect(said).toMatch(/010-hello-file\.yaml:5:\d+: checks/);
    expect(said).toContain('You are on "Pi basics" meanwhile.');
    expect(again.hud().widget?.[0]).toMatch(/^Quests 0\/\d+/);
    const packs = (await command(again, "/quest packs")).join("\n");
    expect(packs).toMatch(/▶ built-in: Pi basics \(built-in\) · 0\/\d+ done · active/);
    expect(packs).toMatch(/Not offered:\n {2}! pack "team-pack" .* is not offered: .*010-hello-file\.yaml:5/);
  }, 120_000);
});
