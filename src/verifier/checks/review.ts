/**
 * `review` (version 2): a criterion no command can decide, judged by an independent reviewer (a
 * fresh model session with read-only tools, on a snapshot of the workspace) whose judgment counts
 * only when it rests on what the reviewer itself read (review-judgment.ts). Reviews cost money and
 * send files to a provider: one runs only when the learner asks (`/quest check`, the CLI), or at a
 * turn end when the check says `on_turn_end: true`, and at most once per fingerprint: a fresh
 * receipt of a valid judgment answers it again.
 */
import { z } from "zod";
import { checkBaseFields } from "../../core/check-fields.ts";
import type { QuestPathRule } from "../../core/paths.ts";
import { redactCommand } from "../../core/redact.ts";
import type { EvaluationContext } from "../context.ts";
import type { ReviewOutcome, ReviewRecord } from "../probes.ts";
import type { CheckResult, PendingKind } from "../results.ts";
import { type Citation, judgeSubmission, type ReviewProblem } from "../review-judgment.ts";
import type { ReceiptEvidence } from "./command.ts";
import { type CheckOf, defineCheckType, type PathField, type ReportDetail } from "./define.ts";
import { result } from "./result.ts";

export const REVIEW_MODEL_PATTERN = /^[^\s/]+\/\S+$/;

export const ReviewCheckSchema = z.strictObject({
  ...checkBaseFields,
  type: z.literal("review"),
  criterion: z.string().trim().min(1, "criterion must not be empty"),
  /** Where the reviewer should start (workspace-relative); it may read other files too. */
  files: z.array(z.string().min(1, "a file must not be empty")).default([]),
  model: z
    .string()
    .regex(REVIEW_MODEL_PATTERN, "model is provider/model-id (for example anthropic/claude-sonnet-4-5)")
    .optional(),
  timeout_ms: z.int().positive().max(600_000).default(120_000),
  /** Review at turn ends too, not only on `/quest check` (each review costs a model run). */
  on_turn_end: z.boolean().default(false),
});
export type ReviewCheck = CheckOf<typeof ReviewCheckSchema>;

export type ReviewEvidence = {
  kind: "review";
  summary: string;
  criterion: string;
  /** `provider/id` the reviewer ran with. */
  model?: string;
  /** Only when the judgment was valid. */
  verdict?: "pass" | "fail";
  citations?: Citation[];
  /** Why a judgment was not taken. */
  problems?: ReviewProblem[];
  /** What the reviewer read, file by file, with the lines each read returned. */
  reads?: { path: string; lines: [number, number] }[];
  /** Tools the reviewer called that it does not have (each call was refused). */
  refusedTools?: string[];
  /** The fingerprint of the snapshot the reviewer read. */
  fingerprint?: string;
  record?: ReviewRecord;
  receipt?: ReceiptEvidence;
  pending?: PendingKind;
};

/** `files` name files of the workspace: relative, no template, never out of it. */
const WORKSPACE_FILE: QuestPathRule = { templates: "none", relativeTo: "the workspace" };

function reviewPathFields(check: z.output<typeof ReviewCheckSchema>): PathField[] {
  return check.files.map((written, index) => ({ field: ["files", index], written, rule: WORKSPACE_FILE }));
}

/** Whether this evaluation may start a review (one costs a model run): asked for, or a turn end the check opted into. */
function mayReview(check: ReviewCheck, ctx: EvaluationContext): boolean {
  const trigger = ctx.trigger ?? "manual";
  return trigger === "manual" || (trigger === "turn_end" && check.on_turn_end);
}

async function evaluateReviewCheck(check: ReviewCheck, ctx: EvaluationContext): Promise<CheckResult> {
  const base = { kind: "review" as const, criterion: check.criterion };
  const review = ctx.probes.review;
  if (!review) {
    return result(check, "pending", {
      ...base,
      summary: "no reviewer is available here; not reviewed",
      pending: "unavailable",
    });
  }
  const reused = await ctx.receipts?.reuseReview?.(check, ctx.questId);
  if (reused) return reused;
  if (!mayReview(check, ctx)) {
    return result(check, "pending", {
      ...base,
      summary: "not reviewed yet: a review runs when you ask for it (/quest check)",
      pending: "awaiting_review",
    });
  }
  const started = new Date();
  const outcome = await review({
    questId: ctx.questId,
    checkId: check.id,
    criterion: check.criterion,
    files: check.files,
    ...(check.model ? { model: check.model } : {}),
    timeoutMs: check.timeout_ms,
    ...(ctx.signal ? { signal: ctx.signal } : {}),
  });
  const judged = judgeOutcome(check, outcome);
  return ctx.receipts?.recordReview
    ? ctx.receipts.recordReview(check, ctx.questId, { started, result: judged, outcome })
    : judged;
}

