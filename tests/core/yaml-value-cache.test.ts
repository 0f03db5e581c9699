/**
 * The shipped pack's parse cache: used only for exactly the recorded text, only for files under
 * the folder it covers, only when it was made the way this reader reads, and never by the sources.
 */
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import {
  shippedYamlValues,
  YAML_VALUES_FORMAT,
  type YamlValuesFile,
  yamlValueCache,
  yamlValuesStamp,
} from "../../src/core/yaml-value-cache.ts";

const folder = "/pack/quests";
const text = "id: first\nchecks: [a, b]\n";
const contents: YamlValuesFile = {
  ...yamlValuesStamp("2.9.1"),
  values: [[text, JSON.stringify({ id: "first", checks: ["a", "b"] })]],
};
const cache = yamlValueCache(contents, yamlValuesStamp("2.9.1"), folder);

describe("the parse cache", () => {
  it("gives the recorded value for the recorded text of a file under its folder, a fresh copy each time", () => {
    const first = cache?.valueOf(text, join(folder, "010-first.yaml"));
    expect(first).toEqual({ value: { id: "first", checks: ["a", "b"] } });
    (first?.value as { checks: string[] } | undefined)?.checks.push("changed");
    expect(cache?.valueOf(text, join(folder, "solutions/first/pass.yaml"))?.value).toEqual({
      id: "first",
      checks: ["a", "b"],
    });
  });

  it("has nothing for a text one byte different, or for a file outside its folder", () => {
    expect(cache?.valueOf(text.replace("first", "firsT"), join(folder, "a.yaml"))).toBeUndefined();
    expect(cache?.valueOf(`${text} `, join(folder, "a.yaml"))).toBeUndefined();
    expect(cache?.valueOf(text.slice(0, -1), join(folder, "a.yaml"))).toBeUndefined();
    expect(cache?.valueOf(text, "/pack/quests-of-mine/a.yaml")).toBeUndefined();
    expect(cache?.valueOf(text, "/elsewhere/a.yaml")).toBeUndefined();
    expect(cache?.valueOf(text, join(folder, "../a.yaml"))).toBeUndefined();
  });

  it("is no cache when it was made with another yaml version, other options or another format", () => {
    expect(cache).toBeDefined();
    const stamp = yamlValuesStamp("2.9.1");
    expect(yamlValueCache(contents, yamlValuesStamp("2.9.2"), folder)).toBeUndefined();
    for (const made of [
      { ...contents, format: `${YAML_VALUES_FORMAT}x` },
      { ...contents, parse: { ...contents.parse, uniqueKeys: false } },
      { ...contents, value: { maxAliasCount: 1000 } },
      { ...contents, extra: true },
      { ...contents, values: { [text]: "{}" } },
      null,
      "text",
    ])
      expect(yamlValueCache(made, stamp, folder), JSON.stringify(made)).toBeUndefined();
  });

  it("gives nothing for an entry whose value is not JSON, and leaves out entries of another shape", () => {
    const odd = yamlValueCache(
      { ...contents, values: [["a: 1\n", "{not json"], ["b: 1\n"], "c: 1\n", ["d: 1\n", 4]] },
      yamlValuesStamp("2.9.1"),
      folder,
    );
    for (const written of ["a: 1\n", "b: 1\n", "c: 1\n", "d: 1\n"])
      expect(odd?.valueOf(written, join(folder, "a.yaml"))).toBeUndefined();
  });

  it("is never used by the sources: only the bundle knows which yaml it holds", () => {
    expect(shippedYamlValues()).toBeUndefined();
  });
});
