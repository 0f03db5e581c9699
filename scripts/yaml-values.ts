/**
 * The shipped pack's parse cache (src/core/yaml-value-cache.ts), made by scripts/build.ts: every
 * YAML file under quests/, read by the loaders' own parser (src/core/yaml-document.ts), recorded
 * as its text and its value as JSON. A file is left out when the parser reports an
 * error, or when its value does not come back the same from JSON (Infinity, NaN, -0, an
 * undefined, anything not plain data): the loaders then parse it, as they parse every file
 * without the cache.
 */
import { readdirSync, readFileSync } from "node:fs";
import { extname, join, relative } from "node:path";
import { parseYamlDocument } from "../src/core/yaml-document.ts";
import { sameAsJson, type YamlValuesFile, yamlValuesStamp } from "../src/core/yaml-value-cache.ts";

export type YamlValues = {
  contents: YamlValuesFile;
  /** The files recorded, relative to the folder, sorted. */
  recorded: string[];
  /** The files left out, relative to the folder, with why, sorted. */
  leftOut: { file: string; reason: string }[];
};

/** The cache of every .yaml/.yml file under `folder`, stamped with the yaml library's version. */
export function yamlValues(folder: string, yamlVersion: string): YamlValues {
  const values = new Map<string, string>();
  const recorded: string[] = [];
  const leftOut: YamlValues["leftOut"] = [];
  for (const path of yamlFilesUnder(folder)) {
    const file = relative(folder, path);
    const text = readFileSync(path, "utf8");
    const value = valueJson(text, path);
    if (!value.ok) {
      leftOut.push({ file, reason: value.reason });
      continue;
    }
    values.set(text, value.json);
    recorded.push(file);
  }
  // In the order of the files (sorted by path); a text two files share is recorded once.
  return { contents: { ...yamlValuesStamp(yamlVersion), values: [...values] }, recorded, leftOut };
}

/** The text's value as JSON, when it parses with no error and JSON gives the same value back. */
export function valueJson(
  text: string,
  file: string,
): { ok: true; json: string } | { ok: false; reason: string } {
  const parsed = parseYamlDocument(text, file);
  if (!parsed.ok) return { ok: false, reason: "does not parse without an error" };
  const json = sameAsJson(parsed.value);
  if (json === undefined) return { ok: false, reason: "its value is not the same once written as JSON" };
  return { ok: true, json };
}

/** The YAML files under `folder`, at any depth, sorted; links are not followed. */
function yamlFilesUnder(folder: string): string[] {
  const found: string[] = [];
  for (const entry of readdirSync(folder, { withFileTypes: true })) {
    const path = join(folder, entry.name);
    if (entry.isDirectory()) found.push(...yamlFilesUnder(path));
    else if (entry.isFile() && [".yaml", ".yml"].includes(extname(entry.name))) found.push(path);
  }
  return found.sort();
}
