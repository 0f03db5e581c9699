import { mkdirSync, mkdtempSync, realpathSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import * as Pi from "@earendil-works/pi-coding-agent";
import { beforeEach, describe, expect, it } from "vitest";
import { installedPackages, projectTrusted } from "../../src/runtime/pack-sources.ts";
import type { PiPackageApi } from "../../src/runtime/pi-host.ts";

const pi: PiPackageApi = Pi;
let agentDir: string;
let cwd: string;
beforeEach(() => {
  const root = realpathSync(mkdtempSync(join(tmpdir(), "pi-quests-sources-")));
  agentDir = join(root, "agent");
  cwd = join(root, "project");
  mkdirSync(agentDir, { recursive: true });
  mkdirSync(join(cwd, ".pi", "quests"), { recursive: true });
});

const trust = (decision: boolean) =>
  writeFileSync(join(agentDir, "trust.json"), JSON.stringify({ [cwd]: decision }));

describe("project trust, as Pi decides it for .pi/extensions", () => {
  it("is not given by default (Pi's defaultProjectTrust is ask), and follows the saved decision", () => {
    expect(projectTrusted(pi, { cwd, agentDir })).toBe(false);
    trust(true);
    expect(projectTrusted(pi, { cwd, agentDir })).toBe(true);
    trust(false);
    expect(projectTrusted(pi, { cwd, agentDir }, true)).toBe(false);
  });

  it("follows defaultProjectTrust: always, and never overrules a session Pi did not trust", () => {
    writeFileSync(join(agentDir, "settings.json"), JSON.stringify({ defaultProjectTrust: "always" }));
    expect(projectTrusted(pi, { cwd, agentDir })).toBe(true);
    expect(projectTrusted(pi, { cwd, agentDir }, false)).toBe(false);
  });

  it("takes the session's trust where Pi asked (the project has resources that need trust)", () => {
    mkdirSync(join(cwd, ".pi", "extensions"));
    expect(projectTrusted(pi, { cwd, agentDir }, true)).toBe(true);
    // A project with only .pi/quests: Pi trusts it without asking, pi-quests does not.
    expect(projectTrusted(pi, { cwd: join(cwd, "..", "agent"), agentDir }, true)).toBe(false);
  });
});

describe("installed packages, from Pi's own package list", () => {
  it("lists user packages, and project packages only in a trusted project", () => {
    const userPackage = join(agentDir, "..", "user-pack");
    const projectPackage = join(agentDir, "..", "project-pack");
    mkdirSync(userPackage);
    mkdirSync(projectPackage);
    writeFileSync(
      join(agentDir, "settings.json"),
      JSON.stringify({ packages: [userPackage, "npm:not-installed"] }),
    );
    writeFileSync(join(cwd, ".pi", "settings.json"), JSON.stringify({ packages: [projectPackage] }));
    expect(installedPackages(pi, { cwd, agentDir, projectTrusted: false })).toEqual({
      packages: [{ source: userPackage, scope: "user", root: userPackage }],
      problems: [],
    });
    expect(installedPackages(pi, { cwd, agentDir, projectTrusted: true }).packages).toEqual([
      { source: userPackage, scope: "user", root: userPackage },
      { source: projectPackage, scope: "project", root: projectPackage },
    ]);
  });

  it("says in words when Pi's settings cannot be read, and throws nothing", () => {
    writeFileSync(join(agentDir, "settings.json"), "{ not json");
    const listed = installedPackages(pi, { cwd, agentDir, projectTrusted: false });
    expect(listed.packages).toEqual([]);
  });
});
