/**
 * `pi-quests test --shard K/N` and `--merge` as a CI matrix runs them: the starter pack
 * (fixtures/packs/starter, 7 plays) in two shards in the real Pi, each play in exactly one, then
 * the two JSON reports merged into the report of one run; shards with nothing to play still
 * report; reports that are not one run's shards, and bad K/N, are refused with exit 3.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { XMLParser } from "fast-xml-parser";
import { beforeAll, describe, expect, it } from "vitest";
import { type CliRun, runCli, STARTER_PACK } from "../support/cli.ts";
import { makeWorkspace } from "../support/workspace.ts";

type Play = { quest: string; play: string; ok: boolean };
type Report = {
  plays: Play[];
  unproven: string[];
  passed: number;
  failed: number;
  shard?: { planned: string[] };
};

const names = (report: Report) => report.plays.map((play) => `${play.quest}/${play.play}`);

describe("pi-quests test --shard and --merge, the starter pack in two shards", () => {
  let dir: string;
  let shards: CliRun[];
  let reports: Report[];
  const files = () => [join(dir, "shard-1.json"), join(dir, "shard-2.json")];

  beforeAll(async () => {
    dir = makeWorkspace();
    shards = await Promise.all(
      ["1/2", "2/2"].map((shard) =>
        runCli(["test", STARTER_PACK, "--shard", shard, "--reporter", "json", "--jobs", "1"], {
          timeoutMs: 180_000,
        }),
      ),
    );
    reports = shards.map((run) => JSON.parse(run.stdout) as Report);
    shards.forEach((run, i) => {
      writeFileSync(files()[i] as string, run.stdout);
    });
  }, 190_000);

  it("plays each of the 7 plays in exactly one shard, every one ended as its name says", () => {
    expect(shards.map((run) => [run.exitCode, run.stderr])).toEqual([
      [0, ""],
      [0, ""],
    ]);
    const played = reports.flatMap(names);
    expect(played.toSorted()).toEqual((reports[0]?.shard?.planned ?? []).toSorted());
    expect(new Set(played).size).toBe(7);
    expect(reports.map((report) => report.plays.length).every((n) => n > 0)).toBe(true);
    expect(reports[1]?.shard?.planned).toEqual(reports[0]?.shard?.planned);
  });

  it("merges the two reports into one run's report: every play once, in pack order, exit 0", async () => {
    const merged = await runCli(["test", "--merge", ...files(), "--reporter", "json"]);
    expect([merged.exitCode, merged.stderr]).toEqual([0, ""]);
    const report = JSON.parse(merged.stdout) as Report;
    expect(names(report)).toEqual(reports[0]?.shard?.planned);
    expect(report).toMatchObject({ unproven: [], passed: 7, failed: 0 });
    expect(report.shard).toBeUndefined();
  });

  it("prints the merge with any reporter: JUnit, one suite of 7 cases", async () => {
    const merged = await runCli(["test", "--merge", ...files().toReversed(), "--reporter", "junit"]);
    expect(merged.exitCode).toBe(0);
    const xml = new XMLParser({ ignoreAttributes: false, attributeNamePrefix: "" }).parse(merged.stdout);
    expect(xml.testsuites).toMatchObject({ tests: "7", failures: "0", errors: "0" });
    expect(xml.testsuites.testsuite.name).toBe(`pi-quests test ${STARTER_PACK}`);
  });

  it("exits 1, as the run would, when a shard's play did not end as its name says", async () => {
    const report = JSON.parse(readFileSync(files()[1] as string, "utf8")) as Report;
    report.plays[0] = { ...(report.plays[0] as Play), ok: false };
    const broken = join(dir, "shard-2-failed.json");
    writeFileSync(broken, JSON.stringify(report));
    const merged = await runCli(["test", "--merge", files()[0] as string, broken]);
    expect(merged.exitCode).toBe(1);
    expect(merged.stdout.trimEnd().split("\n").at(-1)).toBe("6 passed, 1 failed");
  });

  it("refuses a merge with a shard missing or given twice: exit 3, the file named, nothing printed", async () => {
    const [one] = files() as [string, string];
    expect(await runCli(["test", "--merge", one])).toEqual({
      exitCode: 3,
      stdout: "",
      stderr: "pi-quests test --merge: shard 2/2 is missing: give the reports of all 2 shards",
    });
    expect((await runCli(["test", "--merge", one, one])).stderr).toBe(
      `pi-quests test --merge: ${one} and ${one} are both shard 1/2`,
    );
    expect((await runCli(["test", "--merge", one, join(dir, "nowhere.json")])).stderr).toBe(
      `pi-quests test --merge: cannot read ${join(dir, "nowhere.json")} (ENOENT)`,
    );
  });
});

describe("pi-quests test --shard, shards with nothing to play, and bad input", () => {
  it("reports an empty shard: no plays, what all the shards plan, exit 0", async () => {
    // first-prompt has two plays: shards 3 and 4 of 4 get none.
    const run = await runCli([
      "test",
      STARTER_PACK,
      "--quest",
      "first-prompt",
      "--shard",
      "4/4",
      "--reporter",
      "json",
    ]);
    expect([run.exitCode, run.stderr]).toEqual([0, ""]);
    const report = JSON.parse(run.stdout) as Report;
    expect(report).toMatchObject({ plays: [], unproven: [], passed: 0, failed: 0 });
    expect(report.shard?.planned).toEqual(["first-prompt/pass", "first-prompt/fail-bash-only"]);
  });

  it("plays the advised order, one chain, whole in shard 1: shard 2 of 2 is empty", async () => {
    const run = await runCli(["test", STARTER_PACK, "--advised-order", "--shard", "2/2"]);
    expect([run.exitCode, run.stderr]).toEqual([0, ""]);
    expect(run.stdout).toMatch(/\nshard 2\/2: 0 of the 3 plays\n0 passed, 0 failed$/);
  });

  it.each([["3/2"], ["0/1"], ["1.5/2"], ["two"]])(
    "refuses --shard %s: exit 3, a sentence, nothing played",
    async (shard) => {
      expect(await runCli(["test", STARTER_PACK, "--shard", shard])).toEqual({
        exitCode: 3,
        stdout: "",
        stderr: `pi-quests test: --shard is K/N, two whole numbers with 1 <= K <= N (e.g. --shard 2/4), not "${shard}"`,
      });
    },
  );

  it("refuses --merge with an option of the shards' runs", async () => {
    expect(await runCli(["test", "--merge", "--quest", "first-prompt", "a.json"])).toEqual({
      exitCode: 3,
      stdout: "",
      stderr: "pi-quests test: --merge joins the shards' reports: --quest belongs to the shards' runs",
    });
  });
});
