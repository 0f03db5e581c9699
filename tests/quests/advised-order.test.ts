/**
 * The built-in pack in its advised order: every quest's pass play after all the quests before it,
 * in one workspace (`pi-quests test quests/ --advised-order`), as a learner who follows the pack
 * leaves the folder. What an earlier quest leaves behind (a setting, a file, a commit) must never
 * block a later one. The quests come from the pack's own files, not a list kept here.
 */
import { join } from "node:path";
import { expect, it } from "vitest";
import { loadQuests } from "../../src/verifier/loader.ts";
import { REPO, runCli } from "../support/cli.ts";

const PACK = join(REPO, "quests");

type PlayReport = { quest: string; play: string; ok: boolean; outcome: string; reason?: string };

it("pi-quests test quests/ --advised-order: each quest's pass play completes it after every quest before it", async () => {
  const quests = await loadQuests(PACK);
  if (!quests.ok) throw new Error(`quests/ does not load: ${JSON.stringify(quests.diagnostics)}`);
  const run = await runCli(
    ["test", PACK, "--advised-order", "--strict", "--reporter", "json", "--jobs", "1"],
    {
      timeoutMs: 480_000,
    },
  );
  const report = JSON.parse(run.stdout) as { plays: PlayReport[]; unproven: string[] };
  expect(report.plays.filter((play) => !play.ok)).toEqual([]);
  expect(report.plays.map((play) => `${play.quest}/${play.play}`)).toEqual(
    quests.value.map((quest) => `${quest.id}/pass`),
  );
  expect(report.unproven).toEqual([]);
  expect(run.exitCode).toBe(0);
}, 500_000);
