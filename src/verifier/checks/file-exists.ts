/** `file_exists`: passes when a path exists, as a file, a folder or either. */
import { z } from "zod";
import { checkBaseFields, PathSchema } from "../../core/check-fields.ts";
import { ANY_TEMPLATE } from "../../core/paths.ts";
import type { EvaluationContext } from "../context.ts";
import { resolveQuestPath } from "../paths.ts";
import type { CheckResult } from "../results.ts";
import { type CheckOf, defineCheckType } from "./define.ts";
import { pathProblem, pending, result } from "./result.ts";

export const FileExistsCheckSchema = z.strictObject({
  ...checkBaseFields,
  type: z.literal("file_exists"),
  path: PathSchema,
  kind: z.enum(["file", "dir", "any"]).default("file"),
});
export type FileExistsCheck = CheckOf<typeof FileExistsCheckSchema>;

export type FileEvidence = {
  kind: "file";
  summary: string;
  path: string;
  found: "file" | "dir" | "other" | "none";
};

async function evaluateFileExistsCheck(check: FileExistsCheck, ctx: EvaluationContext): Promise<CheckResult> {
  const resolved = resolveQuestPath(check.path, ctx.paths);
  if (!resolved.ok) return pathProblem(check, resolved.written, resolved.reason);
  const probe = await ctx.probes.fileExists(resolved.path);
  switch (probe.kind) {
    case "escape":
      return pathProblem(check, check.path, probe.reason);
    case "error":
      return pending(check, "error", `${check.path}: ${probe.message}`);
    case "missing":
      return result(check, "fail", {
        kind: "file",
        summary: `${check.path} does not exist`,
        path: check.path,
        found: "none",
      });
    case "file":
    case "dir":
    case "other": {
      const passed = check.kind === "any" || check.kind === probe.kind;
      const what =
        probe.kind === "dir" ? "a folder" : probe.kind === "file" ? "a file" : "neither file nor folder";
      const summary = passed
        ? `${check.path} exists (${what})`
        : `${check.path} is ${what}, not a ${check.kind === "dir" ? "folder" : "file"}`;
      return result(check, passed ? "pass" : "fail", {
        kind: "file",
        summary,
        path: check.path,
        found: probe.kind,
      });
    }
  }
}

export const fileExistsCheck = defineCheckType({
  type: "file_exists",
  schema: FileExistsCheckSchema,
  evaluate: evaluateFileExistsCheck,
  needs: {},
  pathFields: (check) => [{ field: ["path"], written: check.path, rule: ANY_TEMPLATE }],
});
