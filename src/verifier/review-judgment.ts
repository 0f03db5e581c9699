/**
 * The acceptance rules of a `review` check (docs/quest-format.md, "review"): what a reviewer's
 * `submit_review` must rest on before pi-quests takes it as a judgment. Pure: the adapter reports
 * what happened (the reads the reviewer's own `read` calls returned, and what it submitted), and
 * these rules decide, whatever the model said around them.
 *
 * A judgment is valid only when there is exactly one submission, its verdict is `pass` or `fail`,
 * it cites at least one file, every cited path is relative, normalized and inside the workspace,
 * the reviewer read that path and what it read was not empty, and every quote is non-empty and
 * occurs (whitespace collapsed, case kept) in what one read of that file returned.
 */
import { posix } from "node:path";

/** What one successful `read` call of the reviewer returned (Pi's own trailing notice removed). */
export type ReviewRead = {
  /** Workspace-relative, normalized. */
  path: string;
  /** The file's line the returned text starts at (1 without an offset). */
  firstLine: number;
  text: string;
};

/** One `submit_review` call's arguments, as the model sent them: nothing is trusted yet. */
export type ReviewSubmission = { verdict?: unknown; evidence?: unknown };

/** A quote that holds: where it is in the file. */
export type Citation = { path: string; quote: string; lines: [number, number] };

/** One reason a judgment was not taken. */
export type ReviewProblem = { path?: string; quote?: string; why: string };

export type Judgment =
  | { valid: true; verdict: "pass" | "fail"; citations: Citation[] }
  | { valid: false; reason: string; problems: ReviewProblem[] };

const invalid = (reason: string, problems: ReviewProblem[] = []): Judgment => ({
  valid: false,
  reason,
  problems,
});

/**
 * A cited path as the workspace names it, or undefined when it is not one: absolute, empty, or
 * leaving the workspace through `..`. `./a`, `a//b` and `a\b` are `a`, `a/b`, `a/b`.
 */
export function normalizeCitedPath(path: string): string | undefined {
  const slashed = path.replaceAll("\\", "/").trim();
  if (slashed === "" || slashed.startsWith("/") || /^[A-Za-z]:/.test(slashed)) return undefined;
  const normalized = posix.normalize(slashed).replace(/\/+$/, "");
  if (normalized === "." || normalized === "" || normalized === ".." || normalized.startsWith("../"))
    return undefined;
  return normalized;
}

/** Judges the reviewer's submissions against its reads. */
export function judgeSubmission(
  submissions: readonly ReviewSubmission[],
  reads: readonly ReviewRead[],
): Judgment {
  if (submissions.length === 0)
    return invalid("the reviewer gave no judgment (it never called submit_review)");
  if (submissions.length > 1)
    return invalid(
      `the reviewer called submit_review ${submissions.length} times; one judgment is taken, not several`,
    );
  const [submission] = submissions as [ReviewSubmission];
  const { verdict, evidence } = submission;
  if (verdict !== "pass" && verdict !== "fail")
    return invalid(`the verdict must be pass or fail, not ${JSON.stringify(verdict) ?? "nothing"}`);
  if (!Array.isArray(evidence) || evidence.length === 0)
    return invalid(
      `a ${verdict} with no evidence is a claim, not a judgment: cite a file and a quote from it`,
    );
  if (reads.length === 0)
    return invalid("a claim without reads: the reviewer read no file before it judged", []);
  const citations: Citation[] = [];
  const problems: ReviewProblem[] = [];
  for (const item of evidence) {
    const checked = checkCitation(item, reads);
    if ("why" in checked) problems.push(checked);
    else citations.push(checked);
  }
  if (problems.length > 0) return invalid(problems.map(describeProblem).join("; "), problems);
  return { valid: true, verdict, citations };
}

function describeProblem(problem: ReviewProblem): string {
  if (problem.path !== undefined && problem.quote !== undefined)
    return `${problem.path}: "${shorten(problem.quote)}" ${problem.why}`;
  return problem.path !== undefined ? `${problem.path}: ${problem.why}` : problem.why;
}

function shorten(text: string): string {
  const flat = collapse(text).text;
  return flat.length > 60 ? `${flat.slice(0, 57)}...` : flat;
}

/** One piece of evidence: a citation with its lines, or why it does not hold. */
function checkCitation(item: unknown, reads: readonly ReviewRead[]): Citation | ReviewProblem {
  if (typeof item !== "object" || item === null) return { why: "a piece of evidence is not {path, quote}" };
  const { path, quote } = item as { path?: unknown; quote?: unknown };
  if (typeof path !== "string") return { why: "a piece of evidence has no path" };
  const normalized = normalizeCitedPath(path);
  if (normalized === undefined)
    return { path, why: "is not a path inside the workspace (relative, without ..)" };
  const ofFile = reads.filter((read) => read.path === normalized);
  if (ofFile.length === 0) return { path: normalized, why: "was cited but never read by the reviewer" };
  if (ofFile.every((read) => read.text.trim() === ""))
    return { path: normalized, why: "was read, but the read returned nothing" };
  if (typeof quote !== "string" || collapse(quote).text === "")
    return { path: normalized, why: "is cited without a quote" };
  for (const read of ofFile) {
    const lines = findQuote(read, quote);
    if (lines) return { path: normalized, quote, lines };
  }
  return { path: normalized, quote, why: "is not in what the reviewer read of that file" };
}

/** Text with every run of whitespace made one space and the ends trimmed, and where each character came from. */
function collapse(text: string): { text: string; origin: number[] } {
  let out = "";
  const origin: number[] = [];
  let space = false;
  for (let at = 0; at < text.length; at++) {
    const char = text.charAt(at);
    if (/\s/.test(char)) {
      space = out !== "";
      continue;
    }
    if (space) {
      out += " ";
      origin.push(at - 1);
      space = false;
    }
    out += char;
    origin.push(at);
  }
  return { text: out, origin };
}

/** The file lines a quote covers in one read, or undefined when the read does not hold it. */
function findQuote(read: ReviewRead, quote: string): [number, number] | undefined {
  const haystack = collapse(read.text);
  const needle = collapse(quote).text;
  const found = haystack.text.indexOf(needle);
  if (found < 0) return undefined;
  const start = haystack.origin[found] ?? 0;
  const end = haystack.origin[found + needle.length - 1] ?? start;
  const lineAt = (offset: number) => read.firstLine + countNewlines(read.text.slice(0, offset));
  return [lineAt(start), lineAt(end)];
}

function countNewlines(text: string): number {
  let count = 0;
  for (const char of text) if (char === "\n") count++;
  return count;
}
