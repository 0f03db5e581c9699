import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { functionSpans, lineCount, sourceFiles, typeBranches } from "../../scripts/code-shape.ts";
import { CHECK_TYPES } from "../../src/verifier/checks/registry.ts";

const repo = join(import.meta.dirname, "../..");
const sources = sourceFiles(repo);

/** Check type names and the evidence kinds that stand for one type. */
const TYPE_NAMES = new Set<string>([...CHECK_TYPES, "file", "structured_path", "mcp", "skill"]);
/** Where a check type's own name belongs: its module and the registry. */
const CHECK_MODULES = "src/verifier/checks/";

describe("the shape of src/", () => {
  it("has no function over 200 lines, and at most two over 120", () => {
    const spans = sources.flatMap(({ file, text }) => functionSpans(file, text));
    const described = (limit: number) =>
      spans.filter((s) => s.lines > limit).map((s) => `${s.file}:${s.line} ${s.name} (${s.lines} lines)`);
    expect(described(200)).toEqual([]);
    expect(described(120).length, described(120).join("\n")).toBeLessThanOrEqual(2);
  });

  it("has no source file over 450 lines", () => {
    const long = sources
      .filter(({ text }) => lineCount(text) > 450)
      .map(({ file, text }) => `${file} (${lineCount(text)})`);
    expect(long).toEqual([]);
  });

  it("branches on a check type's name outside its module in at most four files", () => {
    const branches = sources
      .filter(({ file }) => !file.startsWith(CHECK_MODULES))
      .flatMap(({ file, text }) => typeBranches(file, text, TYPE_NAMES));
    const files = [...new Set(branches.map((b) => b.file))];
    expect(files.length, branches.map((b) => `${b.file}:${b.line} ${b.name}`).join("\n")).toBeLessThanOrEqual(
      4,
    );
  });
});

describe("the measures", () => {
  it("count a function from its first line to its last, nested ones separately", () => {
    const text =
      "export function outer() {\n  const inner = () => {\n    return 1;\n  };\n  return inner();\n}\n";
    expect(functionSpans("a.ts", text)).toEqual([
      { file: "a.ts", line: 1, name: "outer", lines: 6 },
      { file: "a.ts", line: 2, name: "inner", lines: 3 },
    ]);
  });

  it("count lines with or without a final newline", () => {
    expect(lineCount("a\nb\n")).toBe(2);
    expect(lineCount("a\nb")).toBe(2);
    expect(lineCount("")).toBe(0);
  });

  it("find comparisons and switch cases on .type or .kind, nothing else", () => {
    const text = [
      'if (check.type === "command") {}',
      'if ("confirm" !== evidence.kind) {}',
      "switch (check.type) {",
      '  case "git":',
      "    break;",
      "}",
      'const other = { kind: "git" };',
      'if (name === "command") {}',
    ].join("\n");
    expect(typeBranches("a.ts", text, new Set(["command", "confirm", "git"]))).toEqual([
      { file: "a.ts", line: 1, name: "command" },
      { file: "a.ts", line: 2, name: "confirm" },
      { file: "a.ts", line: 4, name: "git" },
    ]);
  });
});
