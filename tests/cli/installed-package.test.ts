import { cpSync, mkdirSync, readdirSync, symlinkSync } from "node:fs";
import { join } from "node:path";
import { execa } from "execa";
import { afterEach, describe, expect, it } from "vitest";
import { REPO } from "../support/cli.ts";
import { makeWorkspace, removeWorkspaces } from "../support/workspace.ts";

afterEach(removeWorkspaces);

describe("the package as npm installs it", () => {
  it("runs the built JavaScript from node_modules, where Node will not strip types", async () => {
    const project = makeWorkspace();
    const modules = join(project, "node_modules");
    const installed = join(modules, "pi-quests");
    mkdirSync(installed, { recursive: true });
    for (const entry of ["bin", "package.json"])
      cpSync(join(REPO, entry), join(installed, entry), { recursive: true });
    // What `npm pack` runs (prepack): the build, here straight into the installed folder.
    await execa(process.execPath, [
      join(REPO, "node_modules/typescript/bin/tsc"),
      "-p",
      join(REPO, "tsconfig.build.json"),
      "--outDir",
      join(installed, "dist"),
    ]);
    // The dependencies npm would install beside it.
    for (const entry of readdirSync(join(REPO, "node_modules"))) {
      if (!entry.startsWith(".")) symlinkSync(join(REPO, "node_modules", entry), join(modules, entry));
    }

    const run = await execa(
      process.execPath,
      [join(installed, "bin/pi-quests.js"), "lint", join(REPO, "fixtures/packs/workshop")],
      {
        reject: false,
        env: { PI_CODING_AGENT_DIR: join(project, "agent") },
      },
    );
    expect(run.stderr).toBe("");
    expect(run).toMatchObject({ exitCode: 0, stdout: "4 quest(s) valid" });
  });
});
