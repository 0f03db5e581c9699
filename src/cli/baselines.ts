/**
 * The commits `pi-quests check` pins. A recorded `quest_activated` event (in `--events`) names
 * the quest's progress baseline (HEAD at activation) and, for a sandbox quest, its oracle
 * baseline (the template's own commit). The recorded baseline is used unless `--baseline REV`
 * is given; a HEAD that moved since the activation is said, naming both commits, because then
 * HEAD is not where the quest started.
 */
import { isFullObjectId } from "../core/object-id.ts";
import type { QuestActivation } from "../events/names.ts";

export type ResolveRevision = (
  revision: string,
) => Promise<{ ok: true; value: string } | { ok: false; message: string }>;

export type CheckBaselines =
  | { ok: true; baseline?: string; oracleBaseline?: string; notes: string[] }
  | { ok: false; message: string };

export async function chooseBaselines(input: {
  questId: string;
  /** `--baseline REV`, when given. */
  explicit?: string;
  /** The quest's last activation in the events log, when it has one. */
  activation?: QuestActivation;
  resolve: ResolveRevision;
}): Promise<CheckBaselines> {
  const { questId, explicit, activation, resolve } = input;
  const recorded = activation?.baseline ?? undefined;
  const oracleBaseline = activation?.oracleBaseline;
  const logSays = `the events log records quest ${questId} activated`;
  for (const [field, value] of [
    ["baseline", recorded],
    ["oracleBaseline", oracleBaseline],
  ] as const) {
    if (value !== undefined && !isFullObjectId(value))
      return { ok: false, message: `${logSays} with ${field} "${value}", which is not a full commit id` };
  }
  const oracle = oracleBaseline ? { oracleBaseline } : {};
  const head = await resolve("HEAD");
  const headId = head.ok ? head.value : undefined;

  if (explicit !== undefined) {
    const pinned = await resolve(explicit);
    if (!pinned.ok) return { ok: false, message: `--baseline ${explicit}: ${pinned.message}` };
    const notes =
      recorded === undefined || pinned.value === recorded
        ? []
        : [
            pinned.value === headId
              ? `--baseline ${explicit} is HEAD ${headId}, which moved since ${logSays} at ${recorded}; commits made since then are not counted as the quest's work`
              : `--baseline ${explicit} is ${pinned.value}, not ${recorded}, where ${logSays}; checking against ${pinned.value} as asked`,
          ];
    return { ok: true, baseline: pinned.value, ...oracle, notes };
  }

  if (recorded !== undefined) {
    const found = await resolve(recorded);
    if (!found.ok)
      return {
        ok: false,
        message: `${logSays} at ${recorded}, which is not a commit in this workspace; give --baseline REV to choose one`,
      };
    const notes =
      headId !== undefined && headId !== recorded
        ? [
            `HEAD ${headId} moved since ${logSays} at ${recorded}; checking against ${recorded}, the commit recorded at activation (give --baseline HEAD to check against HEAD)`,
          ]
        : [];
    return { ok: true, baseline: recorded, ...oracle, notes };
  }

  // No recorded activation: HEAD now, as before. Outside git there is none (git checks pend).
  return { ok: true, ...(headId ? { baseline: headId } : {}), ...oracle, notes: [] };
}
