import { cpSync, mkdirSync, mkdtempSync, realpathSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { REPO, runCli, STARTER_PACK } from "../support/cli.ts";

/** A home with Pi's agent dir, a project, and a Pi package (a local folder) holding a pack. */
function world() {
  const root = realpathSync(mkdtempSync(join(tmpdir(), "pi-quests-packs-cli-")));
  const agentDir = join(root, "agent");
  const project = join(root, "project");
  const pkg = join(root, "team-pack");
  mkdirSync(agentDir, { recursive: true });
  mkdirSync(project);
  cpSync(STARTER_PACK, pkg, { recursive: true });
  writeFileSync(
    join(pkg, "package.json"),
    JSON.stringify({
      name: "@acme/team-pack",
      keywords: ["pi-package"],
      pi: { extensions: [], quests: ["."] },
    }),
  );
  writeFileSync(join(pkg, "pack.yaml"), "title: Team onboarding\n");
  const settings = (packages: string[]) =>
    writeFileSync(join(agentDir, "settings.json"), JSON.stringify({ packages }));
  settings([pkg]);
  const env = { HOME: root, PI_CODING_AGENT_DIR: agentDir };
  return { root, agentDir, project, pkg, env, settings };
}

const packsOf = (stdout: string) =>
  JSON.parse(stdout) as { packs: Record<string, unknown>[]; problems: { message: string }[] };

describe("pi-quests packs", () => {
  it("lists the packs Pi would offer in the contract's JSON: built-in, then each installed package's", async () => {
    const { project, pkg, env } = world();
    const run = await runCli(["packs", "--cwd", project, "--json"], { env });
    expect(run.exitCode).toBe(0);
    const json = packsOf(run.stdout);
    expect(json.packs).toEqual([
      {
        id: "built-in",
        title: "Pi basics",
        source: "built-in",
        path: join(REPO, "quests"),
        quests: expect.any(Number),
      },
      { id: "team-pack", title: "Team onboarding", source: "package", path: pkg, quests: 3 },
    ]);
    expect(json.problems).toEqual([]);
  });

  it("reads the project's .pi/quests only once Pi trusts the project, and says so before", async () => {
    const { project, agentDir, env } = world();
    cpSync(STARTER_PACK, join(project, ".pi", "quests"), { recursive: true });
    writeFileSync(join(project, ".pi", "quests", "pack.yaml"), "id: our-repo\n");
    const before = packsOf((await runCli(["packs", "--cwd", project, "--json"], { env })).stdout);
    expect(before.packs.map((pack) => pack.id)).toEqual(["built-in", "team-pack"]);
    expect(before.problems.map((problem) => problem.message)).toEqual([expect.stringMatching(/not trusted/)]);
    writeFileSync(join(agentDir, "trust.json"), JSON.stringify({ [project]: true }));
    const after = packsOf((await runCli(["packs", "--cwd", project, "--json"], { env })).stdout);
    expect(after.packs.map((pack) => [pack.id, pack.source])).toEqual([
      ["built-in", "built-in"],
      ["team-pack", "package"],
      ["our-repo", "project"],
    ]);
    expect(after.problems).toEqual([]);
  });

  it("says why a package's pack is not offered (file:line), and lists the rest; text without --json", async () => {
    const { project, pkg, env, settings } = world();
    const broken = join(pkg, "..", "broken-pack");
    mkdirSync(broken);
    writeFileSync(
      join(broken, "package.json"),
      '{\n  "name": "broken-pack",\n  "pi": { "extensions": [], "quests": ["missing"] }\n}\n',
    );
    settings([pkg, broken]);
    const run = await runCli(["packs", "--cwd", project], { env });
    expect(run.exitCode).toBe(0);
    expect(run.stdout).toMatch(/^built-in {2}Pi basics {2}\(built-in, \d+ quest\(s\)\)/);
    expect(run.stdout).toContain(`team-pack  Team onboarding  (package, 3 quest(s))  ${pkg}`);
    expect(run.stdout).toContain(
      `Not offered:\n  ${broken}/missing: the pack folder does not exist (pi.quests of ${broken}, ${broken}/package.json:3)`,
    );
  });

  it("offers PI_QUESTS_PACK's pack alone, and refuses unknown flags with exit 3", async () => {
    const { project, env } = world();
    const json = packsOf(
      (await runCli(["packs", "--cwd", project, "--json"], { env: { ...env, PI_QUESTS_PACK: STARTER_PACK } }))
        .stdout,
    );
    expect(json.packs).toEqual([
      { id: "starter", title: "starter", source: "env", path: STARTER_PACK, quests: 3 },
    ]);
    const bad = await runCli(["packs", "--nope"], { env });
    expect(bad.exitCode).toBe(3);
    expect(bad.stderr).toContain("Usage: pi-quests packs");
  });
});
