/**
 * The data dir's parse cache of quest files (what `pi-quests check` parsed before): it answers
 * only for exactly the text it was told of, for the same file, with the same yaml library, and
 * only while its seal verifies; it keeps only what JSON gives back the same; a data dir it cannot
 * write is no cache.
 */
import { execFileSync } from "node:child_process";
import { readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { yamlValuesStamp } from "../../src/core/yaml-value-cache.ts";
import { YAML_MEMORY_FOLDER, yamlValueMemory } from "../../src/core/yaml-value-memory.ts";
import { makeWorkspace, removeWorkspaces } from "../support/workspace.ts";

afterEach(removeWorkspaces);

const stamp = yamlValuesStamp("2.9.1");
const text = "id: first\nchecks: [a, b]\n";
const value = { id: "first", checks: ["a", "b"] };

/** A data dir, a quest file's path, and the memory of that data dir. */
function setup() {
  const dataDir = makeWorkspace();
  const file = join(makeWorkspace(), "quest.yaml");
  return { dataDir, file, memory: yamlValueMemory(dataDir, stamp) };
}
const entries = (dataDir: string) => readdirSync(join(dataDir, YAML_MEMORY_FOLDER));
const entryPath = (dataDir: string) => join(dataDir, YAML_MEMORY_FOLDER, entries(dataDir)[0] ?? "");

describe("the data dir's parse cache", () => {
  it("gives the value it was told for exactly that text of that file, a fresh copy each time, to another process too", () => {
    const { dataDir, file, memory } = setup();
    expect(memory.valueOf(text, file)).toBeUndefined();
    memory.remember?.(text, file, value);
    const first = memory.valueOf(text, file);
    expect(first).toEqual({ value });
    (first?.value as { checks: string[] } | undefined)?.checks.push("changed");
    expect(yamlValueMemory(dataDir, stamp).valueOf(text, file)).toEqual({ value });
  });

  it("has nothing for another text of the file, another file, or another yaml library", () => {
    const { dataDir, file, memory } = setup();
    memory.remember?.(text, file, value);
    expect(memory.valueOf(`${text} `, file)).toBeUndefined();
    expect(memory.valueOf(text, `${file}.copy`)).toBeUndefined();
    expect(yamlValueMemory(dataDir, yamlValuesStamp("2.9.2")).valueOf(text, file)).toBeUndefined();
  });

  it("keeps one entry per file: a new text replaces the old one", () => {
    const { dataDir, file, memory } = setup();
    memory.remember?.(text, file, value);
    memory.remember?.("id: second\n", file, { id: "second" });
    expect(entries(dataDir)).toHaveLength(1);
    expect(memory.valueOf("id: second\n", file)).toEqual({ value: { id: "second" } });
    expect(memory.valueOf(text, file)).toBeUndefined();
  });

  it("trusts no entry it did not seal: an edited value, or another file's entry put in its place", () => {
    const { dataDir, file, memory } = setup();
    memory.remember?.(text, file, value);
    const path = entryPath(dataDir);
    const entry = JSON.parse(readFileSync(path, "utf8"));
    writeFileSync(path, JSON.stringify({ ...entry, json: JSON.stringify({ ...value, id: "forged" }) }));
    expect(memory.valueOf(text, file)).toBeUndefined();

    // A genuine entry of another file of this data dir, with the same text, copied to this file's name.
    const other = join(makeWorkspace(), "other.yaml");
    memory.remember?.(text, other, { id: "other" });
    const otherPath = join(
      dataDir,
      YAML_MEMORY_FOLDER,
      entries(dataDir).find((name) => join(dataDir, YAML_MEMORY_FOLDER, name) !== path) ?? "",
    );
    expect(memory.valueOf(text, other)).toEqual({ value: { id: "other" } });
    writeFileSync(path, readFileSync(otherPath));
    expect(memory.valueOf(text, file)).toBeUndefined();
  });

  it("keeps nothing JSON would not give back the same (Infinity, NaN, -0)", () => {
    const { dataDir, file, memory } = setup();
    for (const odd of [{ timeout_ms: Number.POSITIVE_INFINITY }, { n: Number.NaN }, { n: -0 }])
      memory.remember?.(text, file, odd);
    expect(memory.valueOf(text, file)).toBeUndefined();
    expect(() => entries(dataDir)).toThrow();
  });

  it("is no cache, and no error, where it cannot write", () => {
    const { dataDir, file } = setup();
    // A data dir that is a file: nothing can be made in it (whoever runs the test, root too).
    const notAFolder = join(dataDir, "file");
    writeFileSync(notAFolder, "");
    const memory = yamlValueMemory(notAFolder, stamp);
    expect(() => memory.remember?.(text, file, value)).not.toThrow();
    expect(memory.valueOf(text, file)).toBeUndefined();
  });

  it("keeps nothing of a value JSON cannot write (an alias that contains itself), and does not throw", () => {
    const { dataDir, file, memory } = setup();
    const loop: unknown[] = [];
    loop.push(loop);
    expect(() => memory.remember?.(text, file, { loop })).not.toThrow();
    expect(memory.valueOf(text, file)).toBeUndefined();
    expect(() => entries(dataDir)).toThrow();
  });

  it("reads no FIFO and follows no link in an entry's place, at once", () => {
    const { dataDir, file, memory } = setup();
    memory.remember?.(text, file, value);
    const path = entryPath(dataDir);
    rmSync(path);
    execFileSync("mkfifo", [path]);
    expect(memory.valueOf(text, file)).toBeUndefined();
    rmSync(path);
    symlinkSync("/dev/zero", path);
    expect(memory.valueOf(text, file)).toBeUndefined();
  });

  it("writes nothing through a link put in place of its folder (into the learner's workspace, say)", () => {
    const { dataDir, file } = setup();
    const workspace = makeWorkspace();
    symlinkSync(workspace, join(dataDir, YAML_MEMORY_FOLDER));
    yamlValueMemory(dataDir, stamp).remember?.(text, file, value);
    expect(readdirSync(workspace)).toEqual([]);
  });

  it("asks the cache it falls back on first", () => {
    const { dataDir, file } = setup();
    const memory = yamlValueMemory(dataDir, stamp, {
      valueOf: (given) => (given === text ? { value: { id: "shipped" } } : undefined),
    });
    expect(memory.valueOf(text, file)).toEqual({ value: { id: "shipped" } });
  });
});
