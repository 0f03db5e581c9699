import { describe, expect, it } from "vitest";
import type { IntPredicate, StringPredicate } from "../../src/core/predicates.ts";
import {
  compileStringPredicate,
  matchesFieldPredicate,
  matchesIntPredicate,
  matchesStringPredicate,
} from "../../src/verifier/predicates.ts";

describe("string predicates", () => {
  it.each<[StringPredicate, string, boolean]>([
    ["hello", "hello", true],
    ["hello", "hello!", false],
    [{ equals: "a" }, "a", true],
    [{ contains: "ell" }, "hello", true],
    [{ contains: "xyz" }, "hello", false],
    [{ starts_with: "he" }, "hello", true],
    [{ starts_with: "lo" }, "hello", false],
    [{ ends_with: "lo" }, "hello", true],
    [{ ends_with: "he" }, "hello", false],
    [{ regex: "^h.l+o$" }, "hello", true],
    [{ regex: "^H" }, "hello", false],
    [{ regex: "^H", flags: "i" }, "hello", true],
    [{ one_of: ["a", "hello"] }, "hello", true],
    [{ one_of: ["a", "b"] }, "hello", false],
  ])("%j against %j is %s", (predicate, value, expected) => {
    expect(matchesStringPredicate(predicate, value)).toBe(expected);
  });
});

describe("compiled string predicates", () => {
  it("test every value from its start, even with a global regex", () => {
    const test = compileStringPredicate({ regex: "a", flags: "g" });
    expect([test("a"), test("a"), test("a")]).toEqual([true, true, true]);
  });
});

describe("integer predicates", () => {
  it.each<[IntPredicate, number, boolean]>([
    [3, 3, true],
    [3, 4, false],
    [{ equals: 0 }, 0, true],
    [{ min: 2 }, 2, true],
    [{ min: 2 }, 1, false],
    [{ max: 2 }, 3, false],
    [{ min: 1, max: 3 }, 2, true],
    [{ min: 1, max: 3 }, 4, false],
  ])("%j against %d is %s", (predicate, value, expected) => {
    expect(matchesIntPredicate(predicate, value)).toBe(expected);
  });
});

describe("payload field predicates", () => {
  it("compares literals exactly, with no type coercion", () => {
    expect(matchesFieldPredicate(true, true)).toBe(true);
    expect(matchesFieldPredicate(1, "1")).toBe(false);
    expect(matchesFieldPredicate(null, null)).toBe(true);
    expect(matchesFieldPredicate("x", undefined)).toBe(false);
  });

  it("applies string operators only to strings and ranges only to numbers", () => {
    expect(matchesFieldPredicate({ contains: "txt" }, "hello.txt")).toBe(true);
    expect(matchesFieldPredicate({ contains: "1" }, 1)).toBe(false);
    expect(matchesFieldPredicate({ min: 2 }, 3)).toBe(true);
    expect(matchesFieldPredicate({ min: 2 }, "3")).toBe(false);
    expect(matchesFieldPredicate({ one_of: [1, "a"] }, "a")).toBe(true);
    expect(matchesFieldPredicate({ equals: false }, false)).toBe(true);
  });
});
