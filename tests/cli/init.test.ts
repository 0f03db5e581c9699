import { mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { OLDEST_SUPPORTED_PI } from "../../src/core/pi-versions.ts";
import { runCli } from "../support/cli.ts";

const fresh = () => mkdtempSync(join(tmpdir(), "pi-quests-init-"));

describe("pi-quests init", () => {
  it("creates a pack that is a Pi package, passes lint as created, and names the one install command", async () => {
    const dir = join(fresh(), "Team Pack");
    const run = await runCli(["init", dir]);
    expect(run).toMatchObject({ exitCode: 0, stderr: "" });
    expect(readdirSync(dir, { recursive: true, encoding: "utf8" }).sort()).toEqual([
      ".github",
      ".github/workflows",
      ".github/workflows/quests.yml",
      ".gitignore",
      "010-hello-file.yaml",
      "README.md",
      "pack.yaml",
      "package.json",
      "sandboxes",
      "sandboxes/hello",
      "sandboxes/hello/README.md",
      "solutions",
      "solutions/hello-file",
      "solutions/hello-file/fail-claim.yaml",
      "solutions/hello-file/pass.yaml",
    ]);
    const manifest = JSON.parse(readFileSync(join(dir, "package.json"), "utf8"));
    expect(manifest).toMatchObject({
      name: "team-pack",
      keywords: expect.arrayContaining(["pi-package"]),
      pi: { extensions: [], quests: ["."] },
      peerDependencies: {
        "pi-quests": expect.any(String),
        "@earendil-works/pi-coding-agent": expect.any(String),
      },
    });
    expect(readFileSync(join(dir, "pack.yaml"), "utf8")).toContain("id: team-pack");
    expect(manifest.peerDependencies["@earendil-works/pi-coding-agent"]).toBe(`>=${OLDEST_SUPPORTED_PI}`);
    const readme = readFileSync(join(dir, "README.md"), "utf8");
    expect(readme).toContain("pi install npm:team-pack");
    // pi-quests is not on the public registry: the README must not offer it from there.
    expect(readme).not.toContain("npm:pi-quests");
    expect(readme).toContain("pi-quests is not on the npm registry yet");
    const workflow = readFileSync(join(dir, ".github/workflows/quests.yml"), "utf8");
    expect(workflow).toContain("shard: [1, 2]");
    // biome-ignore lint/suspicious/noTemplateCurlyInString: a GitHub Actions expression, kept as written
    expect(workflow).toContain("npx pi-quests test . --shard ${{ matrix.shard }}/2");
    expect(await runCli(["lint", dir])).toMatchObject({
      exitCode: 0,
      stdout: "1 quest(s) and 2 play(s) valid",
    });
  });

  it("writes nothing into a folder that is not empty, or over a file: exit 3", async () => {
    const root = fresh();
    const full = join(root, "full");
    mkdirSync(full);
    writeFileSync(join(full, "keep.txt"), "mine");
    const file = join(root, "a-file");
    writeFileSync(file, "");
    for (const target of [full, file]) {
      const run = await runCli(["init", target]);
      expect(run.exitCode).toBe(3);
      expect(run.stderr).toMatch(
        /is (not empty|a file): give an absent or empty folder; nothing was written/,
      );
    }
    expect(readdirSync(full)).toEqual(["keep.txt"]);
    const empty = join(root, "empty");
    mkdirSync(empty);
    expect((await runCli(["init", empty])).exitCode).toBe(0);
    expect((await runCli(["init"])).exitCode).toBe(3);
  });
});

describe("pi-quests init, then pi-quests test", () => {
  it("the new pack's plays end as their names say in the real Pi, as created", async () => {
    const dir = join(fresh(), "first-course");
    expect((await runCli(["init", dir])).exitCode).toBe(0);
    const run = await runCli(["test", dir], { timeoutMs: 240_000 });
    expect(run.stdout).toContain("✓ hello-file/pass: expected complete, got complete");
    expect(run.stdout).toContain("✓ hello-file/fail-claim: expected not complete, got not complete");
    expect(run.stdout).toContain("2 passed, 0 failed");
    expect(run.exitCode).toBe(0);
  }, 300_000);
});
