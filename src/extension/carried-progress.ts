/**
 * Progress carried to a new, empty folder (src/runtime/carry-over.ts keeps the record), as the
 * learner meets it: the advice where a quest needs an empty folder, the question in the new
 * folder, and what is said once the quests are carried. Only a session with a UI leaves or takes
 * a carry-over: a print-mode Pi, or one the agent starts, never moves the learner's progress.
 */
import type { CarryOver, CarryOverStore } from "../runtime/carry-over.ts";
import type { Quest } from "../verifier/quest.ts";
import type { QuestUi } from "./quest-ui.ts";

/** The way to an empty folder, for a quest whose practice files need one; the same every time. */
export const EMPTY_FOLDER_COMMAND = "mkdir -p ~/pi-quests-practice && cd ~/pi-quests-practice && pi";

/**
 * What to do when a quest needs an empty folder and this one is not: start Pi in an empty one.
 * With what was done here left for it (`carried`), the quest starts there by itself and the
 * quests done here count; without, it says how to start it there. `packCommand` is how a pack
 * other than the one a new folder opens on is reached there (`/quest pack ID`).
 */
export function emptyFolderAdvice(quest: Quest, carried: boolean, packCommand?: string): string {
  const start = `Start Pi in an empty folder, for example: ${EMPTY_FOLDER_COMMAND}`;
  const then = packCommand ? `, then ${packCommand}` : "";
  return carried
    ? `${start}${then}. "${quest.title}" starts there by itself, and the quests you did here count there too.`
    : `${start}${then}, then /quest start ${quest.id}.`;
}

/** "2 quests done and 1 skipped", of a carry-over; empty when it holds none. */
function countedOf(carry: CarryOver): { text: string; one: boolean } {
  const done = Object.keys(carry.completed).length;
  const skipped = Object.keys(carry.skipped).length;
  const parts = [
    ...(done > 0 ? [`${done} ${done === 1 ? "quest" : "quests"} done`] : []),
    ...(skipped > 0 ? [`${skipped} skipped`] : []),
  ];
  return { text: parts.join(" and "), one: done + skipped === 1 };
}

/** What a new folder says when it took the quests another folder left for it. */
export function carriedOverNote(carry: CarryOver): string {
  const { text, one } = countedOf(carry);
  const what = text ? `: ${text} there ${one ? "counts" : "count"} here` : "";
  return `Carried on from ${carry.from}${what}. That folder keeps its own progress.`;
}

/**
 * In a folder without progress: the quests another folder left for it, when the learner agrees
 * (a dialog; Yes carries them, No starts this folder from the first quest and leaves them for
 * another). None without a UI to ask, or when another Pi took them first.
 */
export async function offerCarriedProgress(
  store: Pick<CarryOverStore, "peek" | "claim">,
  ui: Pick<QuestUi, "confirm" | "hasUI">,
  titleOf: (questId: string) => string,
): Promise<CarryOver | undefined> {
  if (!ui.hasUI) return undefined;
  const offered = await store.peek();
  if (!offered) return undefined;
  const { text, one } = countedOf(offered);
  const counted = text ? `The ${text} there ${one ? "counts" : "count"} here, and "` : `"`;
  const yes = await ui.confirm(
    `Carry on from ${offered.from}?`,
    `${counted}${titleOf(offered.quest)}" starts here: its practice files are set up in this folder. No starts this folder from the first quest.`,
  );
  return yes === true ? store.claim(offered) : undefined;
}
