/**
 * The built-in pack is a curriculum: at least 25 quests in at least 6 chapters, in learner order,
 * each one a complete lesson (a goal, two or more hints, honest minutes, a debrief) proven by a
 * pass play and a wrong answer, with evidence that is never only the learner's word. The plays
 * themselves run in the solutions-chapter-*.test.ts files; this file reads the pack.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { loadQuests } from "../../src/verifier/loader.ts";
import type { Play } from "../../src/verifier/play.ts";
import { loadPlays } from "../../src/verifier/play-loader.ts";
import type { Quest } from "../../src/verifier/quest.ts";
import { REPO, runCli } from "../support/cli.ts";

const PACK = join(REPO, "quests");

/** The chapters in learner order, as the issue names them. */
const CHAPTERS = [
  "Talk, read, write",
  "Steer and stay safe",
  "Sessions",
  "Teach Pi your project",
  "Extend Pi",
  "Automate",
];

/** The ids of the first three quests, kept so a learner's progress carries over. */
const STARTER_IDS = ["first-prompt", "first-file", "first-commit"];

let quests: Quest[] = [];
let plays: Play[] = [];

beforeAll(async () => {
  const loaded = await loadQuests(PACK);
  if (!loaded.ok) throw new Error(JSON.stringify(loaded.diagnostics));
  quests = loaded.value;
  const loadedPlays = await loadPlays(
    PACK,
    quests.map((quest) => quest.id),
  );
  if (!loadedPlays.ok) throw new Error(JSON.stringify(loadedPlays.diagnostics));
  plays = loadedPlays.value;
});

describe("the built-in curriculum", () => {
  it("lints clean", async () => {
    const run = await runCli(["lint", PACK]);
    expect(run.exitCode).toBe(0);
    expect(run.stdout).toMatch(/^\d+ quest\(s\) and \d+ play\(s\) valid$/);
  });

  it("has at least 25 quests in the six chapters, in learner order", () => {
    expect(quests.length).toBeGreaterThanOrEqual(25);
    const order = quests.map((quest) => quest.chapter);
    const chaptersInOrder = order.filter((chapter, index) => chapter !== order[index - 1]);
    expect(chaptersInOrder).toEqual(CHAPTERS);
    for (const chapter of CHAPTERS)
      expect(quests.filter((quest) => quest.chapter === chapter).length).toBeGreaterThanOrEqual(3);
  });

  it("keeps the starter quests' ids, so a learner's progress carries over", () => {
    const ids = quests.map((quest) => quest.id);
    for (const id of STARTER_IDS) expect(ids).toContain(id);
  });

  it("gives every quest a goal, two or more hints, minutes and a debrief", () => {
    for (const quest of quests) {
      expect.soft(quest.version, quest.id).toBeGreaterThanOrEqual(2);
      expect.soft(quest.goal.trim().length, `${quest.id}: goal`).toBeGreaterThan(40);
      expect.soft(quest.hints.length, `${quest.id}: hints`).toBeGreaterThanOrEqual(2);
      expect.soft(quest.minutes, `${quest.id}: minutes`).toBeGreaterThan(0);
      expect.soft(quest.debrief?.trim().length ?? 0, `${quest.id}: debrief`).toBeGreaterThan(40);
    }
  });

  it("requires only quests that come earlier, so the advised order is the pack's", () => {
    const seen = new Set<string>();
    for (const quest of quests) {
      for (const required of quest.requires)
        expect.soft(seen, `${quest.id} requires ${required}`).toContain(required);
      seen.add(quest.id);
    }
  });

  it("never takes the learner's word alone: every quest has a check that is not confirm", () => {
    for (const quest of quests)
      expect
        .soft(
          quest.checks.some((check) => check.type !== "confirm"),
          quest.id,
        )
        .toBe(true);
  });

  it("puts every sandbox quest in the one practice sandbox (a folder holds one)", () => {
    const sandboxes = new Set(quests.flatMap((quest) => (quest.sandbox ? [quest.sandbox] : [])));
    expect([...sandboxes]).toEqual(["sandboxes/practice"]);
  });

  it("proves every quest with a pass play and at least one wrong answer", () => {
    for (const quest of quests) {
      const names = plays.filter((play) => play.quest === quest.id).map((play) => play.name);
      expect.soft(names, quest.id).toContain("pass");
      expect
        .soft(
          names.some((name) => name.startsWith("fail-")),
          `${quest.id}: a fail play`,
        )
        .toBe(true);
    }
  });

  it("proves every quest with three or more other honest ways (pass-<name> plays)", () => {
    for (const quest of quests) {
      const ways = plays.filter((play) => play.quest === quest.id && play.name.startsWith("pass-"));
      expect.soft(ways.length, `${quest.id}: pass-<name> plays`).toBeGreaterThanOrEqual(3);
    }
  });

  it("opens every play with a comment that says what it shows, or what varies", () => {
    for (const play of plays) {
      const first = readFileSync(play.source, "utf8").split("\n")[0] ?? "";
      expect.soft(first, `${play.quest}/${play.name}`).toMatch(/^# \S.{15,}/);
    }
  });

  it("ends every goal with what done means (Done when ...)", () => {
    for (const quest of quests) expect.soft(quest.goal, quest.id).toMatch(/\n\s*Done when \S/);
  });

  it("is shown in README.md's chapter map, every quest by its id", () => {
    const readme = readFileSync(join(REPO, "README.md"), "utf8");
    for (const chapter of CHAPTERS) expect.soft(readme, chapter).toContain(chapter);
    for (const quest of quests) expect.soft(readme, quest.id).toContain(`\`${quest.id}\``);
  });
});
