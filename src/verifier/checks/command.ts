/**
 * `command`: runs a script and judges its exit code and output, in the isolated task verifier
 * (`isolation: worktree`, the default) or in place. A fresh receipt answers it without a run.
 */
import { z } from "zod";
import { checkBaseFields, EditableSchema } from "../../core/check-fields.ts";
import { ANY_TEMPLATE, type QuestPathRule } from "../../core/paths.ts";
import { boundedIntPredicate, StringPredicateSchema } from "../../core/predicates.ts";
import type { EvaluationContext } from "../context.ts";
import { resolveQuestPath } from "../paths.ts";
import { describePredicate, matchesIntPredicate, matchesStringPredicate } from "../predicates.ts";
import type { ScriptOutcome } from "../probes.ts";
import type { CheckResult, PendingKind } from "../results.ts";
import { commandReportDetail } from "./command-report.ts";
import { type CheckOf, defineCheckType, type PathField } from "./define.ts";
import { pathProblem, pending, pendingReason, result } from "./result.ts";

export const CommandCheckSchema = z.strictObject({
  ...checkBaseFields,
  type: z.literal("command"),
  run: z.string().min(1, "run must not be empty"),
  cwd: z.string().min(1).optional(),
  timeout_ms: z.int().positive().max(3_600_000).default(60_000),
  exit_code: boundedIntPredicate("an exit code", 0, 255).default(0),
  stdout: StringPredicateSchema.optional(),
  stderr: StringPredicateSchema.optional(),
  oracle_paths: z.array(z.string().min(1)).default([]),
  isolation: z.enum(["worktree", "none"]).default("worktree"),
  /** Version 2: the paths this check lets the candidate change; wins over the quest's list. */
  editable: EditableSchema.optional(),
});
export type CommandCheck = CheckOf<typeof CommandCheckSchema>;

/**
 * Where a command may run: with `isolation: worktree` inside the workspace's repository (the task
 * verifier runs it in a worktree of it), so only `{workspace}` or `{sandbox}` may start `cwd`;
 * in place, any template.
 */
function cwdRule(check: { isolation: "worktree" | "none" }): QuestPathRule {
  return check.isolation === "worktree" ? { templates: "workspace" } : ANY_TEMPLATE;
}

/** Oracle paths and editable globs name files of the workspace's repository: relative, no template. */
const REPOSITORY_PATH: QuestPathRule = { templates: "none", relativeTo: "the workspace's repository" };

function commandPathFields(check: z.output<typeof CommandCheckSchema>): PathField[] {
  const fields: PathField[] = [];
  if (check.cwd !== undefined) {
    fields.push({
      field: ["cwd"],
      written: check.cwd,
      rule: cwdRule(check),
      ...(check.isolation === "worktree" && /^\{(agent_dir|home)\}/.test(check.cwd)
        ? {
            note: "(a command with isolation: none runs in place and may start cwd with {agent_dir} or {home})",
          }
        : {}),
    });
  }
  check.oracle_paths.forEach((written, index) => {
    fields.push({ field: ["oracle_paths", index], written, rule: REPOSITORY_PATH });
  });
  (check.editable ?? []).forEach((written, index) => {
    fields.push({ field: ["editable", index], written, rule: REPOSITORY_PATH });
  });
  return fields;
}

/**
 * What made sure a check's processes did not outlive it: its own PID namespace, or (where
 * namespaces are not available) its process group, which a process that leaves it escapes.
 */
export type Containment = "pid-namespace" | "process-group";

/**
 * Why a change of the learner's was not applied in the isolated run: outside `editable`; a
 * protected file put back from the baseline (a test, configuration, a file the check or an npm
 * script runs, an oracle, a build file, a setup file a test configuration names); the package
 * scripts put back; a test, a configuration or a package.json the learner added, removed; a
 * change in a generated folder (dist/, build/...), which checks never see; a `node_modules/.bin`
 * entry no installed package declares, never run (src/task-verifier/declared-bins.ts).
 */
export type NotAppliedReason =
  | "outside_editable"
  | "test"
  | "configuration"
  | "named"
  | "oracle"
  | "build"
  | "setup"
  | "package_scripts"
  | "added_test"
  | "added_configuration"
  | "added_package_json"
  | "generated"
  | "undeclared_bin";

/** One change of the learner's the run did not see: its path (repository-relative), why, and what named it. */
export type NotApplied = { path: string; reason: NotAppliedReason; by?: string };

