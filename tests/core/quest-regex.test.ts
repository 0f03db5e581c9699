import { describe, expect, it } from "vitest";
import { compileQuestRegex, flagsProblem, regexProblem } from "../../src/core/quest-regex.ts";

const matches = (pattern: string, value: string, flags?: string): boolean => {
  const compiled = compileQuestRegex(pattern, flags);
  if (!compiled.ok) throw new Error(compiled.problem);
  return compiled.regex.test(value);
};

describe("quest regexes on RE2", () => {
  it.each<[string, string, string | undefined, boolean]>([
    ["ell", "hello", undefined, true],
    ["^H", "hello", "i", true],
    ["^b$", "a\nb\nc", "m", true],
    ["^b$", "a\nb\nc", undefined, false],
    ["a.b", "a\nb", "s", true],
    ["a.b", "a\nb", undefined, false],
    ["b", "ab", "y", false],
    ["a", "ab", "y", true],
    ["a|b", "xb", "y", false],
    ["\\u0041", "A", undefined, true],
    ["\\u{1F600}", "😀", "u", true],
    ["\\\\1", "\\1", undefined, true],
    ["[(?=]", "=", undefined, true],
    ["(?<name>x)", "x", undefined, true],
  ])("%j against %j with flags %j is %s", (pattern, value, flags, expected) => {
    expect(matches(pattern, value, flags)).toBe(expected);
  });

  it("answers catastrophic patterns on long input (the result, not the time, is asserted)", () => {
    const long = `${"a".repeat(100_000)}!`;
    expect(matches("^(a+)+$", long)).toBe(false);
    expect(matches("(a|aa)+$", long)).toBe(false);
    expect(matches("(.*a){20}", long)).toBe(true);
    expect(matches("^(a|a?)+$", long)).toBe(false);
  });

  it("g and d change nothing; each value is tested from its start", () => {
    const compiled = compileQuestRegex("a", "gd");
    expect(compiled.ok && [compiled.regex.test("a"), compiled.regex.test("a")]).toEqual([true, true]);
  });

  it.each([
    ["(a)\\1", "backreference \\1 at character 4"],
    ["(?<n>a)\\k<n>", "named backreference"],
    ["a(?=b)", "lookahead (?=...) at character 2"],
    ["a(?!b)", "negative lookahead"],
    ["(?<=a)b", "lookbehind (?<=...) at character 1"],
    ["(?<!a)b", "negative lookbehind"],
    ["[^]", "missing closing ]"],
    ["(", "missing closing )"],
    ["a{1001}", "invalid repeat count"],
  ])("refuses %j: %s", (pattern, problem) => {
    expect(regexProblem(pattern)).toContain(problem);
  });

  it("refuses v, unknown and repeated flags", () => {
    expect(flagsProblem("v")).toContain("flag v (Unicode sets) is not supported");
    expect(flagsProblem("q")).toBe('flags may use only imsugdy; "q" is not one of them');
    expect(flagsProblem("ii")).toBe("flag i is given twice");
    expect(flagsProblem("imsugdy")).toBeUndefined();
  });
});
