/**
 * The YAML parser's errors in plain words, at the parser's position; the parser's own words stay,
 * in parentheses, for an error with no rewrite.
 */
import { describe, expect, it } from "vitest";
import { parseYamlDocument } from "../../src/core/yaml-document.ts";

function problems(text: string): string[] {
  const parsed = parseYamlDocument(text, "f.yaml");
  return parsed.ok ? [] : parsed.diagnostics.map((d) => `${d.line}:${d.column}: ${d.message}`);
}

describe("YAML errors in plain words", () => {
  it.each([
    ["an unclosed [ list", "title: [x\ngoal: g\n", "2:1: YAML: a [ list is not closed with ]"],
    ["an unclosed { map", "a: {b: 1\nc: 2\n", "2:1: YAML: a { map is not closed with }"],
    [
      'a value with ": " in it',
      "goal: a: b\n",
      '1:7: YAML: this value has ": " in it, so YAML reads it as a map inside a map; put the whole value in quotes: goal: "a: b"',
    ],
    [
      'a list item with two ": "',
      "hints:\n  - see: this: now  # c\n",
      '2:10: YAML: this value has ": " in it, so YAML reads it as a map inside a map; put the whole value in quotes: - see: "this: now"',
    ],
    [
      'a text that goes on over a line with ": "',
      "goal: first\n  second: x\n",
      '1:7: YAML: this value goes on over the next line, which is indented further and has ": " in it',
    ],
    [
      "an unclosed double quote",
      'title: "abc\n',
      '1:8: YAML: the quoted text that opens here is never closed: add the closing "',
    ],
    [
      "an unclosed single quote",
      "title: 'abc\n",
      "1:8: YAML: the quoted text that opens here is never closed: add the closing '",
    ],
    ["a tab", "checks:\n\t- a\n", "2:1: YAML: a tab indents this line; YAML indents with spaces only"],
    ["a key twice", "id: a\nid: b\n", '2:1: YAML: "id" appears twice in this map; keep one'],
    [
      "keys not lined up",
      "a:\n  b: 1\n c: 2\n",
      "3:1: YAML: the keys of one map must start in the same column; line this one up with the keys above it",
    ],
    [
      "a list item not lined up",
      "a:\n  - 1\n - 2\n",
      "3:1: YAML: this - item is not lined up with the items above it, so YAML reads it as a key",
    ],
    ["a line without a colon", "a: 1\nb\n", '2:1: YAML: expected "key: value" on this line'],
    ["a value starting with @", "title: @x\n", "1:8: YAML: a value cannot start with @ unless it is quoted"],
    ["a value starting with `", "title: `x`\n", "1:8: YAML: a value cannot start with ` unless it is quoted"],
    [
      "a bad escape",
      'a: "\\q"\n',
      '1:5: YAML: \\q is not an escape in "double quotes"; write \\\\ for a backslash',
    ],
    ["a block inside [ ]", "a: [\n - x\n]\n", "2:2: YAML: a [ ] list or { } map holds indented lines"],
    ["two documents", "a: 1\n---\nb: 2\n", "2:1: YAML: this file holds more than one YAML document"],
  ])("%s", (_name, text, expected) => {
    const [first] = problems(text);
    expect(first?.startsWith(expected), `${first}\nshould start with\n${expected}`).toBe(true);
  });

  it("points a quote never closed at the quote that opens it, past escaped ones", () => {
    expect(problems('a: 1\nb: "say \\"hi\\"\nc: 2\n')[0]).toMatch(
      /^2:4: YAML: the quoted text that opens here/,
    );
    expect(problems("a: 1\nb: 'it''s\nc: 2\n")[0]).toMatch(/^2:4: YAML: the quoted text that opens here/);
  });

  it("keeps the parser's words, in parentheses, where there is no rewrite", () => {
    expect(problems("a: ]\n")).toEqual([
      '1:4: YAML: this is not valid YAML (Unexpected flow-seq-end token in YAML stream: "]")',
    ]);
  });

  it("says one thing at one place, though the parser reports a mistake there several times", () => {
    // The parser reports BLOCK_AS_IMPLICIT_KEY and MULTILINE_IMPLICIT_KEY both at 1:7.
    expect(problems("goal: first\n  second: x\n")).toHaveLength(1);
  });
});
