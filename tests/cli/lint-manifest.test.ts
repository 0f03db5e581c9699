import { cpSync, mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { runCli, STARTER_PACK } from "../support/cli.ts";

/** A package folder holding the starter pack at `quests/`, with this package.json. */
function packageWith(manifest: Record<string, unknown>): string {
  const dir = join(mkdtempSync(join(tmpdir(), "pi-quests-lint-manifest-")), "pkg");
  mkdirSync(dir);
  cpSync(STARTER_PACK, join(dir, "quests"), { recursive: true });
  writeFileSync(
    join(dir, "package.json"),
    `${JSON.stringify({ name: "@acme/pkg", keywords: ["pi-package"], ...manifest }, null, 2)}\n`,
  );
  return dir;
}

describe("pi-quests lint on a Pi package's folder", () => {
  it("lints each pi.quests folder as a pack", async () => {
    const dir = packageWith({ pi: { extensions: [], quests: ["quests"] } });
    expect(await runCli(["lint", dir])).toMatchObject({
      exitCode: 0,
      stdout: "3 quest(s) and 7 play(s) valid",
      stderr: "",
    });
  });

  it("is an error, with the fix, when Pi would load the pack package as an extension", async () => {
    const dir = packageWith({ pi: { quests: ["quests"] } });
    const run = await runCli(["lint", dir]);
    expect(run.exitCode).toBe(3);
    expect(run.stderr).toContain(
      `${dir}/package.json:6:1: Pi would load this quest pack package as an extension (its pi manifest names no extensions and it has no extensions/ folder): add "extensions": [] to "pi"`,
    );
    // A conventional folder is what Pi loads instead: then it is only a warning.
    mkdirSync(join(dir, "skills"));
    const withSkills = await runCli(["lint", dir]);
    expect(withSkills.exitCode).toBe(0);
    expect(withSkills.stderr).toContain("warning: ");
  });

  it("names a pi.quests folder that does not exist, and a pack.yaml that is not valid, by file and line", async () => {
    const dir = packageWith({ pi: { extensions: [], quests: ["quests", "nowhere"] } });
    writeFileSync(join(dir, "quests", "pack.yaml"), "id: Bad Id\ntitel: x\n");
    const run = await runCli(["lint", dir]);
    expect(run.exitCode).toBe(3);
    expect(run.stderr).toContain(
      `${dir}/package.json:8:1: pi.quests names "nowhere", which is not a folder of the package`,
    );
    expect(run.stderr).toMatch(/quests\/pack\.yaml:1:5: id: a pack id is lower-case/);
    expect(run.stderr).toMatch(/quests\/pack\.yaml:2:1: .*titel/);
  });
});
