/**
 * The play-engine additions in the real Pi, each proven by a quest of
 * fixtures/packs/play-controls with a pass and a fail play: a summarized `/tree` with a label,
 * `/reload` of a template the play wrote, `/trust`, `/resume NAME` (sessions on disk), `!!`,
 * `pi install -l` and `pi -p` through the chain's `pi`. And `--chapter`, which picks quests.
 */
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { REPO, runCli } from "../support/cli.ts";

const CONTROLS = join(REPO, "fixtures/packs/play-controls");
const CHAPTERS = join(REPO, "fixtures/packs/chapters");

type JsonReport = {
  plays: { quest: string; play: string; outcome: string; ok: boolean; reason?: string }[];
  unproven: string[];
};

describe("pi-quests test, the play controls, sessions on disk and the chain's pi", () => {
  let run: Awaited<ReturnType<typeof runCli>>;
  let report: JsonReport;

  beforeAll(async () => {
    run = await runCli(["test", CONTROLS, "--strict", "--reporter", "json", "--jobs", "2"], {
      timeoutMs: 280_000,
    });
    report = JSON.parse(run.stdout) as JsonReport;
  }, 290_000);

  it("every play ends as its name says: exit 0, nothing unproven", () => {
    const wrong = report.plays.filter((play) => !play.ok);
    expect(wrong, JSON.stringify(wrong, null, 2)).toEqual([]);
    expect(report.plays.map((play) => `${play.quest}/${play.play} ${play.outcome}`)).toEqual([
      "tree/pass complete",
      "tree/fail-no-summary not complete",
      "resume/pass complete",
      "resume/fail-only-new not complete",
      "reload/pass complete",
      "reload/fail-no-reload not complete",
      "trust/pass complete",
      "trust/fail-session-only not complete",
      "quiet/pass complete",
      "quiet/fail-single-bang not complete",
      "install/pass complete",
      "install/fail-global not complete",
      "print/pass complete",
      "print/fail-version not complete",
    ]);
    expect(report.unproven).toEqual([]);
    expect(run.exitCode).toBe(0);
  });
});

describe("pi-quests test --chapter", () => {
  it("plays only the quests of the chapters named, by title or number", async () => {
    // The chapters fixture has no plays: --strict lists exactly the chosen quests as unproven.
    const unproven = async (...chapters: string[]) => {
      const run = await runCli([
        "test",
        CHAPTERS,
        "--strict",
        "--reporter",
        "json",
        ...chapters.flatMap((chapter) => ["--chapter", chapter]),
      ]);
      expect(run.exitCode).toBe(1);
      return (JSON.parse(run.stdout) as JsonReport).unproven;
    };
    expect(await unproven("Save your work")).toEqual(["name", "notes"]);
    expect(await unproven("1")).toEqual(["hello", "steer"]);
    expect(await unproven("2", "Talk to Pi")).toEqual(["hello", "steer", "name", "notes"]);
  });

  it("an unknown chapter is invalid input, and the message lists the chapters", async () => {
    for (const chapter of ["3", "Save your Work", "0"]) {
      const run = await runCli(["test", CHAPTERS, "--chapter", chapter]);
      expect(run.exitCode).toBe(3);
      expect(run.stderr).toBe(
        `pi-quests test: no chapter "${chapter}" in this pack; its chapters: 1 "Talk to Pi", 2 "Save your work"`,
      );
    }
  });
});
