/**
 * Which runs of Pi a play needs. A play starts where a learner would: the quests its quest
 * requires already complete, in the same workspace. So each play is a chain: the pass plays of
 * every quest it requires, transitively, in pack order (a quest's `pass.yaml`, else its first
 * `pass-<name>.yaml`), then the play itself. Chains share nothing, so they can run side by side.
 */
import { completingPlay, type Play } from "../../verifier/play.ts";

type QuestLinks = { id: string; requires: readonly string[] };

export type PlayChain =
  | { kind: "runnable"; play: Play; before: Play[] }
  /** A required quest has no pass play, so the play cannot start where a learner would. */
  | { kind: "unplayable"; play: Play; reason: string };

/**
 * The pack's advised order as one chain: each quest's completing play (its pass play), in pack
 * order, in one workspace, up to the last quest `wanted`. Each quest is then played after every
 * quest before it, as by a learner who follows the pack's order, not only after its `requires`:
 * what an earlier quest left behind (a setting, a file, a commit) must never block a later one.
 * Quests without a pass play are left out (the runner reports them unproven).
 */
export function planAdvisedOrder(
  quests: readonly Pick<QuestLinks, "id">[],
  plays: readonly Play[],
  wanted: (quest: string) => boolean,
): Play[] {
  const last = quests.findLastIndex((quest) => wanted(quest.id));
  return quests.slice(0, last + 1).flatMap((quest) => {
    const play = completingPlay(plays, quest.id);
    return play ? [play] : [];
  });
}

export function planChains(quests: readonly QuestLinks[], plays: readonly Play[]): PlayChain[] {
  const byId = new Map(quests.map((quest) => [quest.id, quest]));
  const passOf = new Map(
    quests.flatMap((quest) => {
      const play = completingPlay(plays, quest.id);
      return play ? [[quest.id, play] as const] : [];
    }),
  );
  return plays.map((play) => {
    const required = requiredInPackOrder(play.quest, byId, quests);
    const missing = required.filter((id) => !passOf.has(id));
    if (missing.length > 0)
      return {
        kind: "unplayable",
        play,
        reason: `it requires ${missing.join(", ")}, which has no solutions/${missing[0]}/pass.yaml (or pass-<name>.yaml) to complete it first`,
      };
    return { kind: "runnable", play, before: required.map((id) => passOf.get(id) as Play) };
  });
}

/** What chains that require the same quests have in common: the plays that complete them. */
export function requirementsKey(before: readonly Play[]): string {
  return before.map((play) => play.source).join("\n");
}

/** Every quest `quest` requires, directly or not, in the pack's order. */
function requiredInPackOrder(
  quest: string,
  byId: ReadonlyMap<string, QuestLinks>,
  quests: readonly QuestLinks[],
): string[] {
  const needed = new Set<string>();
  const visit = (id: string) => {
    for (const required of byId.get(id)?.requires ?? []) {
      if (needed.has(required)) continue;
      needed.add(required);
      visit(required);
    }
  };
  visit(quest);
  needed.delete(quest);
  return quests.map((q) => q.id).filter((id) => needed.has(id));
}
