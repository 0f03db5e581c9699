/**
 * `pi-quests test` as an author runs it, on a pack of its own (fixtures/packs/plays): each play in
 * the real Pi, the report saying for each whether it ended as its name says and why not, and the
 * run leaving nothing behind: the pack byte-identical, no process left, the home untouched.
 */
import { createHash } from "node:crypto";
import { cpSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join, relative } from "node:path";
import { XMLParser } from "fast-xml-parser";
import { Parser } from "tap-parser";
import { beforeAll, describe, expect, it } from "vitest";
import { REPO, runCli } from "../support/cli.ts";
import { piClaiming } from "../support/pi-copies.ts";
import { makeWorkspace } from "../support/workspace.ts";

const FIXTURE = join(REPO, "fixtures/packs/plays");

/** Every file under `dir` with its mode and content hash: what "byte-identical" compares. */
function treeOf(dir: string): Record<string, string> {
  const tree: Record<string, string> = {};
  const walk = (folder: string) => {
    for (const entry of readdirSync(folder, { withFileTypes: true })) {
      const path = join(folder, entry.name);
      if (entry.isDirectory()) walk(path);
      else
        tree[relative(dir, path)] =
          `${statSync(path).mode.toString(8)} ${createHash("sha256").update(readFileSync(path)).digest("hex")}`;
    }
  };
  walk(dir);
  return tree;
}

/** Processes whose command line holds `marker` (the plays' escapees carry one). */
function processesWith(marker: string): string[] {
  return readdirSync("/proc")
    .filter((name) => /^\d+$/.test(name))
    .flatMap((pid) => {
      try {
        const command = readFileSync(`/proc/${pid}/cmdline`, "utf8").replaceAll("\0", " ");
        return command.includes(marker) ? [`${pid}: ${command}`] : [];
      } catch {
        return [];
      }
    });
}

type JsonPlay = {
  quest: string;
  play: string;
  expected: string;
  outcome: string;
  ok: boolean;
  reason?: string;
};

describe("pi-quests test, a whole pack", () => {
  let run: Awaited<ReturnType<typeof runCli>>;
  let pack: string;
  let before: Record<string, string>;
  let home: string;
  let homeBefore: Record<string, string>;
  let tmp: string;

  beforeAll(async () => {
    pack = join(makeWorkspace(), "pack");
    cpSync(FIXTURE, pack, { recursive: true });
    before = treeOf(pack);
    home = makeWorkspace({ ".gitconfig": "[user]\n  name = Someone\n" });
    mkdirSync(join(home, ".pi", "agent"), { recursive: true });
    writeFileSync(join(home, ".pi", "agent", "settings.json"), "{}\n");
    homeBefore = treeOf(home);
    tmp = makeWorkspace();
    run = await runCli(["test", pack, "--reporter", "json", "--jobs", "2"], {
      env: { HOME: home, TMPDIR: tmp },
      timeoutMs: 240_000,
    });
  }, 250_000);

  it("reports every play with what its name expected and what happened; exit 1 for the ones that did not", () => {
    expect(run.stderr).toBe("");
    expect(run.exitCode).toBe(1);
    const report = JSON.parse(run.stdout) as {
      plays: JsonPlay[];
      unproven: string[];
      passed: number;
      failed: number;
    };
    const row = (play: JsonPlay) => [`${play.quest}/${play.play}`, play.expected, play.outcome, play.ok];
    expect(report.plays.map(row)).toEqual([
      ["hello/pass", "complete", "complete", true],
      ["hello/fail-wrong", "not complete", "complete", false],
      ["notes/pass", "complete", "complete", true],
      // Its setup ran before Pi, on the sandbox the quest set up: the note is there, Pi did not write it.
      ["notes/fail-setup", "not complete", "not complete", true],
      ["confirm/pass", "complete", "complete", true],
      ["confirm/fail-no-dialog", "not complete", "error", false],
      ["never/pass", "complete", "not complete", false],
      // Pi's own /name and /model, sent as their RPC commands.
      ["session/pass", "complete", "complete", true],
      ["session/fail-only-named", "not complete", "not complete", true],
      // A prompt left running (wait: started), steered, given a follow-up; another aborted.
      ["steer/pass", "complete", "complete", true],
      ["steer/fail-never-stopped", "not complete", "not complete", true],
    ]);
    const reasonOf = (name: string) =>
      report.plays.find((play) => `${play.quest}/${play.play}` === name)?.reason;
    expect(reasonOf("confirm/fail-no-dialog")).toBe(
      "step 1 (confirm yes): no confirm dialog came within 10 s",
    );
    expect(reasonOf("never/pass")).toBe(
      'the play has no more replies: the model asked for more in step 3 (prompt "Again")',
    );
    expect(report).toMatchObject({ unproven: ["unproven"], passed: 8, failed: 3 });
  });

  it("gives each play the quest's last result, with the failing check's evidence", () => {
    const report = JSON.parse(run.stdout) as {
      plays: (JsonPlay & {
        result?: { status: string; checks: { status: string; evidence: { summary: string } }[] };
      })[];
    };
    const never = report.plays.find((play) => play.quest === "never");
    expect(never?.result?.status).toBe("fail");
    expect(never?.result?.checks[0]?.evidence.summary).toMatch(/^exit code 1, expected = 0/);
    const setup = report.plays.find((play) => play.play === "fail-setup");
    expect(setup?.result?.checks.map((check) => check.status)).toEqual(["fail", "pass"]);
  });

  it("leaves the pack byte-identical, no process running, the home untouched, no folder behind", () => {
    expect(treeOf(pack)).toEqual(before);
    expect(processesWith("--pi-quests-left-behind-1")).toEqual([]);
    expect(processesWith("sleep 301")).toEqual([]);
    expect(treeOf(home)).toEqual(homeBefore);
    expect(readdirSync(tmp).filter((name) => name.startsWith("pi-quests-test-"))).toEqual([]);
  });
});

