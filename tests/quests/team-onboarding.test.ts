/**
 * examples/team-onboarding, the model of a team's own pack: three quests that onboard a newcomer
 * to this repository, each with several honest pass plays and at least one fail play, proven by
 * `pi-quests test` in the real Pi. Its plays' setup clones this repository at HEAD
 * (tools/newcomer-clone.sh), so they play what is committed.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { loadQuests } from "../../src/verifier/loader.ts";
import { REPO, runCli } from "../support/cli.ts";

const PACK = join(REPO, "examples/team-onboarding");
const QUESTS = ["layer-rule", "one-test-file", "check-fixture"];

type PlayReport = { quest: string; play: string; ok: boolean; outcome: string; reason?: string };

const playsOf = (quest: string) =>
  readdirSync(join(PACK, "solutions", quest))
    .filter((name) => name.endsWith(".yaml"))
    .map((name) => name.slice(0, -".yaml".length));

describe("examples/team-onboarding", () => {
  it("lints clean, and is a Pi package Pi will not load as an extension", async () => {
    const lint = await runCli(["lint", PACK]);
    expect([lint.exitCode, lint.stderr]).toEqual([0, ""]);
    const manifest = JSON.parse(readFileSync(join(PACK, "package.json"), "utf8"));
    expect(manifest.pi).toEqual({ quests: ["."], extensions: [] });
    expect(manifest.keywords).toContain("pi-package");
  });

  it("has three quests, each with a goal ending in Done when, hints, two or more other honest ways and a wrong one", async () => {
    const quests = await loadQuests(PACK);
    if (!quests.ok) throw new Error(JSON.stringify(quests.diagnostics));
    expect(quests.value.map((quest) => quest.id)).toEqual(QUESTS);
    for (const quest of quests.value) {
      expect(quest.goal.trim().split("\n\n").at(-1)).toMatch(/^Done when /);
      expect(quest.hints?.length ?? 0).toBeGreaterThanOrEqual(2);
      const plays = playsOf(quest.id);
      expect(plays).toContain("pass");
      expect(plays.filter((play) => play.startsWith("pass-")).length).toBeGreaterThanOrEqual(2);
      expect(plays.filter((play) => play.startsWith("fail-")).length).toBeGreaterThanOrEqual(1);
    }
  });

  describe("pi-quests test examples/team-onboarding", () => {
    let run: Awaited<ReturnType<typeof runCli>>;
    beforeAll(async () => {
      run = await runCli(["test", PACK, "--strict", "--reporter", "json", "--jobs", "2"], {
        timeoutMs: 400_000,
      });
    }, 410_000);

    it("ends every play as its name says, and plays every play of the pack", () => {
      const report = JSON.parse(run.stdout) as { plays: PlayReport[]; unproven: string[] };
      expect(report.plays.filter((play) => !play.ok)).toEqual([]);
      expect(report.plays.map((play) => `${play.quest}/${play.play}`).toSorted()).toEqual(
        QUESTS.flatMap((quest) => playsOf(quest).map((play) => `${quest}/${play}`)).toSorted(),
      );
      expect(report.unproven).toEqual([]);
      expect(run.exitCode).toBe(0);
    });
  });
});
