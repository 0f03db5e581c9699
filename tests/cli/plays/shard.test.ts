/**
 * `--shard K/N`: K/N read strictly; the chains split so that every play is in exactly one shard,
 * whole, the same way every time, chains that share requirements together, the work balanced;
 * more shards than chains leave some empty.
 */
import { describe, expect, it } from "vitest";
import { type PlayChain, planChains } from "../../../src/cli/plays/plan.ts";
import { assignShards, chainsOfShard, parseShard } from "../../../src/cli/plays/shard.ts";
import { emptyPlay } from "../../support/plays.ts";

/** A pack of 12 quests in a few chains of requirements, with 1 to 4 plays a quest. */
function pack() {
  const quests = Array.from({ length: 12 }, (_, i) => ({
    id: `q${i}`,
    requires: i === 0 || i === 6 ? [] : i % 3 === 0 ? [`q${i - 3}`] : [`q${i - 1}`],
  }));
  const plays = quests.flatMap((quest, i) => [
    emptyPlay(quest.id, "pass"),
    ...Array.from({ length: i % 4 }, (_, n) => emptyPlay(quest.id, n % 2 ? `fail-${n}` : `pass-${n}`)),
  ]);
  return { quests, plays, chains: planChains(quests, plays) };
}

const nameOf = (chain: PlayChain) => `${chain.play.quest}/${chain.play.name}`;
const runsOf = (chains: readonly PlayChain[]) =>
  chains.reduce((sum, chain) => sum + 1 + (chain.kind === "runnable" ? chain.before.length : 0), 0);

describe("parseShard", () => {
  it("reads K/N with 1 <= K <= N", () => {
    expect(parseShard("1/1")).toEqual({ ok: true, shard: { index: 1, count: 1 } });
    expect(parseShard("3/4")).toEqual({ ok: true, shard: { index: 3, count: 4 } });
  });

  it.each(["0/2", "3/2", "2", "1/0", "-1/2", "1.5/2", "a/b", "1/2/3", "", "01/2"])(
    "refuses %j with a sentence saying what K/N is",
    (text) => {
      expect(parseShard(text)).toEqual({
        ok: false,
        message: `--shard is K/N, two whole numbers with 1 <= K <= N (e.g. --shard 2/4), not "${text}"`,
      });
    },
  );
});

describe("assignShards", () => {
  it("deals the largest first to the least loaded shard, the lowest on a tie", () => {
    // 5 to shard 1; 3 and 3 to shard 2; then 1 each, shard 1 first (6 and 6), the tie to shard 1.
    expect(assignShards([1, 5, 3, 3, 1], 2)).toEqual([1, 1, 2, 2, 1]);
    expect(assignShards([2, 2, 2], 5)).toEqual([1, 2, 3]);
  });
});

describe("chainsOfShard", () => {
  it("puts every play in exactly one shard, its chain whole, for every N", () => {
    const { chains } = pack();
    for (let count = 1; count <= 8; count++) {
      const shards = Array.from({ length: count }, (_, k) => chainsOfShard(chains, { index: k + 1, count }));
      const names = shards.flat().map(nameOf);
      expect(names.toSorted()).toEqual(chains.map(nameOf).toSorted());
      expect(new Set(names).size).toBe(chains.length);
      // A chain is the object planned, not a part of one: its requirements come with it.
      for (const chain of shards.flat()) expect(chains).toContain(chain);
    }
  });

  it("keeps each shard's chains in the order given", () => {
    const { chains } = pack();
    for (let k = 1; k <= 3; k++) {
      const mine = chainsOfShard(chains, { index: k, count: 3 });
      const positions = mine.map((chain) => chains.indexOf(chain));
      expect(positions).toEqual(positions.toSorted((a, b) => a - b));
    }
  });

  it("splits the same way every time, from a pack planned again", () => {
    const split = () =>
      Array.from({ length: 4 }, (_, k) =>
        chainsOfShard(pack().chains, { index: k + 1, count: 4 }).map(nameOf),
      );
    const first = split();
    expect(split()).toEqual(first);
    expect(first.every((names) => names.length > 0)).toBe(true);
  });

  it("balances the work: no shard has more than the lightest plus one group's runs", () => {
    const { chains } = pack();
    const loads = Array.from({ length: 3 }, (_, k) =>
      runsOf(chainsOfShard(chains, { index: k + 1, count: 3 })),
    );
    // With the shared requirements played once a group the spread is smaller; chains counted whole
    // here overstate it, so this bound is loose but fails for a split that ignores the work.
    expect(Math.max(...loads) - Math.min(...loads)).toBeLessThanOrEqual(runsOf(chains) / 3);
  });

  it("keeps chains that share their requirements in one shard when their group is small", () => {
    const quests = [
      { id: "a", requires: [] },
      { id: "b", requires: ["a"] },
      { id: "c", requires: [] },
      { id: "d", requires: [] },
    ];
    const plays = [
      emptyPlay("a", "pass"),
      emptyPlay("b", "pass"),
      emptyPlay("b", "fail-x"),
      emptyPlay("c", "pass"),
      emptyPlay("d", "pass"),
    ];
    const chains = planChains(quests, plays);
    const shardOf = (name: string) =>
      [1, 2].find((index) =>
        chainsOfShard(chains, { index, count: 2 }).some((chain) => nameOf(chain) === name),
      );
    expect(shardOf("b/pass")).toBe(shardOf("b/fail-x"));
  });

  it("cuts a group larger than a shard's share, so that two shards share its plays", () => {
    const quests = [
      { id: "a", requires: [] },
      { id: "b", requires: ["a"] },
    ];
    const plays = [
      emptyPlay("a", "pass"),
      emptyPlay("b", "pass"),
      ...["x", "y", "z", "w", "v"].map((name) => emptyPlay("b", `fail-${name}`)),
    ];
    const chains = planChains(quests, plays);
    const sizes = [1, 2].map((index) => chainsOfShard(chains, { index, count: 2 }).length);
    expect(sizes.every((size) => size >= 3)).toBe(true);
  });

  it("leaves the shards past the number of chains empty", () => {
    const { chains } = planChainsOf(["a", "b"]);
    const shards = Array.from({ length: 5 }, (_, k) => chainsOfShard(chains, { index: k + 1, count: 5 }));
    expect(shards.map((shard) => shard.length)).toEqual([1, 1, 0, 0, 0]);
  });

  it("places a play that cannot run (its requirement has no pass play) in one shard too", () => {
    const quests = [
      { id: "a", requires: [] },
      { id: "b", requires: ["a"] },
    ];
    const chains = planChains(quests, [emptyPlay("a", "fail-x"), emptyPlay("b", "pass")]);
    expect(chains[1]?.kind).toBe("unplayable");
    const placed = [1, 2, 3].flatMap((index) => chainsOfShard(chains, { index, count: 3 }).map(nameOf));
    expect(placed.toSorted()).toEqual(["a/fail-x", "b/pass"]);
  });
});

function planChainsOf(ids: readonly string[]) {
  const quests = ids.map((id) => ({ id, requires: [] }));
  return {
    chains: planChains(
      quests,
      ids.map((id) => emptyPlay(id, "pass")),
    ),
  };
}
