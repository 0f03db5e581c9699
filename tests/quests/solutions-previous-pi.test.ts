/**
 * The built-in pack on the previous minor's Pi (the dev dependency `pi-previous`,
 * src/core/pi-versions.ts): the plays previous-pi-plays.ts chooses, played in that Pi with
 * `PI_QUESTS_PI`, each ending as its name says. The whole pack on it: `npm run test:previous-pi`.
 */
import { expect, it } from "vitest";
import { TESTED_PI_VERSIONS } from "../../src/core/pi-versions.ts";
import { runCli } from "../support/cli.ts";
import { PI_PREVIOUS } from "../support/pi-rpc.ts";
import { PACK, previousPiSelection } from "./previous-pi-plays.ts";

type PlayReport = { quest: string; play: string; ok: boolean; reason?: string };

it(`on Pi ${TESTED_PI_VERSIONS[1]}: the plays of one quest per chapter and every quest whose plays touch sessions end as their names say`, async () => {
  const expected = await previousPiSelection();
  const run = await runCli(
    [
      "test",
      PACK,
      ...expected.quests.flatMap((quest) => ["--quest", quest]),
      "--strict",
      "--reporter",
      "json",
      "--jobs",
      "1",
    ],
    { env: { PI_QUESTS_PI: PI_PREVIOUS }, timeoutMs: 480_000 },
  );
  const report = JSON.parse(run.stdout) as { plays: PlayReport[]; unproven: string[]; piVersion: string };
  expect(report.piVersion).toBe(TESTED_PI_VERSIONS[1]);
  expect(report.plays.filter((play) => !play.ok)).toEqual([]);
  expect(report.unproven).toEqual([]);
  expect(report.plays.map((play) => `${play.quest}/${play.play}`).sort()).toEqual(expected.plays.sort());
  expect(expected.plays.some((play) => play.startsWith("fork/"))).toBe(true);
  expect(run.exitCode).toBe(0);
}, 500_000);
