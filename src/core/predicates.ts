/**
 * The predicates of a quest file: a bare value, or a map of one operator. Each kind of predicate
 * is read the same way (`operatorPredicate`): a map picks its operator by its keys first (an
 * unknown key is named, with the closest operator; two operators are refused), then that
 * operator's value is checked, so a message names the one thing to fix.
 */
import { z } from "zod";
import { flagsProblem, regexProblem } from "./quest-regex.ts";
import { closestName } from "./suggest.ts";

/**
 * `{regex, flags}` is judged by the engine that will run it (src/core/quest-regex.ts): bad flags
 * are reported on the flags, a pattern RE2 cannot run on the regex.
 */
export function refineRegexPredicate(
  value: { regex: string; flags?: string | undefined },
  ctx: z.RefinementCtx,
) {
  const badFlags = value.flags === undefined ? undefined : flagsProblem(value.flags);
  if (badFlags) {
    ctx.addIssue({ code: "custom", path: ["flags"], message: badFlags });
    return;
  }
  const problem = regexProblem(value.regex, value.flags);
  if (problem) ctx.addIssue({ code: "custom", path: ["regex"], message: `invalid regex: ${problem}` });
}

/** Says what was given, for messages about a value of the wrong shape. */
export function describeValue(input: unknown): string {
  if (input === undefined) return "nothing";
  if (input === null) return "null";
  if (Array.isArray(input)) return input.length === 0 ? "an empty list" : "a list";
  if (typeof input === "object") return `a map with ${Object.keys(input).join(", ") || "no keys"}`;
  return `${typeof input} ${JSON.stringify(input)}`;
}

/** What one key of an operator takes: a test that says what is wrong, or undefined. */
type ValueRule = (value: unknown) => string | undefined;

const rule =
  (what: string, test: (value: unknown) => boolean): ValueRule =>
  (value) =>
    test(value) ? undefined : `must be ${what}, not ${describeValue(value)}`;

const isScalar = (value: unknown) =>
  value === null ||
  typeof value === "string" ||
  typeof value === "boolean" ||
  (typeof value === "number" && Number.isFinite(value));

const TEXT = rule("a string", (value) => typeof value === "string");
const INTEGER = rule("an integer", (value) => Number.isSafeInteger(value));
const NUMBER = rule("a number", (value) => typeof value === "number" && Number.isFinite(value));
const SCALAR = rule("a string, number, boolean or null", isScalar);
const listOf =
  (what: string, test: (value: unknown) => boolean): ValueRule =>
  (value) => {
    if (!Array.isArray(value)) return `must be a list of ${what}, not ${describeValue(value)}`;
    if (value.length === 0) return "must list at least one value";
    const index = value.findIndex((item) => !test(item));
    return index === -1
      ? undefined
      : `item ${index + 1} must be one of ${what}, not ${describeValue(value[index])}`;
  };

/** One operator: its keys (the first names it; the others may go with it) and what each takes. */
type Operator = {
  /** How a message names it: `regex`, `min/max`. */
  name: string;
  /** Its keys and what each takes. */
  keys: Record<string, ValueRule>;
  /** The keys it cannot go without (default: its first key). */
  required?: readonly string[];
  /** Checks of the whole operator once every key holds the right kind of value. */
  refine?: (value: Record<string, unknown>, ctx: z.RefinementCtx) => void;
};

type PredicateKind = {
  /** A bare value's rule (equality). */
  bare: (value: unknown) => boolean;
  /** What a wrong value is told it should be: `expected ${expected}; got ...`. */
  expected: string;
  operators: readonly Operator[];
};

/**
 * A predicate schema: a bare value, or a map of exactly one operator. The map's keys pick the
 * operator; then its values are checked. Issues about a key point at the key (`params.key`).
 */
function operatorPredicate<T>(kind: PredicateKind): z.ZodType<T> {
  const owners = new Map<string, Operator>();
  for (const operator of kind.operators)
    for (const key of Object.keys(operator.keys)) owners.set(key, operator);
  const names = [...owners.keys()];
  return z.custom<T>().superRefine((value, ctx) => {
    if (value === undefined) {
      ctx.addIssue({ code: "custom", message: "is required" });
      return;
    }
    if (typeof value !== "object" || value === null || Array.isArray(value)) {
      if (!kind.bare(value)) ctx.addIssue({ code: "custom", message: wrong(kind, value) });
      return;
    }
    const map = value as Record<string, unknown>;
    const keys = Object.keys(map);
    const unknown = keys.filter((key) => !owners.has(key));
    for (const key of unknown) {
      const closest = closestName(key, names);
      const mean =
        closest === undefined ? `; the operators are ${operatorList(kind)}` : ` (did you mean ${closest}?)`;
      ctx.addIssue({ code: "custom", params: { key }, message: `unknown operator "${key}"${mean}` });
    }
    if (unknown.length > 0) return;
    const used = [...new Set(keys.map((key) => owners.get(key) as Operator))];
    if (used.length === 0) {
      ctx.addIssue({ code: "custom", message: wrong(kind, value) });
      return;
    }
    if (used.length > 1) {
      const given = used.map((operator) => operator.name).join(" and ");
      ctx.addIssue({ code: "custom", message: `give one operator, not ${given}` });
      return;
    }
    const operator = used[0] as Operator;
    const [first] = Object.keys(operator.keys);
    const missing = (operator.required ?? [first]).filter((key) => key !== undefined && !(key in map));
    if (missing.length > 0) {
      const given = keys.join(", ");
      ctx.addIssue({
        code: "custom",
        message: `${given} goes with ${missing.join(" and ")}; add ${missing[0]}`,
      });
      return;
    }
    let valid = true;
    for (const key of keys) {
      const problem = operator.keys[key]?.(map[key]);
      if (problem) {
        valid = false;
        ctx.addIssue({ code: "custom", path: [key], message: problem });
      }
    }
    if (valid) operator.refine?.(map, ctx);
  });
}

