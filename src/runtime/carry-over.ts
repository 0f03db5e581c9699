/**
 * Progress handed on to a new, empty folder. A quest with practice files sets them up only in an
 * empty folder, and progress is kept per folder; so the advice "start Pi in an empty folder"
 * would lose what the learner did. When a quest cannot start for want of an empty folder, the
 * quests done and skipped here are left in the pack's data dir (one record: the newest wins).
 * The next folder Pi starts in, soon after, that is empty and has no progress of its own offers
 * them; taken once (the learner agrees in a dialog), they count there, and the quest that could
 * not start starts there by itself. Sealed like every other record
 * (src/core/seal.ts): one pi-quests did not write counts as absent.
 */
import { randomBytes } from "node:crypto";
import { readdir, rename, rm } from "node:fs/promises";
import { join } from "node:path";
import { z } from "zod";
import { openRecordSealer } from "../core/record-sealers.ts";
import { canonicalJson } from "../core/seal.ts";
import { readSealedJson, writeSealedJson } from "../core/sealed-json-file.ts";
import { ProgressSchema } from "./progress.ts";

const CarryOverSchema = z.strictObject({
  version: z.literal(1),
  /** The folder the learner left (its real path). */
  from: z.string(),
  /** The quest that could not start there: it starts by itself in the new folder. */
  quest: z.string(),
  completed: ProgressSchema.shape.completed,
  skipped: ProgressSchema.shape.skipped.unwrap(),
  at: z.string(),
});
export type CarryOver = z.infer<typeof CarryOverSchema>;

/** How long a carry-over waits for the new folder: the advice is followed now, not weeks later. */
export const CARRY_OVER_MAX_AGE_MS = 12 * 60 * 60 * 1000;

/** Leaves and takes the carry-over of one pack's data dir, for the folder Pi runs in. */
export type CarryOverStore = {
  /** Keeps what this folder did for the next new, empty folder; false when it could not be written. */
  leave(carry: Omit<CarryOver, "version" | "from" | "at">): Promise<boolean>;
  /**
   * The carry-over another folder left for this one, read without taking it: none when there is
   * none, when this folder left it, when it is older than CARRY_OVER_MAX_AGE_MS, or when this
   * folder is not empty (a project of the learner's, not the new folder the advice asked for).
   * The caller asks only for a folder without progress, and asks the learner before `claim`.
   */
  peek(): Promise<CarryOver | undefined>;
  /**
   * Takes the carry-over `peek` offered, once: of two Pis that claim it at the same time, one
   * gets it. Undefined when another took it first, or it is no longer what was offered.
   */
  claim(offered: CarryOver): Promise<CarryOver | undefined>;
};

export function openCarryOverStore(
  dataDir: string,
  workspace: string,
  now = () => new Date(),
): CarryOverStore {
  const file = join(dataDir, "carry-over.json");
  const sealer = openRecordSealer(dataDir, "carry-over", dataDir);
  const read = async (path: string) => {
    const parsed = CarryOverSchema.safeParse(await readSealedJson(path, sealer));
    return parsed.success ? parsed.data : undefined;
  };
  return {
    async leave(carry) {
      const record: CarryOver = { version: 1, from: workspace, ...carry, at: now().toISOString() };
      return writeSealedJson(file, sealer, record).then(
        () => true,
        () => false,
      );
    },
    async peek() {
      const carry = await read(file);
      if (carry === undefined || carry.from === workspace) return undefined;
      const age = now().getTime() - Date.parse(carry.at);
      if (!(age >= 0 && age <= CARRY_OVER_MAX_AGE_MS)) return undefined;
      if ((await readdir(workspace).catch(() => ["?"])).length > 0) return undefined;
      return carry;
    },
    async claim(offered) {
      // A rename is atomic: the one Pi whose rename succeeds holds the record alone.
      const claimed = `${file}.claimed-${process.pid}-${randomBytes(4).toString("hex")}`;
      try {
        await rename(file, claimed);
      } catch {
        return undefined;
      }
      const carry = await read(claimed);
      await rm(claimed, { force: true });
      return carry !== undefined && canonicalJson(carry) === canonicalJson(offered) ? carry : undefined;
    },
  };
}