/** Where an isolated run happened and what it ran on (the task verifier's provenance). */
export type IsolationEvidence = {
  runDir: string;
  /**
   * The worktree the check ran in (in the data dir), and the learner's repository it stands for:
   * a path under the one is the learner's file at the same place under the other (the report
   * shows it so: src/verifier/learner-paths.ts). Absent in evidence from before they were kept.
   */
  worktree?: string;
  repository?: string;
  baseline: string;
  head: string;
  patchSha256: string;
  patchBytes: number;
  restored: string[];
  manifestsMerged: string[];
  removedConfigs: string[];
  /** With `editable`: the changed paths outside it, whose changes were not applied. */
  leftOut?: string[];
  /**
   * Every change of the learner's the run did not see, and why (leftOut among them), sorted by
   * path. Absent in evidence from before it was kept.
   */
  notApplied?: NotApplied[];
  cleanup: { ok: true } | { ok: false; message: string; keptWorktree: string };
  /**
   * The receipts' fingerprint of the files this run used (baseline plus patch, before anything
   * was restored): the receipt records this one. Absent when the run stopped before the patch.
   */
  fingerprint?: RunFingerprint;
  /** Changed paths in generated folders (dist/, build/...) that the candidate left out. */
  generatedLeftOut?: string[];
};

export type RunFingerprint =
  | { ok: true; algorithm: "git-blob-sha1+sha256"; value: string; entries: number; bytes: number }
  | { ok: false; reason: string };

/** The receipt a command check's result rests on (docs/quest-format.md, "Receipts"). */
export type ReceiptEvidence = {
  id: string;
  state: "not_run" | "running" | "passed" | "failed" | "cancelled" | "skipped" | "stale";
  /** True when a fresh receipt answered the check and nothing ran. */
  reused: boolean;
  /** The workspace fingerprint the receipt judged, when there is one. */
  fingerprint?: string;
  note?: string;
};

export type CommandEvidence = {
  kind: "command";
  summary: string;
  script: string;
  cwd: string;
  isolation: "worktree" | "none";
  /** How the run's processes were kept from outliving it (absent when nothing ran). */
  containment?: Containment;
  exitCode?: number;
  signal?: string;
  output?: string;
  outputTruncated?: boolean;
  failed?: string[];
  /** In words, each learner change the run did not use and why (from verification.notApplied). */
  unusedChanges?: string[];
  verification?: IsolationEvidence;
  receipt?: ReceiptEvidence;
  /** Set on a result answered by a receipt, or made pending by one. */
  pending?: PendingKind;
};

/** How much of a run's output the evidence keeps (the tail, which is what an author reads). */
export const EVIDENCE_OUTPUT_BYTES = 64 * 1024;

/** How many lines of a failing or pending run's output the report shows (its tail). */

function tail(text: string): { output: string; cut: boolean } {
  return text.length > EVIDENCE_OUTPUT_BYTES
    ? { output: text.slice(-EVIDENCE_OUTPUT_BYTES), cut: true }
    : { output: text, cut: false };
}

/**
 * The summary for an author: a short note of the changes outside `editable`, and of the changes
 * to protected files, that the run did not see.
 */
function withNotApplied(summary: string, verification: IsolationEvidence | undefined): string {
  const leftOut = verification?.leftOut ?? [];
  const notApplied = verification?.notApplied ?? [];
  const protectedOnes = notApplied
    .filter(({ reason }) => !["outside_editable", "generated", "undeclared_bin"].includes(reason))
    .map(({ path }) => path);
  const bins = notApplied.filter(({ reason }) => reason === "undeclared_bin").map(({ path }) => path);
  const note = (paths: readonly string[], one: string, many: string) => {
    const shown = paths.slice(0, 3).join(", ");
    const more = paths.length > 3 ? ` and ${paths.length - 3} more` : "";
    return `; ${paths.length === 1 ? one : `${paths.length} ${many}`} not applied (${shown}${more})`;
  };
  return (
    summary +
    (leftOut.length > 0 ? note(leftOut, "1 change outside editable", "changes outside editable") : "") +
    (protectedOnes.length > 0
      ? note([...new Set(protectedOnes)], "1 change to a protected file", "changes to protected files")
      : "") +
    (bins.length > 0
      ? note(bins, "1 undeclared node_modules/.bin entry", "undeclared node_modules/.bin entries")
      : "")
  );
}

