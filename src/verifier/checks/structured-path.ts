/**
 * What `json_path` and `yaml_path` share: the schema, the parsers (JSON, and YAML refusing alias
 * bombs), JSONPath reading and the evaluation. Each type is its own module (json-path.ts,
 * yaml-path.ts) built on this one.
 */
import { isDeepStrictEqual } from "node:util";
import { z } from "zod";
import { checkBaseFields, PathSchema } from "../../core/check-fields.ts";
import { ANY_TEMPLATE } from "../../core/paths.ts";
import { compileQuestRegex, regexProblem } from "../../core/quest-regex.ts";
import type { EvaluationContext } from "../context.ts";
import { resolveQuestPath } from "../paths.ts";
import type { CheckResult } from "../results.ts";
import type { CheckOf, PathField } from "./define.ts";
import { pathProblem, pending, result } from "./result.ts";

export const ASSERTIONS = ["exists", "missing", "non_empty", "equals", "contains", "matches"] as const;
export type Assertion = (typeof ASSERTIONS)[number];

/** The schema of a `json_path` or `yaml_path` check: the file, a JSONPath, and one assertion. */
export function structuredPathSchema<T extends "json_path" | "yaml_path">(type: T) {
  return z
    .strictObject({
      ...checkBaseFields,
      type: z.literal(type),
      file: PathSchema,
      path: z
        .string()
        .startsWith("$", "a JSONPath starts with $")
        .superRefine((path, ctx) => {
          const problem = jsonPathProblem(path);
          if (problem) ctx.addIssue({ code: "custom", message: problem });
        }),
      assert: z.enum(ASSERTIONS),
      value: z.unknown().optional(),
    })
    .superRefine((check, ctx) => {
      const needsValue =
        check.assert === "equals" || check.assert === "contains" || check.assert === "matches";
      if (needsValue && check.value === undefined) {
        ctx.addIssue({ code: "custom", path: ["assert"], message: `assert: ${check.assert} needs a value` });
      }
      if (!needsValue && check.value !== undefined) {
        ctx.addIssue({ code: "custom", path: ["value"], message: `assert: ${check.assert} takes no value` });
      }
      if (check.assert === "matches") {
        const problem =
          typeof check.value === "string" ? regexProblem(check.value) : "value must be a string";
        if (problem) ctx.addIssue({ code: "custom", path: ["value"], message: `invalid regex: ${problem}` });
      }
    });
}
export type StructuredPathCheck = CheckOf<ReturnType<typeof structuredPathSchema<"json_path" | "yaml_path">>>;

/**
 * Why a JSONPath cannot run: a filter (`[?(...)]`) or a script (`[(...)]`) is code, and a check
 * never runs code from a quest (readJsonPath turns evaluation off, so it would fail every time).
 */
