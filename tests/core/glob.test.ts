/** The editable globs: *, **, ?, and a glob that names a folder covering everything below it. */
import { describe, expect, it } from "vitest";
import { globMatcher, globProblem } from "../../src/core/glob.ts";

const cases: Array<[string, string, boolean]> = [
  ["hello.txt", "hello.txt", true],
  ["hello.txt", "src/hello.txt", false],
  ["hello.txt", "hello.txt.bak", false],
  ["src/*.js", "src/add.js", true],
  ["src/*.js", "src/add.ts", false],
  ["src/*.js", "src/deep/add.js", false],
  ["*.js", "add.js", true],
  ["*.js", ".hidden.js", true],
  ["src/**", "src/add.js", true],
  ["src/**", "src/a/b/c.js", true],
  ["src/**", "srcs/add.js", false],
  ["src/**/*.js", "src/add.js", true],
  ["src/**/*.js", "src/a/b/add.js", true],
  ["src/**/*.js", "src/a/b/add.ts", false],
  ["**/notes.md", "notes.md", true],
  ["**/notes.md", "docs/deep/notes.md", true],
  ["**", "anything/at/all", true],
  ["src", "src/add.js", true],
  ["src/", "src/a/b.js", true],
  ["./src/add.js", "src/add.js", true],
  ["src", "src2/add.js", false],
  ["?.txt", "a.txt", true],
  ["?.txt", "ab.txt", false],
  ["?.txt", "/.txt", false],
  ["a[1].txt", "a[1].txt", true],
  ["a[1].txt", "a1.txt", false],
  ["a.b", "axb", false],
  ["test/*", "test/deep/x.js", true],
];

describe("globMatcher", () => {
  it.each(cases)("%s matches %s: %s", (glob, path, expected) => {
    expect(globMatcher([glob])(path)).toBe(expected);
  });

  it("a list matches when one of its globs does", () => {
    const matches = globMatcher(["hello.txt", "src/**"]);
    expect(matches("hello.txt")).toBe(true);
    expect(matches("src/x.js")).toBe(true);
    expect(matches("test/x.js")).toBe(false);
  });

  it("stays fast on a glob of many ** against a deep path (no backtracking blow-up)", () => {
    const glob = `${"**/".repeat(40)}x`;
    const path = `${"a/".repeat(200)}y`;
    const started = Date.now();
    expect(globMatcher([glob])(path)).toBe(false);
    expect(Date.now() - started).toBeLessThan(500);
  });
});

describe("globProblem", () => {
  it.each([
    ["", "a glob must not be empty"],
    ["/etc/passwd", "/etc/passwd is an absolute path; editable paths are relative to the quest workspace"],
    ["C:/x", "C:/x is an absolute path; editable paths are relative to the quest workspace"],
    ["../x", "../x goes up through ..; editable paths stay inside the quest workspace"],
    ["src/../../x", "src/../../x goes up through ..; editable paths stay inside the quest workspace"],
    ["src\\x", "src\\x has a backslash; separate folders with /"],
    ["./", "./ names no path"],
  ])("refuses %j", (glob, message) => {
    expect(globProblem(glob)).toBe(message);
  });

  it.each(["hello.txt", "src/**", "./src/", "**/*.py"])("accepts %j", (glob) => {
    expect(globProblem(glob)).toBeUndefined();
  });
});