function operatorList(kind: PredicateKind): string {
  return kind.operators.map((operator) => operator.name).join(", ");
}

function wrong(kind: PredicateKind, value: unknown): string {
  return `expected ${kind.expected}; got ${describeValue(value)}`;
}

const regexOperator: Operator = {
  name: "regex",
  keys: { regex: TEXT, flags: TEXT },
  refine: (value, ctx) => refineRegexPredicate(value as { regex: string; flags?: string }, ctx),
};

const STRING_OPERATORS = "equals, contains, starts_with, ends_with, regex (with optional flags) or one_of";

/** A bare string (equality) or exactly one operator. */
export type StringPredicate =
  | string
  | { equals: string }
  | { contains: string }
  | { starts_with: string }
  | { ends_with: string }
  | { regex: string; flags?: string | undefined }
  | { one_of: string[] };

export const StringPredicateSchema = operatorPredicate<StringPredicate>({
  bare: (value) => typeof value === "string",
  expected: `a string or exactly one of ${STRING_OPERATORS}`,
  operators: [
    { name: "equals", keys: { equals: TEXT } },
    { name: "contains", keys: { contains: TEXT } },
    { name: "starts_with", keys: { starts_with: TEXT } },
    { name: "ends_with", keys: { ends_with: TEXT } },
    regexOperator,
    { name: "one_of", keys: { one_of: listOf("strings", (item) => typeof item === "string") } },
  ],
});

/** A bare integer (equality), `{equals}`, or `{min}` and/or `{max}`. */
export type IntPredicate =
  | number
  | { equals: number }
  | { min?: number | undefined; max?: number | undefined };

export const IntPredicateSchema = operatorPredicate<IntPredicate>({
  bare: (value) => Number.isSafeInteger(value),
  expected: "an integer, {equals: N}, or {min: N} and/or {max: N}",
  operators: [
    { name: "equals", keys: { equals: INTEGER } },
    {
      name: "min/max",
      keys: { min: INTEGER, max: INTEGER },
      required: [],
      refine: (value, ctx) => {
        const { min, max } = value as { min?: number; max?: number };
        if (min !== undefined && max !== undefined && min > max)
          ctx.addIssue({ code: "custom", message: "min must not be greater than max" });
      },
    },
  ],
});

type Scalar = string | number | boolean | null;

/** What a payload field must be: a literal, or one string or number operator. */
export type FieldPredicate =
  | Scalar
  | { equals: Scalar }
  | { contains: string }
  | { starts_with: string }
  | { ends_with: string }
  | { regex: string; flags?: string | undefined }
  | { one_of: Scalar[] }
  | { min?: number | undefined; max?: number | undefined };

export const FieldPredicateSchema = operatorPredicate<FieldPredicate>({
  bare: isScalar,
  expected:
    "a value (a string, number, boolean or null) or one operator (equals, contains, starts_with, ends_with, regex, one_of, min/max)",
  operators: [
    { name: "equals", keys: { equals: SCALAR } },
    { name: "contains", keys: { contains: TEXT } },
    { name: "starts_with", keys: { starts_with: TEXT } },
    { name: "ends_with", keys: { ends_with: TEXT } },
    regexOperator,
    { name: "one_of", keys: { one_of: listOf("strings, numbers, booleans or null", isScalar) } },
    { name: "min/max", keys: { min: NUMBER, max: NUMBER }, required: [] },
  ],
});

/**
 * An integer predicate about a value that is never outside `lowest`..`highest` (a count, an exit
 * code): one that no value in that range satisfies can never pass, and is refused when the quest
 * is loaded (`count: -1`, `count: {max: -1}`, `exit_code: 256`) instead of failing every time.
 */
export function boundedIntPredicate(
  what: string,
  lowest: number,
  highest = Number.MAX_SAFE_INTEGER,
): z.ZodType<IntPredicate> {
  return IntPredicateSchema.superRefine((value, ctx) => {
    const range = rangeOf(value);
    if (range === undefined) return;
    if (Math.max(range.min, lowest) <= Math.min(range.max, highest)) return;
    const bounds = highest === Number.MAX_SAFE_INTEGER ? `${lowest} or more` : `${lowest} to ${highest}`;
    const given =
      typeof value === "object" ? JSON.stringify(value).replaceAll('"', "").replaceAll(",", ", ") : value;
    ctx.addIssue({
      code: "custom",
      message: `${given} can never pass: ${what} is ${bounds}; give a value it can have`,
    });
  });
}

/** The integers an integer predicate accepts, as a range; undefined when it is not one. */
function rangeOf(value: unknown): { min: number; max: number } | undefined {
  if (Number.isSafeInteger(value)) return { min: value as number, max: value as number };
  if (typeof value !== "object" || value === null) return undefined;
  // Only a predicate the schema accepts (its own problems are reported by it, once).
  const keys = Object.keys(value);
  const { equals, min, max } = value as { equals?: unknown; min?: unknown; max?: unknown };
  if (keys.length === 1 && Number.isSafeInteger(equals))
    return { min: equals as number, max: equals as number };
  if (keys.length === 0 || keys.some((key) => key !== "min" && key !== "max")) return undefined;
  if (!keys.every((key) => Number.isSafeInteger((value as Record<string, unknown>)[key]))) return undefined;
  const range = {
    min: (min as number | undefined) ?? Number.MIN_SAFE_INTEGER,
    max: (max as number | undefined) ?? Number.MAX_SAFE_INTEGER,
  };
  return range.min <= range.max ? range : undefined;
}
