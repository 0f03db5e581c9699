/**
 * scripts/yaml-values.ts, the parse cache the build writes: every shipped YAML file recorded with
 * the value the loaders' parser gives it, and a file whose value JSON would change left out.
 */
import { readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { isDeepStrictEqual } from "node:util";
import { afterAll, describe, expect, it } from "vitest";
import { valueJson, yamlValues } from "../../scripts/yaml-values.ts";
import { parseYamlDocument } from "../../src/core/yaml-document.ts";
import { yamlValuesStamp } from "../../src/core/yaml-value-cache.ts";
import { makeWorkspace, removeWorkspaces } from "../support/workspace.ts";

const QUESTS = resolve(import.meta.dirname, "../../quests");

afterAll(removeWorkspaces);

describe("the parse cache of the shipped pack", () => {
  it("records every YAML file under quests/, each with the value its text parses to", () => {
    const made = yamlValues(QUESTS, "2.9.1");
    expect(made.leftOut).toEqual([]);
    expect(made.recorded.filter((file) => !file.includes("/")).length).toBeGreaterThan(20);
    expect(made.recorded.some((file) => file.startsWith("solutions/"))).toBe(true);
    const { values, ...stamp } = made.contents;
    expect(stamp).toEqual(yamlValuesStamp("2.9.1"));
    const byText = new Map(values);
    for (const file of made.recorded) {
      const text = readFileSync(join(QUESTS, file), "utf8");
      const parsed = parseYamlDocument(text, file);
      if (!parsed.ok) throw new Error(`${file} does not parse`);
      const cached: unknown = JSON.parse(byText.get(text) ?? "null");
      expect(isDeepStrictEqual(cached, parsed.value), file).toBe(true);
    }
  });

  it("leaves out a file with a YAML error, and one whose value JSON cannot carry", () => {
    const folder = makeWorkspace({
      "a.yaml": "id: a\n",
      "b.yml": "nested:\n  deep: [1, 2]\n",
      "c.yaml": "id: [c\n",
      "d.yaml": "big: .inf\n",
      "e.yaml": "odd: .nan\n",
      "f.yaml": "zero: -0\n",
      "g.yaml": "a: 1\na: 2\n",
      "notes.txt": "id: ignored\n",
      "solutions/a/pass.yaml": "version: 1\n",
    });
    const made = yamlValues(folder, "2.9.1");
    expect(made.recorded).toEqual(["a.yaml", "b.yml", "solutions/a/pass.yaml"]);
    expect(made.leftOut).toEqual([
      { file: "c.yaml", reason: "does not parse without an error" },
      { file: "d.yaml", reason: "its value is not the same once written as JSON" },
      { file: "e.yaml", reason: "its value is not the same once written as JSON" },
      { file: "f.yaml", reason: "its value is not the same once written as JSON" },
      { file: "g.yaml", reason: "does not parse without an error" },
    ]);
    expect(made.contents.values).toEqual([
      ["id: a\n", '{"id":"a"}'],
      ["nested:\n  deep: [1, 2]\n", '{"nested":{"deep":[1,2]}}'],
      ["version: 1\n", '{"version":1}'],
    ]);
  });

  it("records a text two files share once", () => {
    const folder = makeWorkspace({ "a.yaml": "id: a\n", "b.yaml": "id: a\n" });
    const made = yamlValues(folder, "2.9.1");
    expect(made.recorded).toEqual(["a.yaml", "b.yaml"]);
    expect(made.contents.values).toEqual([["id: a\n", '{"id":"a"}']]);
  });

  it("an alias bomb is a parse problem, never expanded into the cache", () => {
    const bomb = "a: &a [x, x]\nb: &b [*a, *a]\n";
    expect(valueJson(bomb, "bomb.yaml")).toEqual({
      ok: true,
      json: '{"a":["x","x"],"b":[["x","x"],["x","x"]]}',
    });
    const levels = ["a: &a [x, x, x, x, x, x, x, x, x, x]"];
    for (const [name, from] of [
      ["b", "a"],
      ["c", "b"],
      ["d", "c"],
    ])
      levels.push(`${name}: &${name} [${Array(10).fill(`*${from}`).join(", ")}]`);
    expect(valueJson(`${levels.join("\n")}\n`, "bomb.yaml")).toEqual({
      ok: false,
      reason: "does not parse without an error",
    });
  });
});
