/**
 * `pi-quests test --shard K/N`: which runs shard K of N plays. A run is never split: a chain (a
 * play and the pass plays of what it requires) is played whole in one shard, and the advised
 * order, one chain, whole in shard 1. Chains that require the same quests (the runner plays
 * their requirements once for all of them, `shareRequirements`) go to one shard together, unless
 * the group alone is more than a shard's share, then it is cut into even parts. The parts are
 * dealt largest first to the shard with the least work so far, counted in runs of Pi: a
 * deterministic split that depends only on the pack and the options, never on the machine.
 */
import type { PlayChain } from "./plan.ts";
import { requirementsKey } from "./plan.ts";

/** Shard `index` (1-based) of `count`. */
export type Shard = { index: number; count: number };

/** `K/N`, both whole numbers, 1 <= K <= N; else a sentence saying what is expected. */
export function parseShard(text: string): { ok: true; shard: Shard } | { ok: false; message: string } {
  const match = /^([1-9][0-9]{0,5})\/([1-9][0-9]{0,5})$/.exec(text.trim());
  const index = Number(match?.[1]);
  const count = Number(match?.[2]);
  if (!match || index > count)
    return {
      ok: false,
      message: `--shard is K/N, two whole numbers with 1 <= K <= N (e.g. --shard 2/4), not "${text}"`,
    };
  return { ok: true, shard: { index, count } };
}

/**
 * The shard (1-based) of each unit, given each unit's work: largest first (the earlier unit on
 * a tie) to the shard with the least work so far (the lowest on a tie).
 */
export function assignShards(weights: readonly number[], count: number): number[] {
  const load = new Array<number>(count).fill(0);
  const shardOf = new Array<number>(weights.length).fill(1);
  const order = weights.map((weight, index) => ({ weight, index }));
  order.sort((a, b) => b.weight - a.weight || a.index - b.index);
  for (const { weight, index } of order) {
    const lightest = load.indexOf(Math.min(...load));
    shardOf[index] = lightest + 1;
    load[lightest] = (load[lightest] ?? 0) + weight;
  }
  return shardOf;
}

/** The chains shard `shard` plays, in the order given (pack order). */
export function chainsOfShard<C extends PlayChain>(chains: readonly C[], shard: Shard): C[] {
  const units = shardUnits(chains, shard.count);
  const shards = assignShards(
    units.map((unit) => unit.weight),
    shard.count,
  );
  const mine = new Set(units.filter((_, i) => shards[i] === shard.index).flatMap((unit) => unit.chains));
  return chains.filter((chain) => mine.has(chain));
}

type Unit<C> = { chains: C[]; weight: number };

/**
 * The chains grouped as the runner shares their requirements, each group weighed in runs of Pi
 * (its requirements once, then each play); a group over a shard's share is cut in even parts,
 * as many as it needs, chain i going to part i mod parts.
 */
function shardUnits<C extends PlayChain>(chains: readonly C[], count: number): Unit<C>[] {
  const groups = new Map<string, C[]>();
  chains.forEach((chain, index) => {
    const key = chain.kind === "runnable" ? requirementsKey(chain.before) : `unplayable ${index}`;
    groups.set(key, [...(groups.get(key) ?? []), chain]);
  });
  const runsOf = (group: readonly C[]) => before(group) + group.length;
  const total = [...groups.values()].reduce((sum, group) => sum + runsOf(group), 0);
  const share = Math.max(1, total / count);
  return [...groups.values()].flatMap((group) => {
    const parts = Math.min(group.length, Math.ceil(runsOf(group) / share));
    return Array.from({ length: parts }, (_, part) => {
      const members = group.filter((_, i) => i % parts === part);
      return { chains: members, weight: runsOf(members) };
    });
  });
}

/** How many runs of Pi a group's shared requirements take (none for a play that cannot run). */
function before(group: readonly PlayChain[]): number {
  const first = group[0];
  return first?.kind === "runnable" ? first.before.length : 0;
}
