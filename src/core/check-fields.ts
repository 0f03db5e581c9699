/**
 * The fields several check types share. Each check type's own schema lives in its module under
 * src/verifier/checks/; what is here is what more than one of them (or the quest file) reuses.
 */
import { z } from "zod";
import { globProblem } from "./glob.ts";
import { unknownTemplates } from "./paths.ts";

export const CHECK_ID_PATTERN = /^[a-z0-9-]+$/;

/** `id` and `describe`: every check type accepts them. */
export const checkBaseFields = {
  id: z.string().regex(CHECK_ID_PATTERN, "a check id uses only a-z, 0-9 and -").optional(),
  describe: z.string().min(1).optional(),
};

/** A path that may use the `{sandbox}`, `{workspace}`, `{agent_dir}` and `{home}` templates. */
export const PathSchema = z
  .string()
  .min(1, "a path must not be empty")
  .superRefine((path, ctx) => {
    const unknown = unknownTemplates(path);
    if (unknown.length > 0) {
      ctx.addIssue({
        code: "custom",
        message: `unknown path template {${unknown.join("}, {")}}: use {sandbox}, {workspace}, {agent_dir} or {home}`,
      });
    }
  });

/** `editable` (version 2): the paths the learner's work may change, as globs (src/core/glob.ts). */
export const EditableSchema = z
  .array(
    z.string().superRefine((glob, ctx) => {
      const problem = globProblem(glob);
      if (problem) ctx.addIssue({ code: "custom", message: problem });
    }),
  )
  .min(1, "editable lists at least one path; leave it out to let the work change any path");
