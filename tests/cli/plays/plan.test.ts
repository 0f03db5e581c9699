/** Which Pi runs each play needs: the pass plays of its quest's requirements first, in pack order. */
import { describe, expect, it } from "vitest";
import { planChains } from "../../../src/cli/plays/plan.ts";
import type { Play } from "../../../src/verifier/play.ts";
import { emptyPlay } from "../../support/plays.ts";

const play = emptyPlay;

const QUESTS = [
  { id: "prompt", requires: [] },
  { id: "file", requires: ["prompt"] },
  { id: "commit", requires: ["file"] },
  { id: "branch", requires: ["prompt", "commit"] },
];

const names = (plays: Play[]) => plays.map((p) => `${p.quest}/${p.name}`);

describe("planChains", () => {
  it("plays the pass plays of every quest required, transitively, in pack order, before the play", () => {
    const plays = [
      play("prompt", "pass"),
      play("file", "pass"),
      play("commit", "pass"),
      play("branch", "fail-x"),
    ];
    const chains = planChains(QUESTS, plays);
    expect(chains.map((chain) => (chain.kind === "runnable" ? names(chain.before) : chain.reason))).toEqual([
      [],
      ["prompt/pass"],
      ["prompt/pass", "file/pass"],
      ["prompt/pass", "file/pass", "commit/pass"],
    ]);
  });

  it("cannot play a quest whose requirement has no pass play, and says which", () => {
    const [chain] = planChains(QUESTS.slice(0, 2), [play("file", "pass")]);
    expect(chain).toEqual({
      kind: "unplayable",
      play: play("file", "pass"),
      reason:
        "it requires prompt, which has no solutions/prompt/pass.yaml (or pass-<name>.yaml) to complete it first",
    });
  });

  it("completes a requirement with its pass play, else its first pass-<name> play, never a fail play", () => {
    const plays = [
      play("prompt", "fail-silent"),
      play("prompt", "pass-greeting"),
      play("prompt", "pass-question"),
      play("file", "pass-heredoc"),
      play("file", "pass"),
      play("commit", "pass-two-commits"),
    ];
    const chains = planChains(QUESTS.slice(0, 3), plays);
    expect(
      chains.map((chain) => [
        `${chain.play.quest}/${chain.play.name}`,
        chain.kind === "runnable" ? names(chain.before) : chain.reason,
      ]),
    ).toEqual([
      ["prompt/fail-silent", []],
      ["prompt/pass-greeting", []],
      ["prompt/pass-question", []],
      ["file/pass-heredoc", ["prompt/pass-greeting"]],
      ["file/pass", ["prompt/pass-greeting"]],
      ["commit/pass-two-commits", ["prompt/pass-greeting", "file/pass"]],
    ]);
  });
});
