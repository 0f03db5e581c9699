/**
 * The supported Pi range, src/core/pi-versions.ts: where a version stands, the sentences, and
 * the range held to the two Pis the lock file installs (the tests play the pack on those).
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import {
  compareVersions,
  NEWEST_TESTED_PI,
  OLDEST_SUPPORTED_PI,
  piSupportOf,
  SUPPORTED_PI_TEXT,
  TESTED_PI_VERSIONS,
  tooOldText,
  untestedText,
} from "../../src/core/pi-versions.ts";
import { REPO } from "../support/cli.ts";

const json = (file: string) => JSON.parse(readFileSync(join(REPO, file), "utf8"));

describe("the supported Pi range", () => {
  it("is the newest Pi tested and the minor before it: today 1.6 and 1.5", () => {
    expect(TESTED_PI_VERSIONS).toEqual(["1.6.0", "1.5.2"]);
    expect(NEWEST_TESTED_PI).toBe("1.6.0");
    expect(OLDEST_SUPPORTED_PI).toBe("1.5.0");
    expect(SUPPORTED_PI_TEXT).toBe("Pi 1.5 and 1.6");
  });

  it("is the two Pis of the lock file: the dev dependency and its alias pi-previous, one minor apart", () => {
    const lock = json("package-lock.json").packages as Record<string, { version?: string; name?: string }>;
    const [newest = "", previous = ""] = TESTED_PI_VERSIONS;
    expect(lock["node_modules/@earendil-works/pi-coding-agent"]?.version).toBe(newest);
    expect(lock["node_modules/pi-previous"]).toMatchObject({
      name: "@earendil-works/pi-coding-agent",
      version: previous,
    });
    expect(json("package.json").devDependencies["pi-previous"]).toBe(
      `npm:@earendil-works/pi-coding-agent@${previous}`,
    );
    const [major, minor] = newest.split(".").map(Number);
    expect(previous.split(".").slice(0, 2).map(Number)).toEqual([major, (minor ?? 0) - 1]);
  });

  it("says where a version stands: too old, supported, or untested (newer, or not a version)", () => {
    expect(piSupportOf("1.4.9")).toEqual({ kind: "too-old", version: "1.4.9" });
    expect(piSupportOf("0.87.1")).toEqual({ kind: "too-old", version: "0.87.1" });
    for (const version of ["1.5.0", "1.5.2", "1.6.0", "1.6.0-beta.1"])
      expect(piSupportOf(version)).toEqual({ kind: "supported", version });
    for (const version of ["1.6.1", "1.7.0", "2.0.0", "1.10.0"])
      expect(piSupportOf(version)).toEqual({ kind: "untested", version });
    expect(piSupportOf(undefined)).toEqual({ kind: "untested", version: undefined });
    expect(piSupportOf("next")).toEqual({ kind: "untested", version: "next" });
  });

  it("tells an older Pi in one sentence that names the supported versions", () => {
    expect(tooOldText("1.4.0", "update Pi.")).toBe(
      "pi-quests supports Pi 1.5 and 1.6 (1.5.0 or later), not Pi 1.4.0: update Pi.",
    );
    expect(untestedText("1.7.0")).toBe(
      "pi-quests was tested with Pi 1.5 and 1.6 (up to 1.6.0); this is Pi 1.7.0, which is untested: the quests run, and anything of this Pi that pi-quests cannot read is said when it happens.",
    );
  });

  it("is the range the README, the architecture and the format reference say", () => {
    for (const doc of ["README.md", "docs/architecture.md", "docs/quest-format.md"])
      expect(readFileSync(join(REPO, doc), "utf8").replace(/\s+/g, " "), doc).toContain(
        `pi-quests supports ${SUPPORTED_PI_TEXT}`,
      );
  });

  it("compares versions by number, not by text", () => {
    expect(compareVersions("1.10.0", "1.6.0")).toBe(1);
    expect(compareVersions("2.0.0", "1.6.0")).toBe(1);
    expect(compareVersions("1.6.0", "1.6.0")).toBe(0);
    expect(compareVersions("1.6.0-beta.1", "1.6.0")).toBe(0);
    expect(compareVersions("1.5.12", "1.6.0")).toBe(-1);
    expect(compareVersions("0.9", "1.6.0")).toBe(-1);
  });
});
