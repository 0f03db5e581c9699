/** `git`: one assertion about the workspace's repository, against the pinned baseline commit. */
import { z } from "zod";
import { checkBaseFields } from "../../core/check-fields.ts";
import type { QuestPathRule } from "../../core/paths.ts";
import { boundedIntPredicate } from "../../core/predicates.ts";
import { closestName } from "../../core/suggest.ts";
import type { EvaluationContext } from "../context.ts";
import { resolveQuestPath } from "../paths.ts";
import { describePredicate, intPredicateBounds, matchesIntPredicate } from "../predicates.ts";
import type { GitAnswer } from "../probes.ts";
import type { CheckResult } from "../results.ts";
import { type CheckOf, defineCheckType } from "./define.ts";
import { pathProblem, pending, result } from "./result.ts";

const gitBase = { ...checkBaseFields, type: z.literal("git") };
export const GitCheckSchema = z.discriminatedUnion(
  "assert",
  [
    z.strictObject({
      ...gitBase,
      assert: z.literal("commit_count"),
      count: boundedIntPredicate("a number of commits", 0),
      /** Version 3: count the commits on this branch, not on HEAD. */
      branch: z.string().min(1).optional(),
    }),
    z.strictObject({ ...gitBase, assert: z.literal("clean_tree") }),
    z.strictObject({ ...gitBase, assert: z.literal("dirty") }),
    z.strictObject({ ...gitBase, assert: z.literal("branch_exists"), branch: z.string().min(1) }),
    z.strictObject({ ...gitBase, assert: z.literal("current_branch"), branch: z.string().min(1) }),
    z.strictObject({
      ...gitBase,
      assert: z.literal("diff_contains"),
      text: z.string().min(1),
      path: z.string().min(1).optional(),
    }),
    z.strictObject({ ...gitBase, assert: z.literal("file_restored"), path: z.string().min(1) }),
    /** Version 3: HEAD holds the path, added or changed by a commit since the baseline. */
    z.strictObject({ ...gitBase, assert: z.literal("committed"), path: z.string().min(1) }),
  ],
  { error: (issue) => unknownAssertMessage(issue.input) },
);

const GIT_ASSERTIONS = [
  "commit_count",
  "clean_tree",
  "dirty",
  "branch_exists",
  "current_branch",
  "diff_contains",
  "file_restored",
  "committed",
];

function unknownAssertMessage(check: unknown): string {
  const assert =
    typeof check === "object" && check !== null ? (check as { assert?: unknown }).assert : undefined;
  const closest = typeof assert === "string" ? closestName(assert, GIT_ASSERTIONS) : undefined;
  const mean = closest === undefined ? "" : `; did you mean ${closest}?`;
  return `assert must be one of: ${GIT_ASSERTIONS.join(", ")}${mean}`;
}
export type GitCheck = CheckOf<typeof GitCheckSchema>;

/** A path given to git: relative to the repository, never a template (git would take it literally). */
const GIT_PATH: QuestPathRule = { templates: "none", relativeTo: "the repository" };

export type GitEvidence = {
  kind: "git";
  summary: string;
  assert: string;
  baseline: string;
  detail?: Record<string, unknown>;
};

