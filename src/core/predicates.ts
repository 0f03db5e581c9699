import { z } from "zod";

/** Compiles a regex or says why it cannot be, so a bad pattern is a load-time error. */
export function regexProblem(pattern: string, flags?: string): string | undefined {
  try {
    new RegExp(pattern, flags);
    return undefined;
  } catch (error) {
    return (error as Error).message;
  }
}

const RegexPredicateSchema = z
  .strictObject({ regex: z.string(), flags: z.string().regex(/^[dgimsuvy]*$/, "flags may use only dgimsuvy").optional() })
  .superRefine((value, ctx) => {
    const problem = regexProblem(value.regex, value.flags);
    if (problem) ctx.addIssue({ code: "custom", path: ["regex"], message: `invalid regex: ${problem}` });
  });

/** A bare string (equality) or exactly one operator. */
export const StringPredicateSchema = z.union([
  z.string(),
  z.strictObject({ equals: z.string() }),
  z.strictObject({ contains: z.string() }),
  z.strictObject({ starts_with: z.string() }),
  z.strictObject({ ends_with: z.string() }),
  RegexPredicateSchema,
  z.strictObject({ one_of: z.array(z.string()).min(1) }),
]);
export type StringPredicate = z.infer<typeof StringPredicateSchema>;

/** A bare integer (equality), `{equals}`, or `{min}` and/or `{max}`. */
export const IntPredicateSchema = z.union([
  z.int(),
  z.strictObject({ equals: z.int() }),
  z
    .strictObject({ min: z.int().optional(), max: z.int().optional() })
    .refine((value) => value.min !== undefined || value.max !== undefined, "give min, max or both")
    .refine(
      (value) => value.min === undefined || value.max === undefined || value.min <= value.max,
      "min must not be greater than max",
    ),
]);
export type IntPredicate = z.infer<typeof IntPredicateSchema>;
