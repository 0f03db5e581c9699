import { z } from "zod";
import { EditableSchema } from "../core/check-fields.ts";
import { type Check, CheckSchema, newerFieldsUsed } from "./checks/registry.ts";

export const QUEST_ID_PATTERN = /^[a-z0-9][a-z0-9-]*$/;

/** The quest fields version 2 added; a file that uses one says `version: 2`. */
export const VERSION_2_QUEST_FIELDS = ["chapter", "minutes", "editable", "debrief"] as const;

export const QuestFileSchema = z
  .strictObject({
    version: z.union([z.literal(1), z.literal(2), z.literal(3)], {
      error: "version must be 1, 2 or 3 (the format versions so far)",
    }),
    id: z.string().regex(QUEST_ID_PATTERN, "a quest id starts with a-z or 0-9 and uses only a-z, 0-9 and -"),
    title: z.string().min(1, "title must not be empty"),
    goal: z.string().min(1, "goal must not be empty"),
    hints: z.array(z.string().min(1)).default([]),
    requires: z.array(z.string().regex(QUEST_ID_PATTERN, "requires lists quest ids")).default([]),
    sandbox: z.string().min(1).optional(),
    /** Version 2: quests of one chapter are shown together, in pack order. */
    chapter: z.string().min(1, "chapter must not be empty").optional(),
    /** Version 2: an honest estimate of the minutes the quest takes. */
    minutes: z.int().min(1, "minutes is at least 1").max(600, "minutes is at most 600").optional(),
    /** Version 2: the paths the learner's work may change (globs); the rest stays the baseline's. */
    editable: EditableSchema.optional(),
    /** Version 2: Markdown shown once the quest is complete. */
    debrief: z.string().min(1, "debrief must not be empty").optional(),
    checks: z.array(CheckSchema).min(1, "a quest needs at least one check"),
  })
  .superRefine((quest, ctx) => {
    if (quest.version === 1) {
      for (const field of VERSION_2_QUEST_FIELDS) {
        if (quest[field] !== undefined)
          ctx.addIssue({
            code: "custom",
            path: [field],
            message: `${field} is a version 2 field; say version: 2 to use it`,
          });
      }
    }
    quest.checks.forEach((check, index) => {
      for (const { field, version } of newerFieldsUsed(check)) {
        if (quest.version >= version) continue;
        ctx.addIssue({
          code: "custom",
          path: ["checks", index, field],
          message: newerFieldMessage(check, field, version),
        });
      }
    });
  });

function newerFieldMessage(
  check: Check | { type: string; assert?: unknown },
  field: string,
  version: number,
): string {
  const say = `say version: ${version} to use it`;
  if (field === "type") return `type: ${check.type} is a version ${version} check type; ${say}`;
  if (field === "assert" && "assert" in check)
    return `assert: ${String(check.assert)} is a version ${version} assertion of a ${check.type} check; ${say}`;
  const article = /^[aeiou]/.test(check.type) ? "an" : "a";
  return `${article} ${check.type} check's ${field} is a version ${version} field; ${say}`;
}
export type QuestFile = z.infer<typeof QuestFileSchema>;

/** The id of a check that names none: its place in the quest, from 1 (`check-1`, `check-2`...). */
export function defaultCheckId(index: number): string {
  return `check-${index + 1}`;
}

/**
 * A loaded quest: every check has its id, and we know where it came from. A command check
 * carries the `editable` that applies to it: its own when it names one, else the quest's.
 */
export type Quest = Omit<QuestFile, "checks"> & {
  checks: Check[];
  /** Absolute path of the quest file. */
  source: string;
  /** Absolute sandbox template folder, when the quest has one. */
  sandboxDir?: string;
};
