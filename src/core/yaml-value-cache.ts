/**
 * The parse cache of the shipped pack: dist/yaml-values.json, written by scripts/build.ts, maps
 * the text of each YAML file of the package's quests/ to the file's value as JSON. A file of that
 * folder whose text is exactly a recorded one is read from the cache, and the yaml library (about
 * half of a lint of the pack in a fresh process) is loaded only if a diagnostic needs a position.
 *
 * Keyed by the whole text, not a hash of it: the lookup is an exact comparison (a Map of
 * strings), and a lint does not load node:crypto for a sha256, which it needs for nothing else
 * (loading it measured 12-25 ms in a fresh process, a third of Node's own start).
 *
 * Used only by the bundle, never by the sources a checkout runs (its dist/ may be stale): the
 * build sets `__PI_QUESTS_BUNDLED_YAML__` to the version of the yaml library it bundles, and the
 * cache must say that version and this module's parse options (yaml-options.ts), or it is not
 * used. Only files under the package's own quests/ folder are looked up: the cache can stand in
 * for the installed pack's files and nothing else (docs/security.md, "The shipped pack's parse
 * cache"). A cache that cannot be read or does not match is no cache: every file is parsed.
 */
import { readFileSync } from "node:fs";
import { join, resolve, sep } from "node:path";
import { isDeepStrictEqual } from "node:util";
import { packageRoot } from "./package-root.ts";
import { YAML_PARSE_OPTIONS, YAML_VALUE_OPTIONS } from "./yaml-options.ts";

/** The yaml library's version in the bundle (scripts/build.ts defines it); undeclared in the sources. */
declare const __PI_QUESTS_BUNDLED_YAML__: string | undefined;

export const YAML_VALUES_FORMAT = "pi-quests.yaml-values/1";

/** The cache's file name in dist/. */
export const YAML_VALUES_FILE = "yaml-values.json";

/** What a cache was made with; a cache is used only by a reader that would read the same way. */
export type YamlValuesStamp = {
  format: string;
  /** The yaml library's version. */
  yaml: string;
  parse: Record<string, unknown>;
  value: Record<string, unknown>;
};

/** dist/yaml-values.json: the stamp, and each recorded text with its value as JSON text. */
export type YamlValuesFile = YamlValuesStamp & { values: [text: string, json: string][] };

export function yamlValuesStamp(yamlVersion: string): YamlValuesStamp {
  return {
    format: YAML_VALUES_FORMAT,
    yaml: yamlVersion,
    parse: YAML_PARSE_OPTIONS,
    value: YAML_VALUE_OPTIONS,
  };
}

export type YamlValueCache = {
  /**
   * The value recorded for exactly this text (a fresh copy each time), when `file` is one the
   * cache covers; otherwise undefined, and the file is parsed.
   */
  valueOf(text: string, file: string): { value: unknown } | undefined;
  /** Told the value a text of `file` parsed to, when the cache gave none (yaml-value-memory.ts keeps it). */
  remember?(text: string, file: string, value: unknown): void;
};

/** The value as JSON, when JSON gives the same value back (not Infinity, NaN, -0, undefined, anything not plain data). */
export function sameAsJson(value: unknown): string | undefined {
  let json: string | undefined;
  try {
    json = JSON.stringify(value);
  } catch {
    // A value JSON cannot write (an alias that contains itself) is not kept.
    return undefined;
  }
  return json !== undefined && isDeepStrictEqual(JSON.parse(json), value) ? json : undefined;
}

/** The yaml library's version the bundle holds; undefined when the sources run. */
export function bundledYamlVersion(): string | undefined {
  return typeof __PI_QUESTS_BUNDLED_YAML__ === "string" ? __PI_QUESTS_BUNDLED_YAML__ : undefined;
}

/**
 * The cache a file's contents describe, for the files under `folder`, or undefined when it is
 * not a cache made with `stamp`.
 */
export function yamlValueCache(
  contents: unknown,
  stamp: YamlValuesStamp,
  folder: string,
): YamlValueCache | undefined {
  if (typeof contents !== "object" || contents === null) return undefined;
  const { values, ...made } = contents as Partial<YamlValuesFile>;
  if (!isDeepStrictEqual(made, stamp) || !Array.isArray(values)) return undefined;
  const byText = new Map<unknown, unknown>(
    values.filter((entry) => Array.isArray(entry) && entry.length === 2),
  );
  const inside = resolve(folder) + sep;
  return {
    valueOf(text, file) {
      if (!resolve(file).startsWith(inside)) return undefined;
      const json = byText.get(text);
      if (typeof json !== "string") return undefined;
      try {
        return { value: JSON.parse(json) as unknown };
      } catch {
        return undefined;
      }
    },
  };
}

let shipped: { cache: YamlValueCache | undefined } | undefined;

/**
 * The installed package's cache, for its quests/ folder; undefined from the sources. The file is
 * read once, when a file under that folder is first looked up: a lint of any other pack never
 * reads it.
 */
export function shippedYamlValues(): YamlValueCache | undefined {
  shipped ??= { cache: lazyShipped() };
  return shipped.cache;
}

function lazyShipped(): YamlValueCache | undefined {
  const version = bundledYamlVersion();
  if (version === undefined) return undefined;
  let root: string;
  try {
    root = packageRoot(import.meta.dirname);
  } catch {
    return undefined;
  }
  const folder = join(root, "quests");
  const inside = resolve(folder) + sep;
  let read: { cache: YamlValueCache | undefined } | undefined;
  return {
    valueOf(text, file) {
      if (!resolve(file).startsWith(inside)) return undefined;
      read ??= { cache: readCache(join(root, "dist", YAML_VALUES_FILE), version, folder) };
      return read.cache?.valueOf(text, file);
    },
  };
}

function readCache(path: string, version: string, folder: string): YamlValueCache | undefined {
  try {
    const contents: unknown = JSON.parse(readFileSync(path, "utf8"));
    return yamlValueCache(contents, yamlValuesStamp(version), folder);
  } catch {
    // No cache, or one that is not JSON: every file is parsed, as from the sources.
    return undefined;
  }
}
