import { z } from "zod";
import { type Check, CheckSchema } from "./checks.ts";

export const QUEST_ID_PATTERN = /^[a-z0-9][a-z0-9-]*$/;

export const QuestFileSchema = z.strictObject({
  version: z.literal(1, { error: "version must be 1 (the only format version so far)" }),
  id: z.string().regex(QUEST_ID_PATTERN, "a quest id starts with a-z or 0-9 and uses only a-z, 0-9 and -"),
  title: z.string().min(1, "title must not be empty"),
  goal: z.string().min(1, "goal must not be empty"),
  hints: z.array(z.string().min(1)).default([]),
  requires: z.array(z.string().regex(QUEST_ID_PATTERN, "requires lists quest ids")).default([]),
  sandbox: z.string().min(1).optional(),
  checks: z.array(CheckSchema).min(1, "a quest needs at least one check"),
});
export type QuestFile = z.infer<typeof QuestFileSchema>;

/** A loaded quest: every check has its id, and we know where it came from. */
export type Quest = Omit<QuestFile, "checks"> & {
  checks: Check[];
  /** Absolute path of the quest file. */
  source: string;
  /** Absolute sandbox template folder, when the quest has one. */
  sandboxDir?: string;
};
