/**
 * The starter pack proves itself: `pi-quests test quests/` plays every quest's pass play and its
 * wrong answers in the real Pi, and every play ends as its name says, no quest unproven.
 */
import { join } from "node:path";
import { expect, it } from "vitest";
import { REPO, runCli } from "../support/cli.ts";

it("pi-quests test quests/: every play ends as its name says, and no quest is unproven", async () => {
  const run = await runCli(["test", join(REPO, "quests"), "--strict", "--reporter", "json", "--jobs", "2"], {
    timeoutMs: 240_000,
  });
  const report = JSON.parse(run.stdout) as {
    plays: { quest: string; play: string; ok: boolean; reason?: string }[];
    unproven: string[];
  };
  const notOk = report.plays.filter((play) => !play.ok);
  expect(notOk).toEqual([]);
  expect(report.unproven).toEqual([]);
  expect(report.plays.map((play) => `${play.quest}/${play.play}`)).toEqual([
    "first-prompt/pass",
    "first-prompt/fail-bash-only",
    "first-file/pass",
    "first-file/fail-by-hand",
    "first-file/fail-claim",
    "first-commit/pass",
    "first-commit/fail-staged-only",
  ]);
  expect(run.exitCode).toBe(0);
}, 250_000);
