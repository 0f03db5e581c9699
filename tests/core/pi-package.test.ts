import { mkdirSync, realpathSync, symlinkSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { PI_PACKAGE_VARIABLE, piPackageEnvironment, piPackageFolderOf } from "../../src/core/pi-package.ts";
import { makeWorkspace, removeWorkspaces } from "../support/workspace.ts";

afterEach(removeWorkspaces);

const REAL_PI = realpathSync(
  resolve(import.meta.dirname, "../../node_modules/@earendil-works/pi-coding-agent"),
);

/** A folder with a package.json (and its main file, unless told otherwise). */
function fakePackage(manifest: Record<string, unknown>, withMain = true): string {
  const dir = makeWorkspace({ "package.json": JSON.stringify(manifest) });
  if (withMain && typeof manifest.main === "string") {
    mkdirSync(join(dir, "dist"), { recursive: true });
    writeFileSync(join(dir, manifest.main), "export {};\n");
  }
  return realpathSync(dir);
}

describe("Pi's package folder", () => {
  it("is found from the folder, from its cli.js, and through a link to that (the pi npm puts on PATH)", () => {
    expect(piPackageFolderOf(REAL_PI)).toBe(REAL_PI);
    expect(piPackageFolderOf(join(REAL_PI, "dist/bundle/cli.js"))).toBe(REAL_PI);
    const bin = makeWorkspace();
    symlinkSync(join(REAL_PI, "dist/bundle/cli.js"), join(bin, "pi"));
    expect(piPackageFolderOf(join(bin, "pi"))).toBe(REAL_PI);
  });

  it("is no folder for another package, a package named Pi without its entry, or a path that is not there", () => {
    expect(piPackageFolderOf(fakePackage({ name: "vitest", main: "dist/index.js" }))).toBeUndefined();
    const named = { name: "@earendil-works/pi-coding-agent", main: "dist/index.js" };
    expect(piPackageFolderOf(fakePackage(named, false))).toBeUndefined();
    expect(piPackageFolderOf(fakePackage(named))).toBeDefined();
    expect(piPackageFolderOf("/nowhere/at/all")).toBeUndefined();
  });

  it("stops at the package a file belongs to, even one inside Pi's folder", () => {
    const pi = fakePackage({ name: "@earendil-works/pi-coding-agent", main: "dist/index.js" });
    const inner = join(pi, "node_modules/other");
    mkdirSync(inner, { recursive: true });
    writeFileSync(join(inner, "package.json"), JSON.stringify({ name: "other" }));
    writeFileSync(join(inner, "cli.js"), "");
    expect(piPackageFolderOf(join(inner, "cli.js"))).toBeUndefined();
    expect(piPackageFolderOf(join(pi, "dist/index.js"))).toBe(pi);
  });

  it("is given to a check only when known", () => {
    expect(piPackageEnvironment(undefined)).toEqual({});
    expect(piPackageEnvironment("/opt/pi")).toEqual({ [PI_PACKAGE_VARIABLE]: "/opt/pi" });
    expect(PI_PACKAGE_VARIABLE).toBe("PI_QUESTS_PI_PACKAGE");
  });
});
