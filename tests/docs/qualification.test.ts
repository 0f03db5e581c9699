import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, dirname, join } from "node:path";
import { describe, expect, it } from "vitest";

const repo = join(import.meta.dirname, "../..");

/** One `file:line` a qualification page cites. */
type Reference = { page: string; pageLine: number; text: string; file: string | undefined; line: number };

/**
 * A reference: a path from one of the repository's folders, a file named without its folder (as
 * in `records-rpc.test.ts:96`), or `:N` alone in backticks, a line of the file cited last.
 */
const REFERENCE =
  /(?<![\w./-])((?:tests|bench|src|scripts|bin|fixtures|quests)\/[\w./-]*\w|[\w-]+(?:\.[\w-]+)*\.(?:ts|js)):(\d+)(?!\d)|(?<=`):(\d+)(?!\d)/g;

/**
 * The `file:line` references of a page, in order. `:N` alone means the file cited last; a file
 * named without its folder is the one cited earlier on the page with that name.
 */
function referencesOf(page: string, text: string): Reference[] {
  const found: Reference[] = [];
  let last: string | undefined;
  text.split("\n").forEach((source, index) => {
    for (const match of source.matchAll(REFERENCE)) {
      const [whole, named, line, alone] = match;
      let file: string | undefined;
      if (named === undefined) file = last;
      else if (named.includes("/")) file = named;
      else file = found.findLast((r) => r.file !== undefined && basename(r.file) === named)?.file;
      found.push({ page, pageLine: index + 1, text: whole, file, line: Number(line ?? alone) });
      if (file !== undefined) last = file;
    }
  });
  return found;
}

/** The first line of a test or a group of tests: `it(`, `test(`, `describe(`, `it.each` (typed too: `it.each<T>(`), `it.skipIf(…)(`. */
const TEST_START =
  /^\s*(?:it|test|describe)(?:\.(?:each|skipIf|runIf|only|skip|todo|concurrent|sequential|fails))*\s*(?:<.*>)?\s*[(`]/;

/** What is wrong with `ref`, or undefined when it points where it should. */
function problemOf(root: string, ref: Reference): string | undefined {
  if (ref.file === undefined)
    return ref.text.startsWith(":")
      ? "no file: nothing cited before it on the page names one"
      : "names no folder, and nothing cited before it on the page has that name";
  const path = join(root, ref.file);
  if (!existsSync(path)) return `${ref.file} does not exist`;
  const lines = readFileSync(path, "utf8").split("\n");
  if (lines.at(-1) === "") lines.pop();
  if (ref.line < 1 || ref.line > lines.length) return `past the end: ${ref.file} has ${lines.length} lines`;
  const there = lines[ref.line - 1] as string;
  if (there.trim() === "") return "a blank line";
  const isTestFile = ref.file.startsWith("tests/") && /\.test\.[cm]?[jt]s$/.test(ref.file);
  if (isTestFile && !TEST_START.test(there))
    return `not the start of a test: ${JSON.stringify(there.trim())}`;
  return undefined;
}

/** Every bad reference of the pages in `folder`, as `PAGE:LINE: REF -> what is there`. */
function badReferences(root: string, folder: string): { count: number; bad: string[] } {
  const pages = readdirSync(join(root, folder))
    .filter((name) => name.endsWith(".md"))
    .sort();
  let count = 0;
  const bad: string[] = [];
  for (const name of pages) {
    const page = `${folder}/${name}`;
    for (const ref of referencesOf(page, readFileSync(join(root, page), "utf8"))) {
      count++;
      const problem = problemOf(root, ref);
      const cited = ref.text.startsWith(":") && ref.file ? `${ref.text} (${ref.file})` : ref.text;
      if (problem) bad.push(`${ref.page}:${ref.pageLine}: ${cited} -> ${problem}`);
    }
  }
  return { count, bad };
}

/** A throwaway repository holding `files`. */
function tree(files: Record<string, string>): string {
  const root = mkdtempSync(join(tmpdir(), "pi-quests-qualification-"));
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), text);
  }
  return root;
}

describe("the qualification pages' references", () => {
  it("each point at the line where the test they cite starts", () => {
    const { count, bad } = badReferences(repo, "docs/qualification");
    expect(count).toBeGreaterThan(300);
    expect(bad.length, `${bad.length} of ${count} references are stale:\n${bad.join("\n")}\n`).toBe(0);
  });

  it("name each bad one: a missing file, a line past the end, a blank line, a line inside a test", () => {
    const root = tree({
      "tests/a.test.ts":
        'describe("a", () => {\n  it("one", () => {});\n\n  it.each([1])("two %s", () => {});\n});\n',
      "src/b.ts": "export const b = 1;\n\nexport const c = 2;\n",
      "docs/q/page.md": [
        "| row | `tests/a.test.ts:1`, `:2`, `:4` (fine), `src/b.ts:3` |",
        "| row | `tests/a.test.ts:3`, `:5`, `:6`, `tests/gone.test.ts:1`, `src/b.ts:2` |",
        "| row | (`a.test.ts:2`) fine, `src/b.ts:1` then `:9`, and `other.test.ts:1` |",
      ].join("\n"),
    });
    expect(badReferences(root, "docs/q")).toEqual({
      count: 13,
      bad: [
        "docs/q/page.md:2: tests/a.test.ts:3 -> a blank line",
        'docs/q/page.md:2: :5 (tests/a.test.ts) -> not the start of a test: "});"',
        "docs/q/page.md:2: :6 (tests/a.test.ts) -> past the end: tests/a.test.ts has 5 lines",
        "docs/q/page.md:2: tests/gone.test.ts:1 -> tests/gone.test.ts does not exist",
        "docs/q/page.md:2: src/b.ts:2 -> a blank line",
        "docs/q/page.md:3: :9 (src/b.ts) -> past the end: src/b.ts has 3 lines",
        "docs/q/page.md:3: other.test.ts:1 -> names no folder, and nothing cited before it on the page has that name",
      ],
    });
  });

  it("take `:N` alone as a line of the file cited last, and skip a file cited without a line", () => {
    const refs = referencesOf("p.md", "`tests/x.test.ts:10`, `:20` (and `tests/y.test.ts`), at 12:30");
    expect(refs.map((r) => `${r.file}:${r.line}`)).toEqual(["tests/x.test.ts:10", "tests/x.test.ts:20"]);
  });
});
