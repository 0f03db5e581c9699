/**
 * A YAML file read as data: from the parse cache when its text is recorded there (the yaml
 * library not loaded until a position is asked), else parsed; the positions the same either way.
 */
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { execa } from "execa";
import { describe, expect, it } from "vitest";
import { readYamlSource, type YamlSource } from "../../src/core/yaml-source.ts";
import { type YamlValueCache, yamlValueCache, yamlValuesStamp } from "../../src/core/yaml-value-cache.ts";

const REPO = resolve(import.meta.dirname, "../..");
const folder = "/pack";
const file = join(folder, "q.yaml");
const text = "id: q\nchecks:\n  - type: event\n    match: { evnt: a }\n";

/** A cache recording `value` for `written` (the test's own value, so a hit can be told apart). */
function cacheOf(written: string, value: unknown): YamlValueCache {
  const contents = { ...yamlValuesStamp("test"), values: [[written, JSON.stringify(value)]] };
  const cache = yamlValueCache(contents, yamlValuesStamp("test"), folder);
  if (!cache) throw new Error("no cache");
  return cache;
}

async function read(written: string, cache?: YamlValueCache): Promise<YamlSource> {
  const read = await readYamlSource(written, file, cache);
  if (!read.ok) throw new Error(JSON.stringify(read.diagnostics));
  return read.source;
}

describe("readYamlSource", () => {
  it("takes the value of a recorded text from the cache, and parses any other text", async () => {
    const cache = cacheOf(text, { from: "the cache" });
    expect((await read(text, cache)).value).toEqual({ from: "the cache" });
    const other = `${text}# one more line\n`;
    expect((await read(other, cache)).value).toEqual({
      id: "q",
      checks: [{ type: "event", match: { evnt: "a" } }],
    });
  });

  it("finds the same positions for a cached text as for a parsed one", async () => {
    const parsed = await read(text);
    const cached = await read(text, cacheOf(text, parsed.value));
    const problems = [
      { path: ["checks", 0, "match"], message: "unknown", key: "evnt" },
      { path: ["checks", 0, "type"], message: "type" },
      { path: ["nowhere", 3], message: "nearest parent" },
    ];
    const expected = await parsed.diagnose(problems);
    expect(expected.map((d) => `${d.line}:${d.column}`)).toEqual(["4:14", "3:11", "1:1"]);
    expect(await cached.diagnose(problems)).toEqual(expected);
    expect((await cached.locator()).position(text.indexOf("match"))).toEqual({ line: 4, column: 5 });
    expect(await cached.diagnose([])).toEqual([]);
  });

  it("reports a YAML error and an alias bomb as diagnostics, as the parser says them", async () => {
    expect(await readYamlSource("a: [1\nb: 2\n", file)).toEqual({
      ok: false,
      diagnostics: [
        {
          file,
          line: 2,
          column: 1,
          message: "YAML: a [ list is not closed with ] (or a line of it is not indented under its key)",
        },
      ],
    });
    const bomb = ["a: &a [x, x, x, x, x, x, x, x, x, x]", "b: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a, *a]"];
    bomb.push(
      "c: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b, *b]",
      "d: [*c, *c, *c, *c, *c, *c, *c, *c, *c, *c]",
    );
    const refused = await readYamlSource(`${bomb.join("\n")}\n`, file);
    expect(refused.ok || refused.diagnostics[0]?.message).toMatch(
      /^YAML: its aliases \(\*name\) expand too far/,
    );
  });

  it("does not load the yaml library for a cached text until a position is asked", async () => {
    const modules = (name: string) => pathToFileURL(join(REPO, "src/core", name)).href;
    const script = `
      import { registerHooks } from "node:module";
      const loaded = [];
      registerHooks({ load(url, context, next) { loaded.push(url); return next(url, context); } });
      const { readYamlSource } = await import(${JSON.stringify(modules("yaml-source.ts"))});
      const { yamlValueCache, yamlValuesStamp } = await import(${JSON.stringify(modules("yaml-value-cache.ts"))});
      const text = "id: q\\n";
      const cache = yamlValueCache({ ...yamlValuesStamp("t"), values: [[text, '{"id":"q"}']] }, yamlValuesStamp("t"), "/pack");
      const yaml = () => loaded.some((url) => url.includes("/node_modules/yaml/"));
      const read = await readYamlSource(text, "/pack/q.yaml", cache);
      const before = yaml();
      await read.source.locator();
      const uncached = await readYamlSource("id: r\\n", "/elsewhere/r.yaml", cache);
      process.stdout.write(JSON.stringify({ value: read.source.value, before, after: yaml(), parsed: uncached.source.value }));
    `;
    const run = await execa(process.execPath, ["--input-type=module", "-e", script], { cwd: REPO });
    expect(JSON.parse(run.stdout)).toEqual({
      value: { id: "q" },
      before: false,
      after: true,
      parsed: { id: "r" },
    });
  });
});
