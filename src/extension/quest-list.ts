/**
 * `/quest list` and what Tab completion knows of each quest: where the learner stands with it,
 * grouped by chapter in pack order, with the minutes each takes and the minutes left. Pure: it
 * reads the session state, nothing else (the subcommand table, which loads while Pi starts,
 * imports it).
 */
import type { Quest } from "../verifier/quest.ts";
import type { QuestSessionState, Standing } from "./quest-session-state.ts";

/** A quest as Tab completion shows it. */
export type QuestSummary = {
  id: string;
  title: string;
  standing: Standing;
  /** For a locked quest, the quests it needs (done first). */
  needs?: readonly string[];
  minutes?: number;
  /** Whether the quest has a debrief (`/quest debrief ID` offers only those done that have one). */
  debrief: boolean;
};

export function questSummaries(session: QuestSessionState): QuestSummary[] {
  return session.pack.map((quest) => {
    const standing = session.standingOf(quest);
    return {
      id: quest.id,
      title: quest.title,
      standing,
      ...(standing === "locked" ? { needs: session.missingRequirements(quest) } : {}),
      ...(quest.minutes !== undefined ? { minutes: quest.minutes } : {}),
      debrief: quest.debrief !== undefined,
    };
  });
}

/** Where a quest stands, in words: `✓ done`, `▶ active`, `↷ skipped`, `locked: needs a, b`, `○ available`. */
export function standingText({ standing, needs }: Pick<QuestSummary, "standing" | "needs">): string {
  switch (standing) {
    case "done":
      return "✓ done";
    case "active":
      return "▶ active";
    case "skipped":
      return "↷ skipped";
    case "locked":
      return `locked: needs ${(needs ?? []).join(", ")}`;
    case "available":
      return "○ available";
    default:
      return unreachable(standing);
  }
}

/** The heading of the quests without a chapter, in a pack where other quests have one. */
export const OTHER_QUESTS = "Other quests";

type Chapter = { name: string | undefined; quests: Array<{ quest: Quest; position: number }> };

/** The pack's chapters in the order they first appear, each with its quests in pack order. */
function chaptersOf(pack: readonly Quest[]): Chapter[] {
  const chapters: Chapter[] = [];
  pack.forEach((quest, index) => {
    let chapter = chapters.find((each) => each.name === quest.chapter);
    if (!chapter) {
      chapter = { name: quest.chapter, quests: [] };
      chapters.push(chapter);
    }
    chapter.quests.push({ quest, position: index + 1 });
  });
  return chapters;
}

/**
 * `done/total done`, then the minutes of the quests not done (skipped and locked ones included:
 * what finishing them all takes), `+` when one of those has no estimate; no minutes when none of
 * the quests has one.
 */
function tally(session: QuestSessionState, quests: readonly Quest[]): string {
  const left = quests.filter((quest) => !session.isDone(quest.id));
  const done = `${quests.length - left.length}/${quests.length} done`;
  if (!quests.some((quest) => quest.minutes !== undefined)) return done;
  const minutes = left.reduce((sum, quest) => sum + (quest.minutes ?? 0), 0);
  const unknown = left.some((quest) => quest.minutes === undefined) ? "+" : "";
  return `${done} · ${minutes}${unknown} min left`;
}

export function questListText(session: QuestSessionState): string {
  const chapters = chaptersOf(session.pack);
  const headed = chapters.some((chapter) => chapter.name !== undefined);
  const indent = headed ? "  " : "";
  const line = ({ quest, position }: Chapter["quests"][number]) => {
    const standing = standingText({
      standing: session.standingOf(quest),
      needs: session.missingRequirements(quest),
    });
    const minutes = quest.minutes !== undefined ? ` · ${quest.minutes} min` : "";
    return `${indent}${position}. ${quest.id}: ${quest.title} (${standing}${minutes})`;
  };
  const body = chapters.flatMap((chapter) => [
    ...(headed
      ? [
          `${chapter.name ?? OTHER_QUESTS} · ${tally(
            session,
            chapter.quests.map(({ quest }) => quest),
          )}`,
        ]
      : []),
    ...chapter.quests.map(line),
  ]);
  const skip = session.active ? "; /quest skip skips the active one" : "";
  return [`Quests: ${tally(session, session.pack)}`, ...body, `Start one with /quest start ID${skip}.`].join(
    "\n",
  );
}

function unreachable(value: never): never {
  throw new Error(`unexpected standing ${JSON.stringify(value)}`);
}
