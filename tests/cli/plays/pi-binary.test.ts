import { mkdirSync, realpathSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { findPi, PI_PACKAGE } from "../../../src/cli/plays/pi-binary.ts";
import { OLDEST_SUPPORTED_PI, piSupportOf, TESTED_PI_VERSIONS } from "../../../src/core/pi-versions.ts";
import { makeWorkspace, removeWorkspaces } from "../../support/workspace.ts";

afterEach(() => removeWorkspaces());

const REPO = join(import.meta.dirname, "../../..");
const NOT_INSTALLED = () => {
  throw Object.assign(new Error("Cannot find package"), { code: "ERR_MODULE_NOT_FOUND" });
};

/** A Pi package of `version` in a fresh node_modules, with a `pi` link in a bin folder as npm makes it. */
function fakePi(version: string) {
  const root = realpathSync(makeWorkspace());
  const packageDir = join(root, "node_modules", PI_PACKAGE);
  mkdirSync(join(packageDir, "dist/bundle"), { recursive: true });
  writeFileSync(
    join(packageDir, "package.json"),
    JSON.stringify({ name: PI_PACKAGE, version, bin: { pi: "dist/bundle/cli.js" }, main: "./dist/index.js" }),
  );
  writeFileSync(join(packageDir, "dist/bundle/cli.js"), "#!/usr/bin/env node\n");
  writeFileSync(join(packageDir, "dist/index.js"), "export {};\n");
  const bin = join(root, "bin");
  mkdirSync(bin);
  symlinkSync(join(packageDir, "dist/bundle/cli.js"), join(bin, "pi"));
  return {
    root,
    packageDir,
    cli: join(packageDir, "dist/bundle/cli.js"),
    bin,
    entry: join(packageDir, "dist/index.js"),
  };
}

describe("finding Pi", () => {
  it("takes PI_QUESTS_PI first: Pi's cli.js, a link to it, or the package folder, relative to the folder given", () => {
    const pi = fakePi("1.7.2");
    const expected = {
      ok: true,
      pi: { cli: pi.cli, version: "1.7.2", packageDir: pi.packageDir, source: "PI_QUESTS_PI" },
    };
    for (const named of [pi.cli, join(pi.bin, "pi"), pi.packageDir]) {
      expect(findPi({ env: { PI_QUESTS_PI: named }, cwd: "/", resolveInstalled: NOT_INSTALLED })).toEqual(
        expected,
      );
    }
    expect(findPi({ env: { PI_QUESTS_PI: "bin/pi" }, cwd: pi.root })).toEqual(expected);
  });

  it("refuses a PI_QUESTS_PI that is not Pi, and does not look further", () => {
    const other = makeWorkspace({ "cli.js": "" });
    for (const named of [join(other, "missing.js"), join(other, "cli.js")]) {
      const found = findPi({ env: { PI_QUESTS_PI: named, PATH: fakePi("1.6.0").bin }, cwd: "/" });
      expect(found).toEqual({
        ok: false,
        message: `PI_QUESTS_PI=${named} is not Pi: give the path of Pi's cli.js (in ${PI_PACKAGE}/dist/bundle/), a link to it, or the package's folder.`,
      });
    }
  });

  it("else the Pi installed beside pi-quests: in this checkout, the dev dependency", () => {
    const found = findPi({ env: { PATH: "" }, cwd: "/" });
    const packageDir = realpathSync(join(REPO, "node_modules", PI_PACKAGE));
    expect(found).toEqual({
      ok: true,
      pi: {
        cli: join(packageDir, "dist/bundle/cli.js"),
        version: expect.any(String),
        packageDir,
        source: "installed",
      },
    });
    if (found.ok) expect(found.pi.version).toBe(TESTED_PI_VERSIONS[0]);
  });

  it("the installed one wins over the pi on PATH", () => {
    const installed = fakePi("1.6.1");
    const onPath = fakePi("1.8.0");
    const found = findPi({
      env: { PATH: onPath.bin },
      cwd: "/",
      resolveInstalled: () => `file://${installed.entry}`,
    });
    expect(found.ok && [found.pi.source, found.pi.cli]).toEqual(["installed", installed.cli]);
  });

  it("else the pi on PATH, followed to its package", () => {
    const pi = fakePi("1.6.0");
    const found = findPi({
      env: { PATH: `relative/bin:/nonexistent:${pi.bin}` },
      cwd: "/",
      resolveInstalled: NOT_INSTALLED,
    });
    expect(found).toEqual({
      ok: true,
      pi: { cli: pi.cli, version: "1.6.0", packageDir: pi.packageDir, source: "PATH" },
    });
  });

  it("with none, one sentence that names PI_QUESTS_PI", () => {
    expect(findPi({ env: { PATH: "/nonexistent" }, cwd: "/", resolveInstalled: NOT_INSTALLED })).toEqual({
      ok: false,
      message: `Pi was not found (no ${PI_PACKAGE} installed beside pi-quests, no pi on PATH): install it with npm install -g ${PI_PACKAGE}, or set PI_QUESTS_PI to Pi's cli.js.`,
    });
    const stray = makeWorkspace({ pi: "#!/bin/sh\n" });
    const found = findPi({ env: { PATH: stray }, cwd: "/", resolveInstalled: NOT_INSTALLED });
    expect(found.ok ? "" : found.message).toContain(
      `the pi on PATH, ${join(stray, "pi")}, is not part of an installed ${PI_PACKAGE}`,
    );
  });

  it("refuses a Pi older than the supported range (src/core/pi-versions.ts) in one sentence naming the supported versions", () => {
    const old = fakePi("1.4.0");
    expect(findPi({ env: { PI_QUESTS_PI: old.cli }, cwd: "/" })).toEqual({
      ok: false,
      message: `pi-quests supports Pi 1.5 and 1.6 (1.5.0 or later), not Pi 1.4.0 (${old.cli}): update it (npm install -g @earendil-works/pi-coding-agent), or set PI_QUESTS_PI to a newer Pi's cli.js.`,
    });
    expect(findPi({ env: { PATH: old.bin }, cwd: "/", resolveInstalled: NOT_INSTALLED }).ok).toBe(false);
  });

  it("runs any supported Pi, the previous minor's first release included, and a newer one than tested", () => {
    for (const version of [OLDEST_SUPPORTED_PI, ...TESTED_PI_VERSIONS, "1.7.0"]) {
      const pi = fakePi(version);
      expect(findPi({ env: { PI_QUESTS_PI: pi.cli }, cwd: "/" })).toMatchObject({
        ok: true,
        pi: { version },
      });
    }
    expect(piSupportOf("1.7.0").kind).toBe("untested");
  });
});
