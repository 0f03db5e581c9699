/**
 * A failing play explains itself (issue 27, item 9), in the real Pi: fixtures/packs/wrong-edit's
 * `pass-wrong-text` play scripts an `edit` whose oldText is not in the file, so the quest is not
 * complete, and the report says which step went wrong and why, in the edit tool's own words;
 * `--keep` keeps each play's folders under the play's name.
 */
import { readdirSync, rmSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { REPO, runCli } from "../support/cli.ts";
import { makeWorkspace } from "../support/workspace.ts";

const PACK = join(REPO, "fixtures/packs/wrong-edit");
const EDIT_ERROR =
  "Could not find the exact text in src/sum.js. The old text must match exactly including all whitespace and newlines.";

type JsonPlay = {
  play: string;
  ok: boolean;
  outcome: string;
  reason?: string;
  failedTools?: { step: string; tool: string; error: string }[];
};

describe("pi-quests test: a pass play whose edit fails", () => {
  let run: Awaited<ReturnType<typeof runCli>>;
  let kept: string | undefined;

  beforeAll(async () => {
    run = await runCli(["test", PACK, "--reporter", "json", "--keep", "--jobs", "2"], {
      env: { TMPDIR: makeWorkspace() },
      timeoutMs: 170_000,
    });
    kept = /kept in (\S+)/.exec(run.stderr)?.[1];
  }, 180_000);
  afterAll(() => {
    if (kept) rmSync(kept, { recursive: true, force: true });
  });

  it("names the step and gives the tool's own error, as the reason and in failedTools", () => {
    expect(run.exitCode).toBe(1);
    const plays = (JSON.parse(run.stdout) as { plays: JsonPlay[] }).plays;
    expect(plays.map((play) => [play.play, play.outcome, play.ok])).toEqual([
      ["pass", "complete", true],
      ["pass-wrong-text", "not complete", false],
    ]);
    const wrong = plays[1];
    const step = 'step 1 (prompt "Fix sum in src/sum.js")';
    expect(wrong?.reason).toBe(`${step}: edit failed: ${EDIT_ERROR}`);
    expect(wrong?.failedTools).toEqual([{ step, tool: "edit", error: EDIT_ERROR }]);
    expect(plays[0]?.failedTools).toBeUndefined();
  });

  it("--keep keeps each play's folders under the play's name", () => {
    expect(kept).toBeDefined();
    expect(readdirSync(kept as string).sort()).toEqual(["fix-sum--pass", "fix-sum--pass-wrong-text"]);
    expect(readdirSync(join(kept as string, "fix-sum--pass-wrong-text")).sort()).toEqual([
      "agent",
      "bin",
      "home",
      "workspace",
    ]);
  });
});