describe("pi-quests test, one quest, for CI", () => {
  it("--reporter junit: one testcase a play, named QUEST/PLAY, a wrong outcome a failure", async () => {
    const run = await runCli(["test", FIXTURE, "--quest", "hello", "--reporter", "junit"], {
      timeoutMs: 120_000,
    });
    expect(run.exitCode).toBe(1);
    const xml = new XMLParser({ ignoreAttributes: false, attributeNamePrefix: "" }).parse(run.stdout);
    const cases = [xml.testsuites.testsuite.testcase].flat() as { name: string; failure?: unknown }[];
    expect(cases.map((testcase) => [testcase.name, testcase.failure !== undefined])).toEqual([
      ["hello/pass", false],
      ["hello/fail-wrong", true],
    ]);
  }, 130_000);

  it("--reporter tap: TAP 14, one point a play", async () => {
    const run = await runCli(["test", FIXTURE, "--quest", "hello", "--reporter", "tap"], {
      timeoutMs: 120_000,
    });
    expect(run.exitCode).toBe(1);
    const points = Parser.parse(run.stdout).flatMap(([kind, point]) =>
      kind === "assert" ? [point as { ok: boolean; name: string }] : [],
    );
    expect(points.map((point) => [point.name, point.ok])).toEqual([
      ["hello/pass", true],
      ["hello/fail-wrong", false],
    ]);
    expect(run.stdout.startsWith("TAP version 14\n")).toBe(true);
  }, 130_000);
});

describe("pi-quests test, honest ways and the advised order (fixtures/packs/advised-order)", () => {
  const PACK = join(REPO, "fixtures/packs/advised-order");
  type Row = [string, string, string, boolean];
  const rows = (stdout: string): Row[] =>
    (JSON.parse(stdout) as { plays: JsonPlay[] }).plays.map((play) => [
      `${play.quest}/${play.play}`,
      play.expected,
      play.outcome,
      play.ok,
    ]);

  it("plays every pass-<name> play as a way that must complete its quest, each after its requires only", async () => {
    const run = await runCli(["test", PACK, "--reporter", "json", "--jobs", "2"], { timeoutMs: 120_000 });
    expect(rows(run.stdout)).toEqual([
      ["leave/pass", "complete", "complete", true],
      ["clean/pass", "complete", "complete", true],
      ["after/pass-other-words", "complete", "complete", true],
      ["after/pass-two-messages", "complete", "complete", true],
    ]);
    // A quest proven only by pass-<name> plays still has no pass.yaml, as the contract counts it.
    expect(JSON.parse(run.stdout).unproven).toEqual(["after"]);
    expect(run.exitCode).toBe(0);
  }, 130_000);

  it("--quest, repeated, plays those quests' plays (each after its requires), and reports only them", async () => {
    const run = await runCli(["test", PACK, "--quest", "leave", "--quest", "after", "--reporter", "json"], {
      timeoutMs: 120_000,
    });
    expect(rows(run.stdout)).toEqual([
      ["leave/pass", "complete", "complete", true],
      ["after/pass-other-words", "complete", "complete", true],
      ["after/pass-two-messages", "complete", "complete", true],
    ]);
    expect(run.exitCode).toBe(0);
  }, 130_000);

  it("--advised-order plays each quest after every quest before it, in one workspace: a leftover blocks, and what comes after is not played", async () => {
    const run = await runCli(["test", PACK, "--advised-order", "--reporter", "json"], { timeoutMs: 120_000 });
    expect(rows(run.stdout)).toEqual([
      ["leave/pass", "complete", "complete", true],
      ["clean/pass", "complete", "not complete", false],
      ["after/pass-other-words", "complete", "error", false],
    ]);
    const after = (JSON.parse(run.stdout) as { plays: JsonPlay[] }).plays[2];
    expect(after?.reason).toBe("not played: clean/pass, earlier in the pack's order, ended not complete");
    expect(run.exitCode).toBe(1);
  }, 130_000);

  it("--advised-order with --quest plays the quests before it too, and reports the one asked", async () => {
    const run = await runCli(["test", PACK, "--advised-order", "--quest", "clean", "--reporter", "json"], {
      timeoutMs: 120_000,
    });
    expect(rows(run.stdout)).toEqual([["clean/pass", "complete", "not complete", false]]);
    expect(run.exitCode).toBe(1);
  }, 130_000);
});

