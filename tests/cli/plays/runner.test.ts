/**
 * How `pi-quests test` lays its chains out on the jobs (runner.ts shareRequirements): chains that
 * require the same quests share one run of the requirements, and a group is split over the jobs so
 * the plays still run side by side; a chain with nothing required, or alone with its requirements,
 * runs as it is.
 */
import { describe, expect, it } from "vitest";
import type { PlayChain } from "../../../src/cli/plays/plan.ts";
import { shareRequirements } from "../../../src/cli/plays/runner.ts";
import type { Play } from "../../../src/verifier/play.ts";
import { emptyPlay } from "../../support/plays.ts";

const play = emptyPlay;
const runnable = (before: Play[], the: Play): PlayChain => ({ kind: "runnable", play: the, before });

const prompt = play("prompt", "pass");
const file = play("file", "pass");

/** Each run as the names it plays: its requirements (if shared), then its plays. */
function layout(chains: PlayChain[], jobs: number): string[] {
  return shareRequirements(chains, jobs).map((run) => {
    const name = (p: Play) => `${p.quest}/${p.name}`;
    switch (run.kind) {
      case "shared":
        return `[${run.before.map(name).join(", ")}] then ${run.plays.map(name).join(", ")}`;
      case "sequence":
        return `sequence ${run.plays.map(name).join(", ")}`;
      default:
        return `${run.kind} ${name(run.play)}`;
    }
  });
}

describe("shareRequirements", () => {
  it("plays the same requirements once for every chain that needs them, split over the jobs", () => {
    const chains = [
      runnable([], prompt),
      runnable([prompt], play("file", "pass-a")),
      runnable([prompt], play("file", "pass-b")),
      runnable([prompt], play("file", "fail-c")),
      runnable([prompt, file], play("commit", "pass")),
      { kind: "unplayable", play: play("gate", "pass"), reason: "no pass play" } as const,
    ];
    expect(layout(chains, 1)).toEqual([
      "runnable prompt/pass",
      "unplayable gate/pass",
      "[prompt/pass] then file/pass-a, file/pass-b, file/fail-c",
      "runnable commit/pass",
    ]);
    expect(layout(chains, 2)).toEqual([
      "runnable prompt/pass",
      "unplayable gate/pass",
      "[prompt/pass] then file/pass-a, file/fail-c",
      "[prompt/pass] then file/pass-b",
      "runnable commit/pass",
    ]);
  });

  it("never makes more parts than a group has plays", () => {
    const chains = [runnable([prompt], play("file", "pass")), runnable([prompt], play("file", "fail-x"))];
    expect(layout(chains, 8)).toEqual(["[prompt/pass] then file/pass", "[prompt/pass] then file/fail-x"]);
  });
});
