import { cpSync, mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { beforeEach, describe, expect, it } from "vitest";
import { findPacks, listPacks, projectPackDir } from "../../src/runtime/packs.ts";

const STARTER = join(import.meta.dirname, "../../fixtures/packs/starter");

let root: string;
beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), "pi-quests-packs-"));
});

/** A pack folder: the starter fixture's quests, with `pack.yaml` when given. */
function pack(dir: string, manifest?: string): string {
  cpSync(STARTER, dir, { recursive: true });
  if (manifest !== undefined) writeFileSync(join(dir, "pack.yaml"), manifest);
  return dir;
}

/** A Pi package whose package.json lists `quests` as its packs. */
function packageWith(name: string, quests: unknown, folders: Record<string, string | undefined> = {}) {
  const dir = join(root, "packages", name.replace("/", "+"));
  mkdirSync(dir, { recursive: true });
  writeFileSync(
    join(dir, "package.json"),
    `{\n  "name": "${name}",\n  "keywords": ["pi-package"],\n  "pi": {\n    "extensions": [],\n    "quests": ${JSON.stringify(quests)}\n  }\n}\n`,
  );
  for (const [folder, manifest] of Object.entries(folders)) pack(join(dir, folder), manifest);
  return { source: `npm:${name}`, scope: "user" as const, root: dir };
}

describe("where packs are found", () => {
  it("offers built-in, package and project packs in that order, with pack.yaml's id and title", async () => {
    const builtIn = pack(join(root, "quests"), "id: built-in\ntitle: Pi basics\n");
    const team = packageWith("@acme/team-pack", ["."], { ".": "title: Team onboarding\n" });
    const project = join(root, "project");
    pack(projectPackDir(project), "id: our-repo\ntitle: Our repository\n");
    const found = await findPacks({
      builtIn,
      packages: [team],
      project: { dir: projectPackDir(project), trusted: true },
    });
    expect(found.problems).toEqual([]);
    expect(found.packs.map(({ id, title, source }) => ({ id, title, source }))).toEqual([
      { id: "built-in", title: "Pi basics", source: "built-in" },
      // Without an id in pack.yaml: the package's name without its scope.
      { id: "team-pack", title: "Team onboarding", source: "package" },
      { id: "our-repo", title: "Our repository", source: "project" },
    ]);
    expect(found.packs[1]?.package).toEqual({ source: "npm:@acme/team-pack", scope: "user" });
  });

  it("reads no project pack in an untrusted project, and says that trust is needed", async () => {
    const builtIn = pack(join(root, "quests"), "id: built-in\n");
    const project = join(root, "project");
    pack(projectPackDir(project), "id: our-repo\n");
    const found = await findPacks({
      builtIn,
      packages: [],
      project: { dir: projectPackDir(project), trusted: false },
    });
    expect(found.packs.map((each) => each.id)).toEqual(["built-in"]);
    expect(found.problems).toEqual([
      expect.objectContaining({ source: "project", message: expect.stringMatching(/not trusted; trust it/) }),
    ]);
  });

  it("offers PI_QUESTS_PACK's pack alone", async () => {
    const builtIn = pack(join(root, "quests"), "id: built-in\n");
    const team = packageWith("team", ["."], { ".": undefined });
    const mine = pack(join(root, "my-pack"));
    const found = await findPacks({ builtIn, env: mine, packages: [team] });
    expect(found.packs.map(({ id, source }) => ({ id, source }))).toEqual([{ id: "my-pack", source: "env" }]);
  });

  it("reports an id offered twice once, and offers it from the first source only", async () => {
    const builtIn = pack(join(root, "quests"), "id: built-in\n");
    const first = packageWith("first", ["."], { ".": "id: shared\n" });
    const second = packageWith("second", ["."], { ".": "id: shared\n" });
    const project = join(root, "project");
    pack(projectPackDir(project), "id: shared\n");
    const found = await findPacks({
      builtIn,
      packages: [first, second],
      project: { dir: projectPackDir(project), trusted: true },
    });
    expect(found.packs.map(({ id, path }) => ({ id, path }))).toEqual([
      { id: "built-in", path: builtIn },
      { id: "shared", path: first.root },
    ]);
    expect(found.problems).toHaveLength(1);
    expect(found.problems[0]?.message).toMatch(
      /pack id "shared" is offered more than once: package npm:first, package npm:second, project /,
    );
  });

  it("does not offer a pack whose folder is missing, or that does not lint, and says where (file:line)", async () => {
    const builtIn = pack(join(root, "quests"), "id: built-in\n");
    const missing = packageWith("missing", ["nowhere"]);
    const broken = packageWith("broken", ["."], { ".": undefined });
    writeFileSync(
      join(broken.root, "20-first-file.yaml"),
      "version: 2\nid: first-file\ntitle: x\ngoal: y\nchecks: 3\n",
    );
    const badId = packageWith("bad-id", ["."], { ".": "id: Not An Id\n" });
    const notList = packageWith("not-list", "quests");
    const listed = await listPacks({ builtIn, packages: [missing, broken, badId, notList] });
    expect(listed.packs.map((each) => each.id)).toEqual(["built-in"]);
    const messages = listed.problems.map((problem) => problem.message);
    expect(messages[0]).toMatch(
      /nowhere: the pack folder does not exist \(pi\.quests of npm:missing, .*package\.json:6\)/,
    );
    expect(messages[1]).toMatch(/bad-id.*pack\.yaml:1:5: id: a pack id is lower-case/);
    expect(messages[2]).toMatch(/not-list.*package\.json:6: pi\.quests must be a list of pack folders/);
    expect(messages[3]).toMatch(/pack "broken" .* is not offered: .*20-first-file\.yaml:5:\d+: checks/);
    expect(listed.packs[0]?.quests).toHaveLength(3);
  });
});