async function evaluateGitCheck(check: GitCheck, ctx: EvaluationContext): Promise<CheckResult> {
  const baseline = ctx.baseline;
  if (baseline === undefined) {
    return pending(check, "unavailable", "no baseline commit is pinned (is the workspace a git repository?)");
  }
  const git = ctx.probes.git;
  const cwd = ctx.paths.workspace;
  const done = (passed: boolean, summary: string, detail?: Record<string, unknown>) =>
    result(check, passed ? "pass" : "fail", {
      kind: "git",
      summary,
      assert: check.assert,
      baseline,
      ...(detail ? { detail } : {}),
    });
  const gitFailed = (answer: Extract<GitAnswer<unknown>, { ok: false }>) =>
    pending(check, "error", `git: ${answer.message}`, { baseline });

  switch (check.assert) {
    case "commit_count": {
      const answer = await git.countCommitsSince(cwd, baseline, check.branch);
      if (!answer.ok) return gitFailed(answer);
      const on = check.branch === undefined ? "" : ` on ${check.branch}`;
      if (answer.value === "missing_branch")
        return done(false, `there is no branch ${check.branch}`, { commits: 0 });
      return done(
        matchesIntPredicate(check.count, answer.value),
        `${answer.value} commit(s)${on} since ${baseline.slice(0, 12)}; expected ${describePredicate(check.count)}`,
        { commits: answer.value },
      );
    }
    case "clean_tree":
    case "dirty": {
      const answer = await git.changedPaths(cwd);
      if (!answer.ok) return gitFailed(answer);
      const changes = answer.value;
      const clean = changes.length === 0;
      const summary = clean
        ? "the working tree is clean"
        : `${changes.length} uncommitted change(s): ${changes.slice(0, 5).join(", ")}`;
      return done(check.assert === "clean_tree" ? clean : !clean, summary, { changes: changes.slice(0, 50) });
    }
    case "branch_exists": {
      const answer = await git.branchExists(cwd, check.branch);
      if (!answer.ok) return gitFailed(answer);
      return done(answer.value, `branch ${check.branch} ${answer.value ? "exists" : "does not exist"}`);
    }
    case "current_branch": {
      const answer = await git.currentBranch(cwd);
      if (!answer.ok) return gitFailed(answer);
      const on = answer.value;
      const where = on === null ? "HEAD is detached (on no branch)" : `HEAD is on ${on}`;
      return done(on === check.branch, `${where}; expected ${check.branch}`, { on });
    }
    case "diff_contains": {
      if (check.path !== undefined) {
        const resolved = resolveQuestPath(check.path, ctx.paths, GIT_PATH);
        if (!resolved.ok) return pathProblem(check, resolved.written, resolved.reason);
      }
      const answer = await git.diffSince(cwd, baseline, check.path);
      if (!answer.ok) return gitFailed(answer);
      const found = answer.value.includes(check.text);
      const scope = check.path ? ` in ${check.path}` : "";
      return done(
        found,
        `the changes since ${baseline.slice(0, 12)}${scope} ${found ? "contain" : "do not contain"} ${JSON.stringify(check.text)}`,
      );
    }
    case "file_restored": {
      const resolved = resolveQuestPath(check.path, ctx.paths, GIT_PATH);
      if (!resolved.ok) return pathProblem(check, resolved.written, resolved.reason);
      const answer = await git.compareWithBaseline(cwd, baseline, check.path);
      if (!answer.ok) return gitFailed(answer);
      const summaries = {
        same: `${check.path} matches the baseline`,
        different: `${check.path} differs from the baseline`,
        missing_now: `${check.path} is missing; the baseline has it`,
        missing_in_baseline: `${check.path} is not in the baseline, so there is nothing to restore`,
      } as const;
      return done(answer.value === "same", summaries[answer.value], { state: answer.value });
    }
    case "committed": {
      const resolved = resolveQuestPath(check.path, ctx.paths, GIT_PATH);
      if (!resolved.ok) return pathProblem(check, resolved.written, resolved.reason);
      const answer = await git.committedSince(cwd, baseline, check.path);
      if (!answer.ok) return gitFailed(answer);
      const summaries = {
        committed: `${check.path} is committed: a commit since the quest started added or changed it`,
        unchanged: `${check.path} is in HEAD as it was when the quest started: no commit since changed it`,
        not_in_head: `${check.path} is in no commit yet`,
      } as const;
      return done(answer.value === "committed", summaries[answer.value], { state: answer.value });
    }
  }
}

export const gitCheck = defineCheckType({
  type: "git",
  schema: GitCheckSchema,
  evaluate: evaluateGitCheck,
  needs: {},
  newerFieldsUsed: (check) => {
    if (check.assert === "committed") return [{ field: "assert", version: 3 }];
    if (check.assert === "commit_count" && check.branch !== undefined)
      return [{ field: "branch", version: 3 }];
    return [];
  },
  pathFields: (check) =>
    "path" in check && check.path !== undefined
      ? [{ field: ["path"], written: check.path, rule: GIT_PATH }]
      : [],
  hint: gitHint,
});

/** The learner's reason for a failed git check: what the repository lacks, in words, and what to do. */
function gitHint(result: CheckResult, check?: GitCheck): string | undefined {
  const evidence = result.evidence;
  if (result.status !== "fail" || evidence.kind !== "git") return undefined;
  const detail = evidence.detail ?? {};
  const path = check !== undefined && "path" in check ? check.path : "the file";
  const branch = check !== undefined && "branch" in check ? check.branch : undefined;
  switch (evidence.assert) {
    case "commit_count":
      if (evidence.summary.startsWith("there is no branch")) return `there is no branch ${branch} yet`;
      return commitsInWords(detail.commits, check, branch);
    case "clean_tree": {
      const changes = Array.isArray(detail.changes) ? detail.changes.map(String) : [];
      const paths = changes.slice(0, 3).map((line) => line.replace(/^.. /, ""));
      const more = changes.length > 3 ? ` and ${changes.length - 3} more` : "";
      return `not committed yet: ${paths.join(", ")}${more}`;
    }
    case "dirty":
      return "nothing is changed yet";
    case "branch_exists":
      return `there is no branch ${branch ?? "of that name"} yet`;
    case "current_branch":
      return typeof detail.on === "string"
        ? `you are on ${detail.on}, not ${branch ?? "the branch asked for"}`
        : `no branch is checked out (git switch ${branch ?? "BRANCH"})`;
    case "diff_contains":
      return check !== undefined && "text" in check
        ? `your changes do not contain ${JSON.stringify(check.text)} yet`
        : "your changes do not contain what the goal asks for yet";
    case "file_restored":
      return detail.state === "missing_now"
        ? `${path} is deleted: bring it back`
        : `${path} is still changed`;
    case "committed":
      return `${path} is not committed yet`;
    default:
      return undefined;
  }
}

/** How far the commits since the quest started are from what the check counts, in words. */
function commitsInWords(commits: unknown, check: GitCheck | undefined, branch: string | undefined): string {
  const made = typeof commits === "number" ? commits : 0;
  const count = check !== undefined && "count" in check ? check.count : undefined;
  const wanted = count === undefined ? undefined : intPredicateBounds(count).min;
  if (branch !== undefined && made === 0) return `no new commit on ${branch} yet`;
  if (made === 0) return "no new commit yet";
  if (wanted !== undefined && made < wanted)
    return `${made} new commit${made === 1 ? "" : "s"} so far; it takes ${wanted}`;
  return `${made} new commit${made === 1 ? "" : "s"}: more than this quest asks for`;
}
