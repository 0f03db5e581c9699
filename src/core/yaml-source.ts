/**
 * A YAML file read as data, for the loaders of quests and plays: its value, and where each value
 * was written, for the diagnostics. The value comes from the shipped pack's parse cache
 * (yaml-value-cache.ts) when the text is one the cache records, else from the yaml library
 * (yaml-document.ts, loaded with `import()` the first time a file needs it), and a cache that
 * learns (yaml-value-memory.ts) is told the value. Positions are found only when asked: for a
 * cached file that is the only time its text is parsed.
 */
import type { Diagnostic } from "./diagnostics.ts";
import type { Position, YamlLocator } from "./yaml-document.ts";
import { shippedYamlValues, type YamlValueCache } from "./yaml-value-cache.ts";

export type { Position, YamlLocator };

/** A problem at a value of the document: the path to it, and what to say there. */
export type YamlProblem = {
  path: readonly PropertyKey[];
  message: string;
  /** The key to point at, for a problem with a key of the map at `path` (an unknown field). */
  key?: string;
};

/** A YAML file read without errors: its value, and where its values were written. */
export type YamlSource = {
  file: string;
  /** The text the value was read from. */
  text: string;
  /** The document as plain data. */
  value: unknown;
  /** Where the values were written: the parsed document (parsed now, for a cached text). */
  locator(): Promise<YamlLocator>;
  /** Each problem as a diagnostic at its value; the document is parsed only if there are any. */
  diagnose(problems: readonly YamlProblem[]): Promise<Diagnostic[]>;
};

export type ReadYaml = { ok: true; source: YamlSource } | { ok: false; diagnostics: Diagnostic[] };

/**
 * Reads `text` (the contents of `file`): its value, or its YAML problems as diagnostics. `cache`
 * is the shipped pack's parse cache when none is given (there is none when the sources run).
 */
export async function readYamlSource(
  text: string,
  file: string,
  cache: YamlValueCache | undefined = shippedYamlValues(),
): Promise<ReadYaml> {
  const cached = cache?.valueOf(text, file);
  if (cached) {
    let located: Promise<YamlLocator> | undefined;
    const locator = () => {
      located ??= import("./yaml-document.ts").then(({ yamlLocator }) => yamlLocator(text));
      return located;
    };
    return { ok: true, source: sourceOf(file, text, cached.value, locator) };
  }
  const { parseYamlDocument } = await import("./yaml-document.ts");
  const parsed = parseYamlDocument(text, file);
  if (!parsed.ok) return parsed;
  cache?.remember?.(text, file, parsed.value);
  const { locator } = parsed;
  return { ok: true, source: sourceOf(file, text, parsed.value, async () => locator) };
}

function sourceOf(
  file: string,
  text: string,
  value: unknown,
  locator: () => Promise<YamlLocator>,
): YamlSource {
  return {
    file,
    text,
    value,
    locator,
    async diagnose(problems) {
      if (problems.length === 0) return [];
      const where = await locator();
      return problems.map(({ path, message, key }) => ({
        file,
        ...where.locate(path, key === undefined ? {} : { key }),
        message,
      }));
    },
  };
}
