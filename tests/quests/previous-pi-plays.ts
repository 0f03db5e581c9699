/**
 * Which plays of the built-in pack `npm test` plays on the previous minor's Pi (src/core/pi-versions.ts):
 * the plays of one quest per chapter (its first) and of every quest with a play that touches
 * sessions (a `/fork`, `/new`, `/resume`, `/tree`, `/compact` or `/clone` step), chosen from the
 * pack's own files, so a new quest of that kind is covered the day it is added. The whole pack
 * on that Pi is `npm run test:previous-pi` (scripts/test-previous-pi.ts).
 */
import { join } from "node:path";
import { loadQuests } from "../../src/verifier/loader.ts";
import { loadPlays } from "../../src/verifier/play-loader.ts";
import { REPO } from "../support/cli.ts";

export const PACK = join(REPO, "quests");

/** A play's command step that replaces or rewrites the session. */
const SESSION_COMMAND = /^\/(fork|new|resume|tree|compact|clone)\b/;

/** The quests chosen, in pack order, and the `quest/play` names of their plays. */
export async function previousPiSelection(): Promise<{ quests: string[]; plays: string[] }> {
  const quests = await loadQuests(PACK);
  if (!quests.ok) throw new Error(`quests/ does not load: ${JSON.stringify(quests.diagnostics)}`);
  const plays = await loadPlays(
    PACK,
    quests.value.map((quest) => quest.id),
  );
  if (!plays.ok) throw new Error(`quests/solutions does not load: ${JSON.stringify(plays.diagnostics)}`);
  const firstOfChapter = new Map<string, string>();
  for (const quest of quests.value)
    if (!firstOfChapter.has(quest.chapter ?? "")) firstOfChapter.set(quest.chapter ?? "", quest.id);
  const touchingSessions = plays.value.filter((play) =>
    play.steps.some((step) => step.kind === "command" && SESSION_COMMAND.test(step.command)),
  );
  const chosen = new Set([...firstOfChapter.values(), ...touchingSessions.map((play) => play.quest)]);
  return {
    quests: quests.value.filter((quest) => chosen.has(quest.id)).map((quest) => quest.id),
    plays: plays.value.filter((play) => chosen.has(play.quest)).map((play) => `${play.quest}/${play.name}`),
  };
}
