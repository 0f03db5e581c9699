/**
 * Which plays of the built-in pack `npm test` plays on the previous minor's Pi (src/core/pi-versions.ts):
 * the plays of every quest with a play that touches sessions (a `/fork`, `/new`, `/resume`,
 * `/tree`, `/compact` or `/clone` step), and of one quest in each chapter none of those is in
 * (its quest with the fewest plays, to keep npm test's time), chosen from the
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
  const touchingSessions = plays.value.filter((play) =>
    play.steps.some((step) => step.kind === "command" && SESSION_COMMAND.test(step.command)),
  );
  const chosen = new Set(touchingSessions.map((play) => play.quest));
  // Each chapter that no quest chosen so far covers: its quest with the fewest plays (the first of equals).
  const playCount = (id: string) => plays.value.filter((play) => play.quest === id).length;
  const chapters = new Map<string, string[]>();
  for (const quest of quests.value)
    chapters.set(quest.chapter ?? "", [...(chapters.get(quest.chapter ?? "") ?? []), quest.id]);
  for (const ids of chapters.values()) {
    if (ids.some((id) => chosen.has(id))) continue;
    const proven = ids.filter((id) => playCount(id) > 0);
    const fewest = proven.reduce<string | undefined>(
      (best, id) => (best === undefined || playCount(id) < playCount(best) ? id : best),
      undefined,
    );
    if (fewest) chosen.add(fewest);
  }
  return {
    quests: quests.value.filter((quest) => chosen.has(quest.id)).map((quest) => quest.id),
    plays: plays.value.filter((play) => chosen.has(play.quest)).map((play) => `${play.quest}/${play.name}`),
  };
}
