/**
 * A result as the learner reads it: a check that ran in the task verifier's worktree (under the
 * data dir, `.../quests/workspaces/<key>/worktrees/<id>`) prints that worktree's paths, in a
 * stack trace, a `pwd`, a message; each is shown as the learner's own file, relative to the
 * workspace. Only what a person reads changes (each check's `summary` and command `output`): the
 * result itself, its receipts and the evidence files keep what the run printed. Pure.
 */
import { join, relative } from "node:path";
import type { CheckResult, QuestResult } from "./results.ts";

/** Where a check's evidence says it ran: a worktree, and the repository it stands for. */
type RunPlace = { worktree: string; repository: string };

function runPlaceOf(check: CheckResult): RunPlace | undefined {
  const verification = (check.evidence as { verification?: Partial<RunPlace> }).verification;
  const worktree = verification?.worktree;
  const repository = verification?.repository;
  return typeof worktree === "string" && typeof repository === "string" && worktree !== ""
    ? { worktree, repository }
    : undefined;
}

/**
 * `text` with every path under `worktree` (also as a `file://` URL) made the learner's path of the
 * same file, relative to `workspace` (`.` for the workspace itself).
 */
export function inLearnerPath(text: string, { worktree, repository }: RunPlace, workspace: string): string {
  const learner = (rest: string) => relative(workspace, join(repository, rest)) || ".";
  const escaped = worktree.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
  // The worktree, then the rest of the path up to a character that cannot be part of one here.
  const pattern = new RegExp(
    `(?:file://)?${escaped}(?=$|[/\\s:'"()\\]\\[,;<>])(/[^\\s:'"()\\]\\[,;<>]*)?`,
    "g",
  );
  return text.replace(pattern, (_whole, rest: string | undefined) => learner(rest ?? ""));
}

/** The result with each check's summary and output in the learner's paths (a copy; the result is unchanged). */
export function inLearnerPaths(result: QuestResult, workspace: string): QuestResult {
  return {
    ...result,
    checks: result.checks.map((check) => {
      const place = runPlaceOf(check);
      if (!place) return check;
      const evidence = check.evidence as CheckResult["evidence"] & { output?: unknown };
      const mapped = { ...evidence, summary: inLearnerPath(evidence.summary, place, workspace) };
      if (typeof evidence.output === "string")
        (mapped as { output?: string }).output = inLearnerPath(evidence.output, place, workspace);
      return { ...check, evidence: mapped } as CheckResult;
    }),
  };
}
