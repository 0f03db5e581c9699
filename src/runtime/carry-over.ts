/**
 * Progress handed on to a new, empty folder. A quest with practice files sets them up only in an
 * empty folder, and progress is kept per folder; so the advice "start Pi in an empty folder"
 * would lose what the learner did. When a quest cannot start for want of an empty folder, the
 * quests done and skipped here are left in the pack's data dir (one record: the newest wins).
 * The next folder Pi starts in that is empty and has no progress of its own takes them, once,
 * and the quest that could not start starts there by itself. Sealed like every other record
 * (src/core/seal.ts): one pi-quests did not write counts as absent.
 */
import { readdir, rm } from "node:fs/promises";
import { join } from "node:path";
import { z } from "zod";
import { openRecordSealer } from "../core/record-sealers.ts";
import { readSealedJson, writeSealedJson } from "../core/sealed-json-file.ts";
import { ProgressSchema } from "./progress.ts";

const CarryOverSchema = z.strictObject({
  version: z.literal(1),
  /** The folder the learner left (its real path). */
  from: z.string(),
  /** The quest that could not start there: it starts by itself in the new folder. */
  quest: z.string(),
  completed: ProgressSchema.shape.completed,
  skipped: z.record(z.string(), z.strictObject({ at: z.string() })),
  at: z.string(),
});
export type CarryOver = z.infer<typeof CarryOverSchema>;

/** Leaves and takes the carry-over of one pack's data dir, for the folder Pi runs in. */
export type CarryOverStore = {
  /** Keeps what this folder did for the next new, empty folder; false when it could not be written. */
  leave(carry: Omit<CarryOver, "version" | "from" | "at">): Promise<boolean>;
  /**
   * The carry-over another folder left, removed as it is taken; none when there is none, when
   * this folder left it, or when this folder is not empty (a project of the learner's, not the
   * new folder the advice asked for). The caller asks only for a folder without progress.
   */
  take(): Promise<CarryOver | undefined>;
};

export function openCarryOverStore(
  dataDir: string,
  workspace: string,
  now = () => new Date(),
): CarryOverStore {
  const file = join(dataDir, "carry-over.json");
  const sealer = openRecordSealer(dataDir, "carry-over", dataDir);
  return {
    async leave(carry) {
      const record: CarryOver = { version: 1, from: workspace, ...carry, at: now().toISOString() };
      return writeSealedJson(file, sealer, record).then(
        () => true,
        () => false,
      );
    },
    async take() {
      const parsed = CarryOverSchema.safeParse(await readSealedJson(file, sealer));
      if (!parsed.success || parsed.data.from === workspace) return undefined;
      if ((await readdir(workspace).catch(() => ["?"])).length > 0) return undefined;
      await rm(file, { force: true });
      return parsed.data;
    },
  };
}