export function jsonPathProblem(path: string): string | undefined {
  const at = path.search(/\[\s*\??\s*\(/);
  if (at < 0) return undefined;
  const what = /^\[\s*\?/.test(path.slice(at)) ? "a filter" : "a script expression";
  return (
    `${what} (${path.slice(at, at + 24)}${path.length > at + 24 ? "…" : ""}) is not supported: a check never runs code from a quest; ` +
    "select by name, index or * ($.scripts.test, $.items[0].name, $.items[*].name) and let assert decide (equals, contains, matches)"
  );
}

/** The file the check reads: any template may start it. */
export function structuredPathFields(check: { file: string }): PathField[] {
  return [{ field: ["file"], written: check.file, rule: ANY_TEMPLATE }];
}

export type StructuredPathEvidence = {
  kind: "structured_path";
  summary: string;
  file: string;
  path: string;
  matched: unknown[];
  parseError?: { message: string; line?: number; column?: number };
};

/** The read bound of the contract: a larger file is pending, not read. */
export const MAX_READ_BYTES = 4 * 1024 * 1024;

type Parsed = { ok: true; value: unknown } | { ok: false; message: string; line?: number; column?: number };

export function parseJson(text: string): Parsed {
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch (error) {
    const message = (error as Error).message;
    const position = /line (\d+) column (\d+)/.exec(message);
    return {
      ok: false,
      message,
      ...(position ? { line: Number(position[1]), column: Number(position[2]) } : {}),
    };
  }
}

/**
 * A learner's YAML file as data. The yaml library is loaded here, when a check reads a file,
 * not when the check types are: a lint never needs it for a check's own fields.
 */
export async function parseYaml(text: string): Promise<Parsed> {
  const [{ parseDocument }, { documentValue }] = await Promise.all([
    import("yaml"),
    import("../../core/yaml-document.ts"),
  ]);
  const document = parseDocument(text, { prettyErrors: true });
  const error = document.errors[0];
  if (error) {
    return {
      ok: false,
      message: error.message.split("\n")[0] ?? error.message,
      ...(error.linePos ? { line: error.linePos[0].line, column: error.linePos[0].col } : {}),
    };
  }
  // A learner's file may be an alias bomb too: refused with a sentence, never expanded.
  const value = documentValue(document);
  if (!value.ok) {
    const position = value.offset !== undefined ? lineAndColumn(text, value.offset) : undefined;
    return { ok: false, message: value.message, ...position };
  }
  return { ok: true, value: value.value };
}

function lineAndColumn(text: string, offset: number): { line: number; column: number } {
  const before = text.slice(0, offset);
  const line = before.split("\n").length;
  return { line, column: offset - before.lastIndexOf("\n") };
}

/**
 * Every value the JSONPath matches. Script filters are off: a quest file never runs code here.
 * jsonpath-plus (and the node:vm it imports) is loaded when a check reads a file, not by a lint.
 */
export async function readJsonPath(value: unknown, path: string): Promise<unknown[]> {
  const { JSONPath } = await import("jsonpath-plus");
  return JSONPath({ path, json: value as object, wrap: true, eval: false }) as unknown[];
}

function isNonEmpty(value: unknown): boolean {
  if (value === null || value === undefined) return false;
  if (typeof value === "string" || Array.isArray(value)) return value.length > 0;
  if (typeof value === "object") return Object.keys(value).length > 0;
  return true;
}

function holds(
  assertion: StructuredPathCheck["assert"],
  matched: unknown,
  expected: unknown,
  matchesPattern: (value: string) => boolean,
): boolean {
  switch (assertion) {
    case "exists":
    case "missing":
      return true;
    case "non_empty":
      return isNonEmpty(matched);
    case "equals":
      return isDeepStrictEqual(matched, expected);
    case "contains":
      if (typeof matched === "string") return typeof expected === "string" && matched.includes(expected);
      if (Array.isArray(matched)) return matched.some((item) => isDeepStrictEqual(item, expected));
      return false;
    case "matches":
      return (typeof matched === "string" || typeof matched === "number") && matchesPattern(String(matched));
  }
}

/** `assert: matches` runs on the quest regex engine (linear time); a pattern it refuses matches nothing. */
function patternTest(check: StructuredPathCheck): (value: string) => boolean {
  if (check.assert !== "matches") return () => false;
  const compiled = compileQuestRegex(String(check.value));
  return compiled.ok ? (value) => compiled.regex.test(value) : () => false;
}

/** Keeps evidence small: the first few matches, each cut short. */
function sample(values: unknown[]): unknown[] {
  return values.slice(0, 5).map((value) => {
    const text = JSON.stringify(value) ?? "undefined";
    return text.length > 200 ? `${text.slice(0, 200)}…` : value;
  });
}

export async function evaluateStructuredPathCheck(
  check: StructuredPathCheck,
  ctx: EvaluationContext,
): Promise<CheckResult> {
  const resolved = resolveQuestPath(check.file, ctx.paths);
  if (!resolved.ok) return pathProblem(check, resolved.written, resolved.reason);
  const read = await ctx.probes.readFile(resolved.path, MAX_READ_BYTES);
  const base = { kind: "structured_path" as const, file: check.file, path: check.path };
  if (!read.ok) {
    switch (read.problem) {
      case "escape":
        return pathProblem(check, check.file, read.message);
      case "too_large":
        return pending(
          check,
          "too_large",
          `${check.file} is ${read.size} bytes, over the ${MAX_READ_BYTES}-byte read bound; not read`,
        );
      case "missing":
      case "not_file":
        return result(check, "fail", { ...base, summary: `${check.file}: ${read.message}`, matched: [] });
      case "error":
        return pending(check, "error", `${check.file}: ${read.message}`);
    }
  }
  if (read.bytes.includes(0)) {
    return result(check, "fail", {
      kind: "path",
      summary: `${check.file} is a binary file, not ${check.type === "json_path" ? "JSON" : "YAML"}`,
      path: check.file,
      problem: "binary",
    });
  }
  const text = read.bytes.toString("utf8");
  const parsed = check.type === "json_path" ? parseJson(text) : await parseYaml(text);
  if (!parsed.ok) {
    const where = parsed.line !== undefined ? `:${parsed.line}:${parsed.column}` : "";
    return result(check, "fail", {
      ...base,
      summary: `${check.file}${where} does not parse: ${parsed.message}`,
      matched: [],
      parseError: {
        message: parsed.message,
        ...(parsed.line !== undefined ? { line: parsed.line, column: parsed.column } : {}),
      },
    });
  }
  let matched: unknown[];
  try {
    matched = await readJsonPath(parsed.value, check.path);
  } catch (error) {
    return result(check, "fail", {
      ...base,
      summary: `JSONPath ${check.path}: ${(error as Error).message}`,
      matched: [],
    });
  }
  const matchesPattern = patternTest(check);
  const passed =
    check.assert === "missing"
      ? matched.length === 0
      : matched.some((value) => holds(check.assert, value, check.value, matchesPattern));
  const expectation =
    check.value === undefined ? check.assert : `${check.assert} ${JSON.stringify(check.value)}`;
  const summary = passed
    ? `${check.path} in ${check.file}: ${expectation} holds (${matched.length} matched)`
    : matched.length === 0
      ? `${check.path} matches nothing in ${check.file}`
      : `${check.path} in ${check.file}: no matched value ${expectation} (saw ${JSON.stringify(sample(matched))})`;
  return result(check, passed ? "pass" : "fail", { ...base, summary, matched: sample(matched) });
}

/**
 * The learner's reason for a failed json_path or yaml_path check: the file is missing or does not
 * parse (the parser's own words and line), or it lacks the setting the check looks for, named by
 * the path's last key ("packages", not `$.packages[*]`).
 */
export function structuredPathHint(result: CheckResult): string | undefined {
  const evidence = result.evidence;
  if (result.status !== "fail" || evidence.kind !== "structured_path") return undefined;
  const setting = lastKey(evidence.path);
  const what = setting === undefined ? "what the goal asks for" : `"${setting}"`;
  if (evidence.summary.includes(" matches nothing in ")) return `${evidence.file} has no ${what} yet`;
  if (evidence.summary.includes(": no matched value "))
    return `${what} in ${evidence.file} is not what the goal asks for yet`;
  // The file is missing or does not parse: the summary says so, with the parser's line.
  return evidence.summary;
}

/** The last named key of a JSONPath (`$.a.b[*]` gives b; `$['x y']` gives x y), if it names one. */
function lastKey(path: string): string | undefined {
  const keys = [...path.matchAll(/\.([A-Za-z_$][\w$-]*)|\[['"]([^'"]+)['"]\]/g)].map(
    (match) => match[1] ?? match[2],
  );
  return keys.at(-1);
}
