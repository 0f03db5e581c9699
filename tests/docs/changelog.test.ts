/**
 * CHANGELOG.md in Keep a Changelog 1.1.0 form, as Pi reads it after `pi update` (PCA
 * dist/utils/changelog.js: `## [x.y.z]` or `## x.y.z` headings), and in step with package.json.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { compareVersions } from "../../src/core/pi-versions.ts";

const repo = join(import.meta.dirname, "../..");
const changelog = readFileSync(join(repo, "CHANGELOG.md"), "utf8");
const { version } = JSON.parse(readFileSync(join(repo, "package.json"), "utf8")) as { version: string };

/** The headings of releases, newest first: version, date, and whether it is a link. */
function releasesOf(text: string): { version: string; date: string; linked: boolean }[] {
  return [...text.matchAll(/^## (\[)?(\d+\.\d+\.\d+)\]? - (\d{4}-\d{2}-\d{2})$/gm)].map((match) => ({
    version: match[2] ?? "",
    date: match[3] ?? "",
    linked: match[1] !== undefined,
  }));
}

describe("CHANGELOG.md", () => {
  it("starts with Unreleased, and its newest release is package.json's version", () => {
    const headings = [...changelog.matchAll(/^## (.*)$/gm)].map((match) => match[1]);
    expect(headings[0]).toBe("[Unreleased]");
    expect(releasesOf(changelog)[0]?.version).toBe(version);
    // Every level-2 heading is Unreleased or a release: Pi takes each `## x.y.z` as one.
    expect(headings.length).toBe(releasesOf(changelog).length + 1);
  });

  it("lists releases newest first, each section a Keep a Changelog kind, each link defined", () => {
    const releases = releasesOf(changelog);
    for (let i = 1; i < releases.length; i++) {
      expect(compareVersions(releases[i - 1]?.version ?? "", releases[i]?.version ?? "")).toBe(1);
      expect((releases[i - 1]?.date ?? "") >= (releases[i]?.date ?? "")).toBe(true);
    }
    const kinds = [...changelog.matchAll(/^### (.*)$/gm)].map((match) => match[1]);
    for (const kind of kinds)
      expect(["Added", "Changed", "Deprecated", "Removed", "Fixed", "Security"]).toContain(kind);
    for (const label of [
      "Unreleased",
      ...releases.filter((release) => release.linked).map((r) => r.version),
    ]) {
      expect(changelog).toMatch(new RegExp(`^\\[${label.replaceAll(".", "\\.")}\\]: https://`, "m"));
    }
  });
});
