/**
 * A result as the learner reads it: a check that ran in the task verifier's worktree (under the
 * data dir, `.../quests/workspaces/<key>/worktrees/<id>`) prints that worktree's paths, in a
 * stack trace, a `pwd`, a message. The task verifier names them at the source as the learner's
 * files under the repository (`inRepositoryPaths`: the outcome, so the HUD, `pi-quests check`,
 * receipts and `stdout`/`stderr` predicates all see them; only the run's output.log keeps the
 * raw bytes), and `/quest status` shows them relative to the workspace (`inLearnerPaths`, which
 * also maps a worktree path recorded before the verifier did). Pure.
 */
import { join, relative } from "node:path";
import { pathToFileURL } from "node:url";
import type { ScriptOutcome } from "./probes.ts";
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

/** The characters that end a path in the text around it (a stack trace, a quote, a list). */
const NOT_PATH = `\\s:'"()\\]\\[,;<>`;
const escapeRegex = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

/** A path under `root` as written in `text` (optionally as a file:// URL): the root, then the rest of the path. */
const pathsUnder = (root: string, fileUrl: boolean) =>
  new RegExp(
    `${fileUrl ? "(?:file://)?" : ""}${escapeRegex(root)}(?=$|[/${NOT_PATH}])(/[^${NOT_PATH}]*)?`,
    "g",
  );

/**
 * `text` with every path under `worktree` (also as a `file://` URL) made the learner's path of the
 * same file, relative to `workspace` (`.` for the workspace itself). So is a path under the
 * repository, as the task verifier now names the worktree's paths.
 */
export function inLearnerPath(text: string, { worktree, repository }: RunPlace, workspace: string): string {
  const learner = (rest: string) => relative(workspace, join(repository, rest)) || ".";
  const fromWorktree = text.replace(pathsUnder(worktree, true), (_whole, rest?: string) =>
    learner(rest ?? ""),
  );
  return fromWorktree.replace(pathsUnder(repository, true), (_whole, rest?: string) => learner(rest ?? ""));
}

/**
 * `text` with every path under the run's worktree named as the same path under the repository
 * (the learner's own file), plain or in a `file://` URL (which stays a URL); `worktree` may be
 * given under several names (as made, and with its links followed).
 */
export function inRepositoryPath(
  text: string,
  place: { worktrees: readonly string[]; repository: string },
): string {
  let shown = text;
  for (const worktree of new Set(place.worktrees)) {
    if (worktree === "") continue;
    const url = pathToFileURL(worktree).href;
    const repositoryUrl = pathToFileURL(place.repository).href;
    // An encoded URL (a space in the data dir's path) first; a plain one is the path after file://.
    if (url !== `file://${worktree}`) shown = shown.replaceAll(url, repositoryUrl);
    shown = shown.replace(
      pathsUnder(worktree, false),
      (_whole, rest?: string) => `${place.repository}${rest ?? ""}`,
    );
  }
  return shown;
}

/** A script's outcome with what it printed (and the runner's message) in the repository's paths. */
export function inRepositoryPaths(
  outcome: ScriptOutcome,
  place: { worktrees: readonly string[]; repository: string },
): ScriptOutcome {
  const map = (text: string) => inRepositoryPath(text, place);
  return outcome.ok
    ? { ...outcome, report: map(outcome.report), stdout: map(outcome.stdout), stderr: map(outcome.stderr) }
    : { ...outcome, report: map(outcome.report), message: map(outcome.message) };
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
