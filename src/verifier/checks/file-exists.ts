import type { FileExistsCheck } from "../../core/checks.ts";
import type { EvaluationContext } from "../context.ts";
import { resolveQuestPath } from "../paths.ts";
import type { CheckResult } from "../results.ts";
import { pathProblem, pending, result } from "./result.ts";

export async function evaluateFileExistsCheck(
  check: FileExistsCheck,
  ctx: EvaluationContext,
): Promise<CheckResult> {
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
