/**
 * The parse cache of the quest files `pi-quests check` reads from outside the package: for each
 * file, the value its last text parsed to, kept in the data dir and sealed, so that checking the
 * same quest again does not load the yaml library (about 15 ms of a check's start). The shipped
 * pack has its own cache (yaml-value-cache.ts), which this one falls back on first.
 *
 * One entry per file (named by the sha256 of its absolute path), replaced when its text changes,
 * so the folder grows with the quests checked, not with their edits. An entry answers only for
 * exactly the text it was made from (its sha256), only with the yaml library and the options it
 * was made with (the stamp), and only when its seal verifies: sealed like every record pi-quests
 * trusts (src/core/seal.ts), under a scope that names the file, so an entry copied to another
 * file's name does not verify. A value is kept only when JSON gives it back the same (no
 * Infinity, NaN or -0). Anything wrong, and the file is parsed as without the cache; a cache that
 * cannot be written is no cache (docs/security.md, "The shipped pack's parse cache").
 */
import { createHash, randomBytes } from "node:crypto";
import { lstatSync, mkdirSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { isDeepStrictEqual } from "node:util";
import { readRecordFile } from "./record-file.ts";
import { scopedSealer } from "./record-sealers.ts";
import { openSealer, type Sealer } from "./seal.ts";
import { sameAsJson, type YamlValueCache, type YamlValuesStamp } from "./yaml-value-cache.ts";

/** The folder of the entries, in the data dir. */
export const YAML_MEMORY_FOLDER = "yaml-values";

/** An entry's size at most: a quest file is at most 1 MiB, and its value as JSON about as much. */
const MAX_ENTRY_BYTES = 8 * 1024 * 1024;

type Entry = { stamp: YamlValuesStamp; textSha256: string; json: string; seal: string };

const sha256 = (text: string) => createHash("sha256").update(text, "utf8").digest("hex");

/**
 * The cache of `dataDir` for values parsed with `stamp`'s yaml library and options, in front of
 * `fallback` (the shipped pack's). The data dir's key is opened on the first look.
 */
export function yamlValueMemory(
  dataDir: string,
  stamp: YamlValuesStamp,
  fallback?: YamlValueCache,
): YamlValueCache {
  const folder = join(dataDir, YAML_MEMORY_FOLDER);
  let key: Sealer | undefined;
  const sealerOf = (file: string) => {
    key ??= openSealer(dataDir);
    return scopedSealer(key, `pi-quests.yaml-values ${file}`);
  };
  const entryFile = (file: string) => join(folder, `${sha256(file)}.json`);
  const sealedText = (entry: Omit<Entry, "seal">) =>
    JSON.stringify([entry.stamp, entry.textSha256, entry.json]);

  return {
    valueOf(text, file) {
      const known = fallback?.valueOf(text, file);
      if (known) return known;
      const absolute = resolve(file);
      const read = readRecordFile(entryFile(absolute), MAX_ENTRY_BYTES);
      if (!read.ok) return undefined;
      try {
        const entry = JSON.parse(read.bytes.toString("utf8")) as Entry;
        if (!isDeepStrictEqual(entry.stamp, stamp) || entry.textSha256 !== sha256(text)) return undefined;
        if (typeof entry.seal !== "string" || !sealerOf(absolute).verifyText(sealedText(entry), entry.seal))
          return undefined;
        return { value: JSON.parse(entry.json) as unknown };
      } catch {
        // No entry, or one that is not an entry: the file is parsed.
        return undefined;
      }
    },
    remember(text, file, value) {
      const json = sameAsJson(value);
      if (json === undefined || json.length > MAX_ENTRY_BYTES / 2) return;
      const absolute = resolve(file);
      const unsealed = { stamp, textSha256: sha256(text), json };
      const target = entryFile(absolute);
      const temporary = `${target}.${randomBytes(6).toString("hex")}.tmp`;
      try {
        mkdirSync(folder, { recursive: true });
        // Only into a folder of its own: a link put in its place (into the learner's workspace,
        // say) is not followed, and nothing is written.
        if (!lstatSync(folder).isDirectory()) return;
        const entry: Entry = { ...unsealed, seal: sealerOf(absolute).sealText(sealedText(unsealed)) };
        // No fsync: a torn entry fails its seal and is not used.
        writeFileSync(temporary, JSON.stringify(entry), { flag: "wx", mode: 0o600 });
        renameSync(temporary, target);
      } catch {
        // Best effort: without an entry the file is parsed next time, as it was this time.
        try {
          rmSync(temporary, { force: true });
        } catch {
          // Nothing was made there.
        }
      }
    },
  };
}
