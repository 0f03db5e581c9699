/**
 * Who judges an evaluator's reviews: the real folder of Pi's package and the real file its SDK
 * was imported from. A review's receipt answers only for the same judge
 * (tests/runtime/reviewer.test.ts), so a fake SDK the agent placed inside Pi's own folder is
 * another judge than the learner's Pi. And an unchanged workspace answered with one look: a
 * receipt chosen with the fingerprint the files last had, then the files looked at, and the
 * evaluation made again when they changed.
 */
import { existsSync, lstatSync, readdirSync, realpathSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { recordableFileSystem } from "../../src/receipts/fingerprint.ts";
import { reviewerOf } from "../../src/runtime/quest-evaluator.ts";
import type { QuestResult } from "../../src/verifier/results.ts";
import { evaluatorFor } from "../support/command-quest.ts";
import { NARROW, pastRacyWindow } from "../support/stat-record.ts";
import { dataDirOutside, makeRepo } from "../support/task-verifier.ts";
import { makeWorkspace, removeWorkspaces } from "../support/workspace.ts";

afterEach(removeWorkspaces);

describe("the judge of an evaluator's reviews", () => {
  it("is Pi's folder and its SDK file: another SDK file in Pi's own folder is another judge", async () => {
    const pi = realpathSync(makeWorkspace({ "dist/bundle/index.js": "", "dist/evil/index.js": "" }));
    const real = await reviewerOf({ piPackage: pi, piSdkFile: join(pi, "dist/bundle/index.js") });
    const planted = await reviewerOf({ piPackage: pi, piSdkFile: join(pi, "dist/evil/index.js") });
    expect(real).toBeDefined();
    expect(planted).not.toBe(real);
    expect(await reviewerOf({ piPackage: pi })).not.toBe(real);
  });

  it("is the same through links to the same files, and none when nothing of Pi is known", async () => {
    const pi = realpathSync(makeWorkspace({ "dist/bundle/index.js": "" }));
    const links = makeWorkspace();
    symlinkSync(pi, join(links, "pi"));
    const direct = await reviewerOf({ piPackage: pi, piSdkFile: join(pi, "dist/bundle/index.js") });
    const linked = await reviewerOf({
      piPackage: join(links, "pi"),
      piSdkFile: join(links, "pi", "dist/bundle/index.js"),
    });
    expect(linked).toBe(direct);
    expect(await reviewerOf({})).toBeUndefined();
  });
});

describe("an unchanged workspace, answered with one look", () => {
  /** A repository whose check passes while hello.txt says hello, and an evaluator of it with the racy window narrowed. */
  async function evaluatorOf() {
    const workspace = makeRepo({ "hello.txt": "hello\n", "test/says.sh": "grep -q hello hello.txt\n" });
    const evaluate = await evaluatorFor(workspace, dataDirOutside(), "bash test/says.sh", {
      statRecord: NARROW,
    });
    return { workspace, evaluate: () => evaluate({ events: [] }) };
  }
  const reused = (result: QuestResult) => {
    const evidence = result.checks[0]?.evidence;
    return evidence?.kind === "command" ? evidence.receipt?.reused : undefined;
  };

  it.runIf(recordableFileSystem(tmpdir()))(
    "a file edited since the last look: the check runs again (the receipt the presumption chose is not reported stale)",
    async () => {
      const { workspace, evaluate } = await evaluatorOf();
      expect(await evaluate()).toMatchObject({ status: "pass" });
      // Past the racy window, a look leaves a stat record; the next evaluation presumes its fingerprint.
      await pastRacyWindow();
      const recorded = await evaluate();
      expect([recorded.status, reused(recorded)]).toEqual(["pass", true]);
      const presumed = await evaluate();
      expect([presumed.status, reused(presumed)]).toEqual(["pass", true]);

      writeFileSync(join(workspace, "hello.txt"), "bye\n");
      const edited = await evaluate();
      expect([edited.status, reused(edited)]).toEqual(["fail", false]);
      expect(edited.checks[0]?.evidence).toMatchObject({ kind: "command", exitCode: 1 });
    },
    60_000,
  );
});

/**
 * A workspace evaluated right after its files were written (a sandbox when its quest starts):
 * each evaluator is a new process's (`pi-quests check`), sharing the data dir's stat cache.
 */
describe.runIf(recordableFileSystem(tmpdir()))("a workspace evaluated right after it was written", () => {
  const reused = (result: QuestResult) => {
    const evidence = result.checks[0]?.evidence;
    return evidence?.kind === "command" ? evidence.receipt?.reused : undefined;
  };
  /** A new evaluator (a new process) of the check that passes while hello.txt says hello. */
  const evaluation = (workspace: string, dataDir: string) => async () =>
    (await evaluatorFor(workspace, dataDir, "bash test/says.sh", { statRecord: NARROW }))({ events: [] });
  const written = () => makeRepo({ "hello.txt": "hello\n", "test/says.sh": "grep -q hello hello.txt\n" });

  it("past the racy window one evaluation renews the stat cache; later ones answer from it and never write it again", async () => {
    const workspace = written();
    const dataDir = dataDirOutside();
    const evaluate = evaluation(workspace, dataDir);
    const first = await evaluate();
    expect([first.status, reused(first)]).toEqual(["pass", false]);
    // The workspace's folder in the data dir (src/core/workspace-key.ts), made by the first evaluation.
    const [home] = readdirSync(join(dataDir, "workspaces"));
    const cache = join(dataDir, "workspaces", home ?? "", "stat-cache.pi");
    expect(existsSync(cache)).toBe(false);
    await pastRacyWindow();
    const renewal = await evaluate();
    expect([renewal.status, reused(renewal)]).toEqual(["pass", true]);
    const renewed = lstatSync(cache);
    for (let i = 0; i < 2; i++) {
      const later = await evaluate();
      expect([later.status, reused(later)]).toEqual(["pass", true]);
    }
    // A look that took the full path would have replaced the file (a new one renamed in its place).
    const now = lstatSync(cache);
    expect([now.ino, now.mtimeMs]).toEqual([renewed.ino, renewed.mtimeMs]);
  }, 60_000);

  it("one evaluator (the extension's): a file edited after the first evaluation, within the window, is seen; the check runs again and fails", async () => {
    const workspace = written();
    const evaluator = await evaluatorFor(workspace, dataDirOutside(), "bash test/says.sh", {
      statRecord: NARROW,
    });
    const evaluate = () => evaluator({ events: [] });
    expect(await evaluate()).toMatchObject({ status: "pass" });
    await pastRacyWindow();
    // The same size: the other files are past the window, this one is not.
    writeFileSync(join(workspace, "hello.txt"), "HELLO\n");
    const edited = await evaluate();
    expect([edited.status, reused(edited)]).toEqual(["fail", false]);
    await pastRacyWindow();
    const renewal = await evaluate();
    expect([renewal.status, reused(renewal)]).toEqual(["fail", true]);
  }, 60_000);
});

/**
 * Whose receipts answer an evaluator (src/receipts/writers.ts): `pi-quests check`'s never answer
 * a Pi session's evaluator, and a process whose start is not trusted keeps its own in memory.
 */
describe("whose receipts answer", () => {
  const reused = (result: QuestResult) => {
    const evidence = result.checks[0]?.evidence;
    return evidence?.kind === "command" ? evidence.receipt?.reused : undefined;
  };
  const project = () => makeRepo({ "hello.txt": "hello\n", "test/says.sh": "grep -q hello hello.txt\n" });

  it("a receipt the CLI wrote does not answer a Pi session's evaluator; each writer's own does", async () => {
    const workspace = project();
    const dataDir = dataDirOutside();
    const as = (writer: "pi" | "cli") => evaluatorFor(workspace, dataDir, "bash test/says.sh", { writer });
    const cli = await (await as("cli"))({ events: [] });
    expect([cli.status, reused(cli)]).toEqual(["pass", false]);
    const cliAgain = await (await as("cli"))({ events: [] });
    expect([cliAgain.status, reused(cliAgain)]).toEqual(["pass", true]);
    const pi = await (await as("pi"))({ events: [] });
    expect([pi.status, reused(pi)]).toEqual(["pass", false]);
    const again = await (await as("pi"))({ events: [] });
    expect([again.status, reused(again)]).toEqual(["pass", true]);
    const [home = ""] = readdirSync(join(dataDir, "workspaces"));
    expect(readdirSync(join(dataDir, "workspaces", home, "receipts")).sort()).toEqual(["cli", "pi"]);
  }, 60_000);

  it("receipts in memory: the evaluator answers again from its own run, and leaves no receipt or stat cache", async () => {
    const workspace = project();
    const dataDir = dataDirOutside();
    const evaluate = await evaluatorFor(workspace, dataDir, "bash test/says.sh", { receiptsInMemory: true });
    const first = await evaluate({ events: [] });
    expect([first.status, reused(first)]).toEqual(["pass", false]);
    const second = await evaluate({ events: [] });
    expect([second.status, reused(second)]).toEqual(["pass", true]);
    const [home = ""] = existsSync(join(dataDir, "workspaces"))
      ? readdirSync(join(dataDir, "workspaces"))
      : [];
    const kept = home ? readdirSync(join(dataDir, "workspaces", home)) : [];
    expect(kept.filter((name) => name === "receipts" || name.startsWith("stat-cache"))).toEqual([]);
    const later = await (await evaluatorFor(workspace, dataDir, "bash test/says.sh", { writer: "pi" }))({
      events: [],
    });
    expect([later.status, reused(later)]).toEqual(["pass", false]);
  }, 60_000);
});
