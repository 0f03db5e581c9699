/**
 * Which runs of Pi a play needs. A play starts where a learner would: the quests its quest
 * requires already complete, in the same workspace. So each play is a chain: the pass plays of
 * every quest it requires, transitively, in pack order, then the play itself. Chains share
 * nothing, so they can run side by side.
 */
import type { Play } from "../../verifier/play.ts";

type QuestLinks = { id: string; requires: readonly string[] };

export type PlayChain =
  | { kind: "runnable"; play: Play; before: Play[] }
  /** A required quest has no pass play, so the play cannot start where a learner would. */
  | { kind: "unplayable"; play: Play; reason: string };

export function planChains(quests: readonly QuestLinks[], plays: readonly Play[]): PlayChain[] {
  const byId = new Map(quests.map((quest) => [quest.id, quest]));
  const passOf = new Map(plays.filter((play) => play.name === "pass").map((play) => [play.quest, play]));
  return plays.map((play) => {
    const required = requiredInPackOrder(play.quest, byId, quests);
    const missing = required.filter((id) => !passOf.has(id));
    if (missing.length > 0)
      return {
        kind: "unplayable",
        play,
        reason: `it requires ${missing.join(", ")}, which has no solutions/${missing[0]}/pass.yaml to complete it first`,
      };
    return { kind: "runnable", play, before: required.map((id) => passOf.get(id) as Play) };
  });
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
