/**
 * What tells the learner the way forward when the pack's order is broken or a stage ends: a quest
 * that builds on a skipped one says what to do first, and completing a chapter's last quest
 * announces the chapter and what comes next. Pure: it reads the session state.
 */
import type { Quest } from "../verifier/quest.ts";
import type { QuestSessionState } from "./quest-session-state.ts";

/**
 * For a quest whose requirements include skipped ones: their work (a file they made, a session
 * they named) may be missing here, so the quest says which and what to do first. None otherwise.
 */
export function skippedWorkNote(session: QuestSessionState, quest: Quest): string[] {
  const skipped = session.skippedRequirements(quest);
  const [first] = skipped;
  if (first === undefined) return [];
  const titles = skipped.map((id) => `"${session.byId(id)?.title ?? id}"`).join(" and ");
  const them = skipped.length === 1 ? "it" : "them";
  return [
    `This quest builds on ${titles}, which you skipped: what ${them} left behind may be missing here.` +
      ` If you get stuck, do ${them} first (/quest start ${first}), then /quest start ${quest.id} again.`,
  ];
}

/** The pack's chapter names in the order they first appear. */
function chapterNames(pack: readonly Quest[]): string[] {
  return [...new Set(pack.flatMap((quest) => (quest.chapter === undefined ? [] : [quest.chapter])))];
}

/**
 * When `done` (just completed) was the last open quest of its chapter: the chapter announced,
 * with how many of its quests are done and skipped, and the chapter that comes next (`next` is
 * the quest that starts next, if any). None while the chapter has quests left, or without one.
 */
export function chapterCompleteNote(
  session: QuestSessionState,
  done: Quest,
  next: Quest | undefined,
): string[] {
  const chapter = session.byId(done.id)?.chapter ?? done.chapter;
  if (chapter === undefined) return [];
  const quests = session.pack.filter((quest) => quest.chapter === chapter);
  const open = quests.filter((quest) => !session.isDone(quest.id) && !session.isSkipped(quest.id));
  if (open.length > 0) return [];
  const names = chapterNames(session.pack);
  const doneCount = quests.filter((quest) => session.isDone(quest.id)).length;
  const skipped = quests.filter((quest) => session.isSkipped(quest.id));
  const skippedText =
    skipped.length === 0
      ? ""
      : `, ${skipped.length} skipped (/quest start ${skipped[0]?.id ?? ""} takes it up again)`;
  const count = `${doneCount} of ${quests.length} ${quests.length === 1 ? "quest" : "quests"} done`;
  const heading = `Chapter ${names.indexOf(chapter) + 1} complete: ${chapter} ✓ (${count}${skippedText}).`;
  // With nothing to start next, what follows says so (every quest done, or none open).
  if (next === undefined) return [heading];
  const nextChapter =
    next.chapter === undefined
      ? `"${next.title}"`
      : `chapter ${names.indexOf(next.chapter) + 1}, ${next.chapter}`;
  return [heading, `Next: ${nextChapter}.`];
}
