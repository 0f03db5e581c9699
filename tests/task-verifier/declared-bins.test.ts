/**
 * The worktree's node_modules/.bin (src/task-verifier/declared-bins.ts): what packages declare,
 * each linked to the declared file, found through the learner's link or, failing that, by every
 * package's package.json; whatever else the learner's `.bin` holds is left out.
 */
import { chmodSync, mkdirSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { setTimeout } from "node:timers/promises";
import { afterEach, describe, expect, it } from "vitest";
import { binFolderState, binsOf, declaredBins } from "../../src/task-verifier/declared-bins.ts";
import { makeWorkspace, removeWorkspaces } from "../support/workspace.ts";

afterEach(removeWorkspaces);

/** A node_modules folder with `packages` (folder to package.json) and `.bin` entries (name to a link target, or a script body). */
function nodeModules(
  packages: Record<string, object>,
  bin: Record<string, { link: string } | { script: string }>,
) {
  const root = join(makeWorkspace(), "node_modules");
  for (const [folder, manifest] of Object.entries(packages)) {
    mkdirSync(join(root, folder), { recursive: true });
    writeFileSync(join(root, folder, "package.json"), JSON.stringify(manifest));
  }
  mkdirSync(join(root, ".bin"), { recursive: true });
  for (const [name, entry] of Object.entries(bin)) {
    const path = join(root, ".bin", name);
    if ("link" in entry) symlinkSync(entry.link, path);
    else {
      writeFileSync(path, `#!/bin/sh\n${entry.script}\n`);
      chmodSync(path, 0o755);
    }
  }
  return root;
}

describe("a package.json's bins", () => {
  it("a string is named after the package (its scope left off); an object names each", () => {
    expect([...binsOf({ name: "@scope/tool", bin: "./cli.js" })]).toEqual([["tool", "cli.js"]]);
    expect([...binsOf({ name: "x", bin: { a: "bin/a.js", b: "./bin/../b.js" } })]).toEqual([
      ["a", "bin/a.js"],
      ["b", "b.js"],
    ]);
  });

  it("a file outside the package, or a name that is a path or hidden, is no bin", () => {
    expect([
      ...binsOf({
        name: "x",
        bin: { up: "../other/x.js", abs: "/usr/bin/grep", "a/b": "x.js", ".hidden": "x.js", ok: 3 },
      }),
    ]).toEqual([]);
    expect([...binsOf(null)]).toEqual([]);
    expect([...binsOf({ name: "x", directories: { bin: "bin" } })]).toEqual([]);
  });
});

describe("the worktree's .bin", () => {
  it("keeps a declared bin, linked to the file its package declares; leaves out what no package declares", async () => {
    const root = nodeModules(
      {
        vitest: { name: "vitest", bin: { vitest: "vitest.mjs" } },
        "@s/tool": { name: "@s/tool", bin: "cli.js" },
      },
      {
        vitest: { link: "../vitest/vitest.mjs" },
        tool: { link: "../@s/tool/cli.js" },
        grep: { script: "exit 0" },
        node: { link: "/tmp/elsewhere/node" },
      },
    );
    expect(declaredBins(root)).toMatchObject({
      links: [
        { name: "tool", target: "../@s/tool/cli.js" },
        { name: "vitest", target: "../vitest/vitest.mjs" },
      ],
      undeclared: ["grep", "node"],
      asDeclared: false,
    });
  });

  it("a declared name whose entry is not the package's link (a planted script, a link elsewhere) gets the declared file", async () => {
    const root = nodeModules(
      {
        check: { name: "check", bin: { check: "bin/check.sh" } },
        other: { name: "other", bin: { other: "o.js" } },
      },
      { check: { script: "exit 0" }, other: { link: "../check/bin/check.sh" } },
    );
    expect(declaredBins(root)).toMatchObject({
      links: [
        { name: "check", target: "../check/bin/check.sh" },
        { name: "other", target: "../other/o.js" },
      ],
      undeclared: [],
      asDeclared: false,
    });
  });

  it("no .bin, no links; a package.json that is not JSON declares nothing", async () => {
    const root = join(makeWorkspace({ "node_modules/x/package.json": "{ not json" }), "node_modules");
    expect(declaredBins(root)).toMatchObject({ links: [], undeclared: [] });
    mkdirSync(join(root, ".bin"));
    symlinkSync("../x/cli.js", join(root, ".bin", "x"));
    expect(declaredBins(root)).toMatchObject({ links: [], undeclared: ["x"], asDeclared: false });
  });

  it("a .bin as npm leaves it, untouched for longer than the timestamps' granularity, can be linked whole; its state moves with any entry added or removed", async () => {
    const root = nodeModules(
      { vitest: { name: "vitest", bin: { vitest: "vitest.mjs" } }, ok: { name: "ok", bin: "./ok.js" } },
      { vitest: { link: "../vitest/vitest.mjs" }, ok: { link: "../ok/ok.js" } },
    );
    // Changed just now: its times could be those of a change in the same tick, so not as declared.
    expect(declaredBins(root).asDeclared).toBe(false);
    await setTimeout(2_100);
    const bins = declaredBins(root);
    expect(bins).toMatchObject({ asDeclared: true, undeclared: [] });
    expect(bins.folderState).toBe(binFolderState(join(root, ".bin")));
    symlinkSync("../ok/ok.js", join(root, ".bin", "grep"));
    rmSync(join(root, ".bin", "grep"));
    expect(binFolderState(join(root, ".bin"))).not.toBe(bins.folderState);
  }, 10_000);
});
