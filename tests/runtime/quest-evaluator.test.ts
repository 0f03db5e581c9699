/**
 * Who judges an evaluator's reviews: the real folder of Pi's package and the real file its SDK
 * was imported from. A review's receipt answers only for the same judge
 * (tests/runtime/reviewer.test.ts), so a fake SDK the agent placed inside Pi's own folder is
 * another judge than the learner's Pi. And an unchanged workspace answered with one look: a
 * receipt chosen with the fingerprint the files last had, then the files looked at, and the
 * evaluation made again when they changed.
 */
import { realpathSync, symlinkSync, writeFileSync } from "node:fs";
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