/** A change the run did not use, in a sentence the learner can act on. */
export function notAppliedSentence({ path, reason, by }: NotApplied): string {
  const unused = "your change to it was not used";
  switch (reason) {
    case "outside_editable":
      return `${path} is outside what this quest lets you change: not used`;
    case "test":
      return `${path} is a test: ${unused}`;
    case "configuration":
      return `${path} is test or package configuration: ${unused}`;
    case "named":
      return `${path} is run by ${by ?? "the check"}: ${unused}`;
    case "oracle":
      return `${path} is what the check compares against: ${unused}`;
    case "build":
      return `${path} is a build file the check's command reads: ${unused}`;
    case "setup":
      return `${path} is a setup file the test configuration${by ? ` (${by})` : ""} names: ${unused}`;
    case "package_scripts":
      return `the scripts and test settings of ${path} are the quest's: your change to them was not used`;
    case "added_test":
      return `${path} is a test you added: the check does not run it`;
    case "added_configuration":
      return `${path} is configuration you added: not used`;
    case "added_package_json":
      return `${path} would take over the project's package.json: not used`;
    case "generated":
      return `${path} is in a generated folder (dist/, build/...), which checks never see: not used`;
    case "undeclared_bin":
      return `${path} is declared by no installed package (a package.json's "bin"): the check does not run it`;
  }
}

function unusedChanges(verification: IsolationEvidence | undefined): { unusedChanges?: string[] } {
  const notApplied = verification?.notApplied ?? [];
  return notApplied.length > 0 ? { unusedChanges: notApplied.map(notAppliedSentence) } : {};
}

/**
 * A command check: answered by a fresh receipt when there is one, else run (in the isolated
 * verifier, or in place) and judged, and the run recorded as a receipt.
 */
async function evaluateCommandCheck(check: CommandCheck, ctx: EvaluationContext): Promise<CheckResult> {
  const where = resolveQuestPath(check.cwd ?? ".", ctx.paths, cwdRule(check));
  if (!where.ok) return pathProblem(check, where.written, where.reason);
  if (check.isolation === "worktree" && !ctx.probes.runIsolated) {
    return pending(
      check,
      "isolation_unavailable",
      "isolation: worktree needs the isolated task verifier, which is not available here; not run",
    );
  }
  const receipts = ctx.receipts;
  if (!receipts) return (await runAndJudge(check, ctx, where.path.absolute)).result;
  const reused = await receipts.reuse(check, ctx.questId, where.path.absolute);
  if (reused) return reused;
  const handle = await receipts.begin(check, ctx.questId, where.path.absolute);
  const { result, outcome } = await runAndJudge(check, ctx, where.path.absolute);
  return receipts.finish(handle, result, outcome);
}

async function runAndJudge(
  check: CommandCheck,
  ctx: EvaluationContext,
  cwd: string,
): Promise<{ result: CheckResult; outcome: ScriptOutcome }> {
  const request = {
    script: `${ctx.questId}/${check.id}`,
    content: check.run,
    cwd,
    timeoutMs: check.timeout_ms,
    ...(ctx.signal ? { signal: ctx.signal } : {}),
  };
  const outcome: ScriptOutcome =
    check.isolation === "none" || !ctx.probes.runIsolated
      ? await ctx.probes.runCommand(request)
      : await ctx.probes.runIsolated({
          questId: ctx.questId,
          checkId: check.id,
          cwd,
          ...(ctx.signal ? { signal: ctx.signal } : {}),
        });

  const evidenceBase = {
    kind: "command" as const,
    script: request.script,
    cwd: request.cwd,
    isolation: check.isolation,
    ...(outcome.containment ? { containment: outcome.containment } : {}),
  };
  if (!outcome.ok) {
    const { output, cut } = tail(outcome.report);
    const pendingResult = result(check, "pending", {
      ...evidenceBase,
      summary: withNotApplied(`${outcome.kind}: ${outcome.message}`, outcome.verification),
      output,
      outputTruncated: outcome.truncated || cut,
      ...unusedChanges(outcome.verification),
      ...(outcome.verification ? { verification: outcome.verification } : {}),
    });
    return { result: pendingResult, outcome };
  }

  const failed: string[] = [];
  const exitCode = outcome.exitCode ?? -1;
  if (outcome.exitCode === null || !matchesIntPredicate(check.exit_code, exitCode)) {
    failed.push(
      outcome.exitCode === null
        ? `ended by signal ${outcome.signal ?? "?"}`
        : `exit code ${exitCode}, expected ${describePredicate(check.exit_code)}`,
    );
  }
  if (check.stdout !== undefined && !matchesStringPredicate(check.stdout, outcome.stdout)) {
    failed.push(`stdout does not match ${describePredicate(check.stdout)}`);
  }
  if (check.stderr !== undefined && !matchesStringPredicate(check.stderr, outcome.stderr)) {
    failed.push(`stderr does not match ${describePredicate(check.stderr)}`);
  }
  const { output, cut } = tail(outcome.report);
  const judged = result(check, failed.length === 0 ? "pass" : "fail", {
    ...evidenceBase,
    summary: withNotApplied(
      failed.length === 0 ? `exit code ${exitCode}` : failed.join("; "),
      outcome.verification,
    ),
    ...(outcome.exitCode !== null ? { exitCode: outcome.exitCode } : {}),
    ...(outcome.signal ? { signal: outcome.signal } : {}),
    output,
    outputTruncated: outcome.truncated || cut,
    ...(failed.length > 0 ? { failed } : {}),
    ...unusedChanges(outcome.verification),
    ...(outcome.verification ? { verification: outcome.verification } : {}),
  });
  return { result: judged, outcome };
}