const PENDING_OF: Record<Extract<ReviewOutcome, { ok: false }>["kind"], PendingKind> = {
  no_model: "no_model",
  timeout: "timeout",
  stopped: "stopped",
  unavailable: "unavailable",
  error: "error",
  changed: "stale",
};

/** The result a review's outcome gives under the acceptance rules. */
export function judgeOutcome(check: ReviewCheck, outcome: ReviewOutcome): CheckResult {
  const base = {
    kind: "review" as const,
    criterion: check.criterion,
    ...(outcome.model ? { model: outcome.model } : {}),
    ...(outcome.record ? { record: outcome.record } : {}),
  };
  if (!outcome.ok) {
    return result(check, "pending", { ...base, summary: outcome.message, pending: PENDING_OF[outcome.kind] });
  }
  const facts = {
    ...base,
    reads: outcome.reads.map((read) => ({ path: read.path, lines: linesOf(read) })),
    ...(outcome.fingerprint.ok ? { fingerprint: outcome.fingerprint.value } : {}),
    ...(outcome.refusedTools?.length ? { refusedTools: outcome.refusedTools } : {}),
  };
  const judgment = judgeSubmission(outcome.submissions, outcome.reads);
  if (!judgment.valid) {
    return result(check, "pending", {
      ...facts,
      summary: `the review was not taken: ${redactCommand(judgment.reason)}`,
      problems: judgment.problems.map((p) => (p.quote ? { ...p, quote: redactCommand(p.quote) } : p)),
      pending: "needs_review",
    });
  }
  const cited = judgment.citations.map((c) => `${c.path}:${c.lines[0]}`).join(", ");
  // Quotes are file contents, kept in receipts and reports: redacted as a receipt's command is.
  const citations = judgment.citations.map((c) => ({ ...c, quote: redactCommand(c.quote) }));
  const evidence = { ...facts, verdict: judgment.verdict, citations };
  if (judgment.verdict === "fail")
    return result(check, "fail", { ...evidence, summary: `the reviewer judged it does not hold (${cited})` });
  if (!outcome.fingerprint.ok) {
    const why = `the snapshot it read has no fingerprint (${outcome.fingerprint.reason})`;
    return result(check, "pending", {
      ...evidence,
      summary: `the reviewer judged it holds, but ${why}, so this pass cannot count`,
      pending: "no_fingerprint",
    });
  }
  return result(check, "pass", { ...evidence, summary: `the reviewer judged it holds (${cited})` });
}

function linesOf(read: { firstLine: number; text: string }): [number, number] {
  const count = read.text === "" ? 1 : read.text.replace(/\n$/, "").split("\n").length;
  return [read.firstLine, read.firstLine + count - 1];
}

export const reviewCheck = defineCheckType({
  type: "review",
  schema: ReviewCheckSchema,
  evaluate: evaluateReviewCheck,
  needs: { receipts: true, review: true },
  pathFields: reviewPathFields,
  // The whole type is version 2: the loader words `type` as "type: review needs version: 2".
  newerFieldsUsed: () => [{ field: "type", version: 2 }],
  hint: reviewHint,
  reportDetail: reviewReportDetail,
});

function reviewHint(result: CheckResult): string | undefined {
  const evidence = result.evidence;
  if (result.status !== "pending" || evidence.kind !== "review") return undefined;
  if (evidence.pending === "awaiting_review") return "/quest check to have it reviewed";
  // The summary says which model and why (/quest status); the HUD says what to do.
  if (evidence.pending === "no_model") return "no usable review model: /model, /login, or the check's model:";
  if (evidence.pending === "needs_review")
    return evidence.summary.replace("the review was not taken: ", "review not taken: ");
  return undefined;
}

/** The citations a judgment rests on, or why it was not taken; the model; a reused receipt. */
function reviewReportDetail(result: CheckResult): ReportDetail {
  const evidence = result.evidence;
  if (evidence.kind !== "review") return {};
  const lines: string[] = [];
  if (evidence.model) lines.push(`reviewer: ${evidence.model}`);
  for (const citation of evidence.citations ?? []) {
    const [from, to] = citation.lines;
    lines.push(`${citation.path}:${from === to ? from : `${from}-${to}`}: "${citation.quote}"`);
  }
  for (const problem of evidence.problems ?? []) {
    lines.push(
      `- ${[problem.path, problem.quote && `"${problem.quote}"`, problem.why].filter(Boolean).join(" ")}`,
    );
  }
  if (evidence.refusedTools?.length) lines.push(`refused tool calls: ${evidence.refusedTools.join(", ")}`);
  if (evidence.record) lines.push(`transcript: ${evidence.record.transcript.file}`);
  return {
    ...(evidence.receipt?.reused
      ? { note: `receipt ${evidence.receipt.id}: same review, same files; not reviewed again` }
      : {}),
    ...(lines.length > 0 ? { lines } : {}),
  };
}
