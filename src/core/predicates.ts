import { z } from "zod";
import { flagsProblem, regexProblem } from "./quest-regex.ts";

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

const RegexPredicateSchema = z
  .strictObject({ regex: z.string(), flags: z.string().optional() })
  .superRefine(refineRegexPredicate);

const STRING_OPERATORS = "equals, contains, starts_with, ends_with, regex (with optional flags) or one_of";

/** Says what was given, for messages about a value of the wrong shape. */
export function describeValue(input: unknown): string {
  if (input === undefined) return "nothing";
  if (input === null) return "null";
  if (Array.isArray(input)) return "a list";
  if (typeof input === "object") return `a map with ${Object.keys(input).join(", ") || "no keys"}`;
  return `${typeof input} ${JSON.stringify(input)}`;
}

/** A bare string (equality) or exactly one operator. */
export const StringPredicateSchema = z.union(
  [
    z.string(),
    z.strictObject({ equals: z.string() }),
    z.strictObject({ contains: z.string() }),
    z.strictObject({ starts_with: z.string() }),
    z.strictObject({ ends_with: z.string() }),
    RegexPredicateSchema,
    z.strictObject({ one_of: z.array(z.string()).min(1) }),
  ],
  {
    error: (issue) =>
      issue.input === undefined
        ? "is required"
        : `expected a string or exactly one of ${STRING_OPERATORS}; got ${describeValue(issue.input)}`,
  },
);
export type StringPredicate = z.infer<typeof StringPredicateSchema>;

/** A bare integer (equality), `{equals}`, or `{min}` and/or `{max}`. */
export const IntPredicateSchema = z.union(
  [
    z.int(),
    z.strictObject({ equals: z.int() }),
    z
      .strictObject({ min: z.int().optional(), max: z.int().optional() })
      .refine((value) => value.min !== undefined || value.max !== undefined, "give min, max or both")
      .refine(
        (value) => value.min === undefined || value.max === undefined || value.min <= value.max,
        "min must not be greater than max",
      ),
  ],
  {
    error: (issue) =>
      issue.input === undefined
        ? "is required"
        : `expected an integer, {equals: N}, or {min: N} and/or {max: N}; got ${describeValue(issue.input)}`,
  },
);
export type IntPredicate = z.infer<typeof IntPredicateSchema>;

const Scalar = z.union([z.string(), z.number(), z.boolean(), z.null()]);

/** What a payload field must be: a literal, or one string or integer operator. */
export const FieldPredicateSchema = z
  .union([
    Scalar,
    z.strictObject({ equals: Scalar }),
    z.strictObject({ contains: z.string() }),
    z.strictObject({ starts_with: z.string() }),
    z.strictObject({ ends_with: z.string() }),
    z.strictObject({ regex: z.string(), flags: z.string().optional() }),
    z.strictObject({ one_of: z.array(Scalar).min(1) }),
    z
      .strictObject({ min: z.number().optional(), max: z.number().optional() })
      .refine((value) => value.min !== undefined || value.max !== undefined, "give min, max or both"),
  ])
  // Judged after the union picked its shape: inside the union, a regex the engine refuses would
  // leave two failed options and only zod's "Invalid input".
  .superRefine((value, ctx) => {
    if (typeof value === "object" && value !== null && "regex" in value) refineRegexPredicate(value, ctx);
  });
export type FieldPredicate = z.infer<typeof FieldPredicateSchema>;