export const commandCheck = defineCheckType({
  type: "command",
  schema: CommandCheckSchema,
  evaluate: evaluateCommandCheck,
  needs: { taskVerifier: (check) => check.isolation === "worktree", receipts: true },
  pathFields: commandPathFields,
  newerFieldsUsed: (check) => (check.editable !== undefined ? [{ field: "editable", version: 2 }] : []),
  // A command check's own editable wins; otherwise the quest's applies to it.
  withQuestDefaults: (check, quest) =>
    check.editable === undefined && quest.editable ? { ...check, editable: [...quest.editable] } : check,
  hint: commandHint,
  reportDetail: commandReportDetail,
});

/**
 * The learner's reason for a command check that did not pass. A change of theirs the run did not
 * use comes first (a test or script they changed: it may be why), then what went wrong in words:
 * the tests that fail, else the last line the check printed (the curriculum's checkers print one
 * sentence), else where to see more. Changes outside `editable` are left to `/quest status
 * --details`: they are often an earlier quest's files. A pending run says what happens next.
 */
function commandHint(result: CheckResult): string | undefined {
  const evidence = result.evidence;
  if (evidence.kind !== "command") return undefined;
  if (result.status === "pending") return commandPendingReason(evidence);
  if (result.status !== "fail") return undefined;
  const [first, ...rest] = unusedThatMatter(evidence);
  if (first === undefined) return failureInWords(evidence);
  if (rest.length === 0) return first;
  return `${first} (and ${rest.length} more change${rest.length === 1 ? "" : "s"} not used: /quest status)`;
}

/** The learner's changes the run did not use, in words, but those outside `editable` or generated. */
function unusedThatMatter(evidence: CommandEvidence): string[] {
  const notApplied = evidence.verification?.notApplied;
  if (notApplied === undefined) return evidence.unusedChanges ?? [];
  return notApplied
    .filter(({ reason }) => reason !== "outside_editable" && reason !== "generated")
    .map(notAppliedSentence);
}

function commandPendingReason(evidence: CommandEvidence): string {
  if (evidence.pending !== undefined) return pendingReason(evidence.pending);
  if (evidence.summary.startsWith("timeout")) return pendingReason("timeout");
  return pendingReason("error");
}

/** What went wrong in a failed run, in words: failing tests, the check's own last line, or where to look. */
function failureInWords(evidence: CommandEvidence): string {
  const output = evidence.output ?? "";
  const tests = testTally(output);
  if (tests !== undefined) return `the tests fail: ${tests.failed} of ${tests.total}`;
  if (evidence.exitCode === undefined) return "its run was stopped before it ended; /quest check tries again";
  const said = lastSentence(output);
  if (said !== undefined) return said;
  const outputOnly = (evidence.failed ?? []).every((why) => why.startsWith("std"));
  return outputOnly
    ? "its output is not what the goal asks for yet (/quest status --details)"
    : "not yet: /quest status --details shows what the check ran";
}

/** The failing and total tests of a `node --test` run (its TAP or spec summary), if the output has one. */
export function testTally(output: string): { failed: number; total: number } | undefined {
  const count = (name: string) => {
    const found = new RegExp(`^(?:#|ℹ) ${name} (\\d+)\\s*$`, "m").exec(output);
    return found ? Number(found[1]) : undefined;
  };
  const total = count("tests");
  const failed = count("fail");
  return total !== undefined && failed !== undefined && failed > 0 ? { failed, total } : undefined;
}

/** The last line a check printed, if it reads as a sentence: not indented (a stack frame), not Node's banner. */
function lastSentence(output: string): string | undefined {
  const lines = output
    .split("\n")
    .map((line) => line.trimEnd())
    .filter((line) => line !== "" && !/^\s/.test(line) && !/^Node\.js v\d/.test(line));
  const last = lines.at(-1);
  if (last === undefined || last.length > 200) return undefined;
  // "check-code: add(2, 3) returned -1" is the checker's name, then its sentence.
  return last.replace(/^[a-z][\w.-]*: (?=\S)/, "");
}
