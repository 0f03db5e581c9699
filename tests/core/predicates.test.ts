/**
 * The predicate schemas: what each accepts (the shapes the format reference lists, nothing else)
 * and, for what it refuses, the one message that names what to fix, at the key or value it is
 * about.
 */
import { describe, expect, it } from "vitest";
import type { z } from "zod";
import {
  boundedIntPredicate,
  describeValue,
  FieldPredicateSchema,
  IntPredicateSchema,
  StringPredicateSchema,
} from "../../src/core/predicates.ts";

/** Each issue as `path: message`, with `@key` when it points at a key. */
function problems(schema: z.ZodType, value: unknown): string[] {
  const parsed = schema.safeParse(value);
  if (parsed.success) return [];
  return parsed.error.issues.map((issue) => {
    const key = (issue as { params?: { key?: string } }).params?.key;
    return `${issue.path.join(".")}${key ? `@${key}` : ""}: ${issue.message}`;
  });
}

describe("string predicates", () => {
  it.each([
    "hello",
    { equals: "a" },
    { contains: "a" },
    { starts_with: "a" },
    { ends_with: "a" },
    { regex: "^a" },
    { regex: "^a", flags: "i" },
    { one_of: ["a", "b"] },
  ])("accepts %j as it is", (value) => {
    expect(StringPredicateSchema.parse(value)).toEqual(value);
  });

  it.each<[unknown, string[]]>([
    [undefined, [": is required"]],
    [
      5,
      [
        ": expected a string or exactly one of equals, contains, starts_with, ends_with, regex (with optional flags) or one_of; got number 5",
      ],
    ],
    [{ contain: "a" }, ['@contain: unknown operator "contain" (did you mean contains?)']],
    [{ contains: "a", ends_with: "b" }, [": give one operator, not contains and ends_with"]],
    [{ contains: 3 }, ["contains: must be a string, not number 3"]],
    [{ flags: "i" }, [": flags goes with regex; add regex"]],
    [{ regex: "(" }, [expect.stringMatching(/^regex: invalid regex: missing closing \)/)]],
    [{ regex: "a", flags: "q" }, [expect.stringMatching(/^flags: flags may use only/)]],
    [{ one_of: [] }, ["one_of: must list at least one value"]],
    [{ one_of: ["a", 2] }, ["one_of: item 2 must be one of strings, not number 2"]],
    [{}, [expect.stringMatching(/got a map with no keys$/)]],
  ])("refuses %j, saying what to fix", (value, expected) => {
    expect(problems(StringPredicateSchema, value)).toEqual(expected);
  });
});

describe("integer predicates", () => {
  it.each([3, { equals: 0 }, { min: 1 }, { max: 2 }, { min: 1, max: 1 }])("accepts %j", (value) => {
    expect(IntPredicateSchema.parse(value)).toEqual(value);
  });

  it.each<[unknown, string[]]>([
    ["zero", [': expected an integer, {equals: N}, or {min: N} and/or {max: N}; got string "zero"']],
    [1.5, [": expected an integer, {equals: N}, or {min: N} and/or {max: N}; got number 1.5"]],
    [{ min: 3, max: 1 }, [": min must not be greater than max"]],
    [{ min: "1" }, ['min: must be an integer, not string "1"']],
    [{ equals: 1, min: 0 }, [": give one operator, not equals and min/max"]],
    [{ mni: 1 }, ['@mni: unknown operator "mni" (did you mean min?)']],
  ])("refuses %j, saying what to fix", (value, expected) => {
    expect(problems(IntPredicateSchema, value)).toEqual(expected);
  });
});

describe("payload field predicates", () => {
  it.each([
    "a",
    3,
    true,
    null,
    { equals: 1 },
    { contains: "a" },
    { regex: "a", flags: "i" },
    { one_of: [1, "a", null] },
    { min: 0.5 },
    { min: 1, max: 2 },
  ])("accepts %j", (value) => {
    expect(FieldPredicateSchema.parse(value)).toEqual(value);
  });

  it.each<[unknown, string[]]>([
    [{ regx: "a" }, ['@regx: unknown operator "regx" (did you mean regex?)']],
    [{ regex: 5 }, ["regex: must be a string, not number 5"]],
    [{ regex: "(", contains: "x" }, [": give one operator, not regex and contains"]],
    [{ regex: "(" }, [expect.stringMatching(/^regex: invalid regex: missing closing \)/)]],
    [
      [1, 2],
      [
        ": expected a value (a string, number, boolean or null) or one operator (equals, contains, starts_with, ends_with, regex, one_of, min/max); got a list",
      ],
    ],
    [
      { zzz: 1 },
      [expect.stringMatching(/^@zzz: unknown operator "zzz"; the operators are equals, contains, /)],
    ],
    [{ min: "3" }, ['min: must be a number, not string "3"']],
    [
      { regx: 1, contans: 2 },
      [
        '@regx: unknown operator "regx" (did you mean regex?)',
        '@contans: unknown operator "contans" (did you mean contains?)',
      ],
    ],
  ])("refuses %j, saying what to fix", (value, expected) => {
    expect(problems(FieldPredicateSchema, value)).toEqual(expected);
  });
});

describe("describeValue", () => {
  it("names what was given", () => {
    expect([undefined, null, [], [1], {}, { a: 1 }, "x", 2].map(describeValue)).toEqual([
      "nothing",
      "null",
      "an empty list",
      "a list",
      "a map with no keys",
      "a map with a",
      'string "x"',
      "number 2",
    ]);
  });
});

describe("integer predicates about a bounded value (a count, an exit code)", () => {
  const count = boundedIntPredicate("a number of events", 0);
  const exitCode = boundedIntPredicate("an exit code", 0, 255);

  it.each([0, 2, { equals: 0 }, { min: 0 }, { max: 0 }, { min: -5, max: 1 }])(
    "a count accepts %j",
    (value) => {
      expect(count.parse(value)).toEqual(value);
    },
  );

  it.each<[unknown, string]>([
    [-1, "-1 can never pass: a number of events is 0 or more; give a value it can have"],
    [{ equals: -2 }, "{equals:-2} can never pass: a number of events is 0 or more; give a value it can have"],
    [{ max: -1 }, "{max:-1} can never pass: a number of events is 0 or more; give a value it can have"],
  ])("a count refuses %j: it can never pass", (value, message) => {
    expect(problems(count, value)).toEqual([`: ${message}`]);
  });

  it("an exit code is 0 to 255; a predicate's own problem is said once", () => {
    expect(problems(exitCode, 256)).toEqual([
      ": 256 can never pass: an exit code is 0 to 255; give a value it can have",
    ]);
    expect(problems(exitCode, { min: 1, max: 255 })).toEqual([]);
    expect(problems(exitCode, { min: 3, max: 1 })).toEqual([": min must not be greater than max"]);
    expect(problems(exitCode, { equals: -1, min: 0 })).toEqual([
      ": give one operator, not equals and min/max",
    ]);
  });
});
