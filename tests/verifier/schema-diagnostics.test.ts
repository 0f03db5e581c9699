/**
 * zod issues as the diagnostics a person reads: where, and in words. The loader's whole path is
 * in tests/verifier/loader.test.ts and the corpus in tests/cli/bad-input.test.ts; these pin the
 * pieces a play-file loader reuses.
 */
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { formatDiagnostic } from "../../src/core/diagnostics.ts";
import { readYamlSource } from "../../src/core/yaml-source.ts";
import { CheckSchema } from "../../src/verifier/checks/registry.ts";
import { QuestFileSchema } from "../../src/verifier/quest.ts";
import { formatPath, knownKeysAt, valueAt, zodDiagnostics } from "../../src/verifier/schema-diagnostics.ts";

async function lint(schema: z.ZodType, text: string): Promise<string[]> {
  const parsed = await readYamlSource(text, "f.yaml");
  if (!parsed.ok) throw new Error("not YAML");
  const result = schema.safeParse(parsed.source.value);
  if (result.success) return [];
  return (await zodDiagnostics(result.error, { source: parsed.source, schema })).map(formatDiagnostic);
}

const quest = (checks: string, extra = "") =>
  `version: 1\nid: q\ntitle: Q\ngoal: g\n${extra}checks:\n${checks}`;

describe("zodDiagnostics", async () => {
  it("an unknown field suggests the closest one, and its missing twin is not reported too", async () => {
    expect(await lint(QuestFileSchema, quest("  - type: file_exists\n    pth: a\n"))).toEqual([
      'f.yaml:7:5: checks[0]: unknown field "pth" (did you mean path?)',
    ]);
  });

  it("a field the map already has is not suggested, and the missing one is still reported", async () => {
    expect(
      await lint(QuestFileSchema, quest("  - type: command\n    rn: a\n    run: b\n    runn: c\n")),
    ).toEqual([
      'f.yaml:7:5: checks[0]: unknown fields "rn", "runn"; see docs/quest-format.md for the fields this accepts',
    ]);
    expect(await lint(QuestFileSchema, quest("  - type: file_exists\n    colour: red\n"))).toEqual([
      "f.yaml:6:5: checks[0].path: is required",
      'f.yaml:7:5: checks[0]: unknown field "colour"; see docs/quest-format.md for the fields this accepts',
    ]);
  });

  it("suggests top-level fields and fields of nested maps", async () => {
    expect(
      await lint(QuestFileSchema, quest("  - type: event\n    match: { event: a }\n", "hint: [a]\n")),
    ).toEqual(['f.yaml:5:1: unknown field "hint" (did you mean hints?)']);
    expect(await lint(QuestFileSchema, quest("  - type: event\n    match: { evnt: a }\n"))).toEqual([
      'f.yaml:7:14: checks[0].match: unknown field "evnt" (did you mean event?)',
    ]);
  });

  it("an enum value with a typo is told the values and the closest one", async () => {
    expect(await lint(QuestFileSchema, quest("  - type: file_exists\n    path: a\n    kind: fil\n"))).toEqual(
      ['f.yaml:8:11: checks[0].kind: "fil" is not one of file, dir, any; did you mean file?'],
    );
  });

  it("a check type with a typo gets the closest type", async () => {
    expect(await lint(QuestFileSchema, quest("  - type: File-Exists\n    path: a\n"))).toEqual([
      'f.yaml:6:11: checks[0].type: type "File-Exists" is not a check type; did you mean file_exists?',
    ]);
  });

  it("text YAML read as a map (a `: ` in a hint) is told to quote it, with the line to write", async () => {
    const check = "  - type: event\n    match: { event: a }\n";
    expect(await lint(QuestFileSchema, quest(check, "hints:\n  - Try this: run it  # a comment\n"))).toEqual([
      'f.yaml:6:5: hints[0]: must be text, but YAML read it as a map because of the ": " after "Try this"; put the whole text in quotes: - "Try this: run it"',
    ]);
    expect(await lint(QuestFileSchema, quest(check, 'hints: [Say "hi": then go]\n'))).toEqual([
      'f.yaml:5:9: hints[0]: must be text, but YAML read it as a map because of the ": " after "Say \\"hi\\""; put the whole text in quotes: "Say \\"hi\\": then go"',
    ]);
    // A real map of several lines is just the wrong kind of value.
    expect(await lint(QuestFileSchema, quest(check, "hints:\n  - a: 1\n    b: 2\n"))).toEqual([
      "f.yaml:6:5: hints[0]: must be string, not a map with a, b",
    ]);
  });

  it("an issue a schema puts on a key (params.key) points at the key", async () => {
    expect(
      await lint(
        QuestFileSchema,
        quest("  - type: event\n    match: { event: a, fields: { x: { regx: b } } }\n"),
      ),
    ).toEqual(['f.yaml:7:39: checks[0].match.fields.x: unknown operator "regx" (did you mean regex?)']);
  });
});

describe("valueAt", () => {
  it("reads the plain value along a path, and nothing where the path leads nowhere", () => {
    const data = { checks: [{ match: { fields: { "input.path": "a" } } }] };
    expect(valueAt(data, ["checks", 0, "match", "fields", "input.path"])).toBe("a");
    expect(valueAt(data, ["checks", 1, "match"])).toBeUndefined();
    expect(valueAt("text", ["a"])).toBeUndefined();
  });
});

describe("formatPath", () => {
  it("writes a path as a person reads it, a key that is not a plain name in brackets", () => {
    expect(formatPath(["checks", 0, "match", "tool"])).toBe("checks[0].match.tool");
    expect(formatPath(["checks", 0, "match", "fields", "input.path", "regex"])).toBe(
      'checks[0].match.fields["input.path"].regex',
    );
    expect(formatPath([])).toBe("");
  });
});

describe("knownKeysAt", () => {
  it("follows objects, lists and a discriminated union by the data's type", () => {
    const data = { checks: [{ type: "file_exists" }, { type: "nope" }] };
    expect(knownKeysAt(QuestFileSchema, data, ["checks", 0])).toEqual([
      "id",
      "describe",
      "type",
      "path",
      "kind",
    ]);
    expect(knownKeysAt(QuestFileSchema, data, ["checks", 1])).toBeUndefined();
    expect(knownKeysAt(CheckSchema, { type: "event" }, [])).toContain("match");
  });

  it("looks through optional, default and refined schemas, and the union of plain unions", () => {
    const schema = z.strictObject({
      a: z
        .union([z.strictObject({ x: z.string() }), z.strictObject({ y: z.string() })])
        .optional()
        .default({ x: "" }),
    });
    expect(knownKeysAt(schema, { a: {} }, ["a"])).toEqual(["x", "y"]);
    expect(knownKeysAt(schema, {}, ["b"])).toBeUndefined();
  });
});
