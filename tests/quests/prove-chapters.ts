/**
 * Plays the built-in pack's solutions for some chapters with `pi-quests test quests/ --chapter N`
 * and asserts what the authoring contract promises: every play ended as its name says, and no
 * quest of those chapters is unproven. The expected plays come from the pack's own files (the
 * loader), not a list kept here, so a new quest is covered the day it is added.
 */
import { join } from "node:path";
import { expect, it } from "vitest";
import { loadQuests } from "../../src/verifier/loader.ts";
import { loadPlays } from "../../src/verifier/play-loader.ts";
import { REPO, runCli } from "../support/cli.ts";

const PACK = join(REPO, "quests");

type PlayReport = { quest: string; play: string; ok: boolean; reason?: string };

/** The chapters' titles and the `quest/play` names they hold, in pack order. */
async function expectedPlays(chapters: number[]): Promise<{ titles: string[]; plays: string[] }> {
  const quests = await loadQuests(PACK);
  if (!quests.ok) throw new Error(`quests/ does not load: ${JSON.stringify(quests.diagnostics)}`);
  const titles = [...new Set(quests.value.map((quest) => quest.chapter ?? ""))];
  const wanted = chapters.map((number) => titles[number - 1] ?? `chapter ${number}`);
  const ids = quests.value.filter((quest) => wanted.includes(quest.chapter ?? "")).map((quest) => quest.id);
  const plays = await loadPlays(
    PACK,
    quests.value.map((quest) => quest.id),
  );
  if (!plays.ok) throw new Error(`quests/solutions does not load: ${JSON.stringify(plays.diagnostics)}`);
  return {
    titles: wanted,
    plays: plays.value.filter((play) => ids.includes(play.quest)).map((play) => `${play.quest}/${play.name}`),
  };
}

/** One vitest test proving `chapters` (1-based, pack order); one Pi at a time, vitest runs files side by side. */
export function itProvesChapters(chapters: number[]): void {
  it(`pi-quests test quests/ --chapter ${chapters.join(",")}: every play ends as its name says, no quest unproven`, async () => {
    const expected = await expectedPlays(chapters);
    const run = await runCli(
      [
        "test",
        PACK,
        ...chapters.flatMap((number) => ["--chapter", String(number)]),
        "--strict",
        "--reporter",
        "json",
        "--jobs",
        "1",
      ],
      { timeoutMs: 480_000 },
    );
    const report = JSON.parse(run.stdout) as { plays: PlayReport[]; unproven: string[] };
    expect(report.plays.filter((play) => !play.ok)).toEqual([]);
    expect(report.unproven).toEqual([]);
    // Plays of the quests these chapters require are played as chains, not reported.
    expect(report.plays.map((play) => `${play.quest}/${play.play}`).sort()).toEqual(expected.plays.sort());
    expect(expected.plays.length).toBeGreaterThan(0);
    expect(run.exitCode).toBe(0);
  }, 500_000);
}
