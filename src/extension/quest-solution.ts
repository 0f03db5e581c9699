/**
 * `/quest solution`'s text: how the pack's reference play (`solutions/<quest>/pass.yaml`, the one
 * `pi-quests test` proves) did a quest, step by step in words (src/verifier/play-words.ts). Also
 * the play a `pi-quests play --solution` Pi follows (`PI_QUESTS_PLAY_SOLUTION`), shown whatever
 * the quest's standing: there the steps are the author's, printed before Pi's screen took over.
 */
import { existsSync } from "node:fs";
import { dirname, join } from "node:path";
import { readPlayFile, SOLUTIONS_FOLDER } from "../verifier/play-loader.ts";
import { playStepsInWords } from "../verifier/play-words.ts";
import type { Quest } from "../verifier/quest.ts";
import { message, type QuestMessage } from "./quest-message.ts";

/** The reference play of a quest: `<pack>/solutions/<quest id>/pass.yaml`. */
export function referencePlayOf(quest: Pick<Quest, "id" | "source">): string {
  return join(dirname(quest.source), SOLUTIONS_FOLDER, quest.id, "pass.yaml");
}

/** A play's steps in words, under a title; or why it cannot be shown. */
export async function solutionMessage(
  quest: Pick<Quest, "id" | "title">,
  file: string,
  title = `How the reference solution did "${quest.title}"`,
): Promise<QuestMessage> {
  if (!existsSync(file)) return message(`"${quest.title}" has no reference solution in its pack.`);
  const play = await readPlayFile(file, quest.id, "pass");
  if (!play.ok) {
    const problem = play.diagnostics[0]?.message ?? "unknown problem";
    return message(`The reference solution of "${quest.title}" could not be read: ${problem}`);
  }
  const steps = playStepsInWords(play.value.steps).map((step, index) => `${index + 1}. ${step}`);
  const setup = play.value.setup ? [`Before Pi starts, in this folder: ${play.value.setup}`] : [];
  return message(
    { title },
    ...setup,
    ...steps,
    "",
    "Any way that reaches the goal passes: this is one of them.",
  );
}