describe("pi-quests test, invalid input: exit 3 and nothing played", () => {
  it("a play file with errors is reported with file:line:col", async () => {
    const pack = join(makeWorkspace(), "pack");
    cpSync(FIXTURE, pack, { recursive: true });
    writeFileSync(
      join(pack, "solutions/hello/pass.yaml"),
      "version: 1\nsteps:\n  - prompt: hi\n    model:\n      - tool: write\n",
    );
    const run = await runCli(["test", pack]);
    expect(run.exitCode).toBe(3);
    expect(run.stderr).toBe(
      `${join(pack, "solutions/hello/pass.yaml")}:5:9: steps[0].model[0]: a tool reply needs args ({} for none)`,
    );
    expect(run.stdout).toBe("");
  });

  it("an unknown --quest, a bad --jobs or --reporter, a Pi that is not there, and a Pi older than the supported range", async () => {
    const cases: [string[], Record<string, string>, RegExp][] = [
      [
        ["--quest", "nope"],
        {},
        /no quest "nope" in .*; its quests: hello, notes, confirm, never, unproven, session, steer/,
      ],
      [["--jobs", "0"], {}, /--jobs is a whole number from 1 to 64, not "0"/],
      [["--reporter", "xml"], {}, /--reporter is one of text, json, junit, tap, not "xml"/],
      [[], { PI_QUESTS_PI: "/nowhere/cli.js" }, /PI_QUESTS_PI=\/nowhere\/cli.js is not Pi/],
      [
        [],
        { PI_QUESTS_PI: piClaiming("1.4.0").cli },
        /^pi-quests test: pi-quests supports Pi 1\.5 and 1\.6 \(1\.5\.0 or later\), not Pi 1\.4\.0 \(.*\): update it/,
      ],
    ];
    for (const [flags, env, message] of cases) {
      const run = await runCli(["test", FIXTURE, ...flags], { env });
      expect(run.exitCode, flags.join(" ")).toBe(3);
      expect(run.stderr).toMatch(message);
    }
  });
});

describe("pi-quests lint, on a pack with plays", () => {
  it("counts the plays when they are valid, and reports a play's errors as the quests' are", async () => {
    expect(await runCli(["lint", FIXTURE])).toMatchObject({
      exitCode: 0,
      stdout: "7 quest(s) and 11 play(s) valid",
    });
    const pack = join(makeWorkspace(), "pack");
    cpSync(FIXTURE, pack, { recursive: true });
    mkdirSync(join(pack, "solutions/helo"));
    writeFileSync(join(pack, "solutions/helo/pass.yaml"), "version: 1\nsteps: []\n");
    writeFileSync(
      join(pack, "solutions/hello/fail-x.yaml"),
      "version: 1\nsteps:\n  - bash: ls\n    prompt: hi\n",
    );
    const run = await runCli(["lint", pack]);
    expect(run.exitCode).toBe(3);
    expect(run.stderr.split("\n")).toEqual([
      `${join(pack, "solutions/hello/fail-x.yaml")}:3:5: steps[0]: a step is exactly one of prompt, steer, follow_up, abort, bash, command, confirm, shell (found prompt and bash); make each its own step`,
      `${join(pack, "solutions/helo")}: names no quest of this pack; quests: hello, notes, confirm, never, unproven, session, steer`,
    ]);
  });
});
