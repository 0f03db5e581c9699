/**
 * The loaders with the shipped pack's parse cache: a copy of the built-in pack, as shipped and
 * with mistakes written into it, loaded with a cache made from that very copy (as the build
 * makes one, scripts/yaml-values.ts) and without one. The diagnostics are the same, in the same
 * order; the cache is what the valid files were read from.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { yamlValues } from "../../scripts/yaml-values.ts";
import { formatDiagnostic } from "../../src/core/diagnostics.ts";
import { type YamlValueCache, yamlValueCache, yamlValuesStamp } from "../../src/core/yaml-value-cache.ts";
import { type LoadOptions, loadQuests } from "../../src/verifier/loader.ts";
import { loadPlays } from "../../src/verifier/play-loader.ts";
import { makeWorkspace, removeWorkspaces } from "../support/workspace.ts";

const QUESTS = resolve(import.meta.dirname, "../../quests");

afterAll(removeWorkspaces);

/** What `pi-quests lint PACK` writes: each diagnostic a line, or the count of what is valid. */
async function lintLines(pack: string, options: LoadOptions = {}): Promise<string[]> {
  const quests = await loadQuests(pack, options);
  if (!quests.ok) return quests.diagnostics.map(formatDiagnostic);
  const plays = await loadPlays(
    pack,
    quests.value.map((quest) => quest.id),
    options,
  );
  if (!plays.ok) return plays.diagnostics.map(formatDiagnostic);
  return [`${quests.value.length} quest(s) and ${plays.value.length} play(s) valid`];
}

/** A copy of the built-in pack with `edits` (file → [text, replacement]) made in it. */
function packWith(edits: Record<string, [string, string][]>): string {
  const copy = makeWorkspace({}, { copy: QUESTS });
  for (const [file, replacements] of Object.entries(edits)) {
    let text = readFileSync(join(copy, file), "utf8");
    for (const [from, to] of replacements) {
      if (!text.includes(from)) throw new Error(`${file} has no ${from}`);
      text = text.replace(from, to);
    }
    writeFileSync(join(copy, file), text);
  }
  return copy;
}

/** The cache the build would write for `pack`, counting the files it answers. */
function cacheFor(pack: string): { cache: YamlValueCache; hits: () => number } {
  const made = yamlValueCache(yamlValues(pack, "test").contents, yamlValuesStamp("test"), pack);
  if (!made) throw new Error("no cache");
  let hits = 0;
  const cache: YamlValueCache = {
    valueOf(text, file) {
      const found = made.valueOf(text, file);
      if (found) hits++;
      return found;
    },
  };
  return { cache, hits: () => hits };
}

type Case = { edits: Record<string, [string, string][]>; says: string[] };

const CASES: Record<string, Case> = {
  "as shipped": { edits: {}, says: [expect.stringMatching(/^29 quest\(s\) and \d+ play\(s\) valid$/)] },
  "with schema errors in a quest (an unknown field, text read as a map, an unknown check field)": {
    edits: {
      "010-first-prompt.yaml": [
        ["title:", "titel:"],
        ["  - Press `Enter` to send.", "  - Press this: the Enter key."],
        ["    match: { event: input }", "    match: { evnt: input }"],
      ],
    },
    says: [
      '010-first-prompt.yaml:3:1: unknown field "titel" (did you mean title?)',
      '010-first-prompt.yaml:14:5: hints[1]: must be text, but YAML read it as a map because of the ": " after "Press this"; put the whole text in quotes: - "Press this: the Enter key. Pi streams its answer above the editor."',
      '010-first-prompt.yaml:22:14: checks[0].match: unknown field "evnt" (did you mean event?)',
    ],
  },
  "with a YAML error": {
    edits: { "020-first-file.yaml": [["    run: grep -Eqi", '    run: "grep -Eqi']] },
    says: [
      '020-first-file.yaml:40:10: YAML: the quoted text that opens here is never closed: add the closing "',
    ],
  },
  "with mistakes only the checks or the pack show (a duplicate check id, an unknown requires)": {
    edits: {
      "020-first-file.yaml": [["  - id: file-there", "  - id: pi-made-it"]],
      "030-first-commit.yaml": [["requires: [first-file]", "requires: [first-fil]"]],
    },
    says: [
      '020-first-file.yaml:33:9: duplicate check id "pi-made-it" (also check 1); give each check its own id',
      expect.stringMatching(
        /^030-first-commit\.yaml:16:12: requires unknown quest "first-fil"; quests in this pack: /,
      ),
    ],
  },
  "with a schema error in a play": {
    edits: { "solutions/first-file/pass.yaml": [["steps:", "stepz:"]] },
    says: ['solutions/first-file/pass.yaml:3:1: unknown field "stepz" (did you mean steps?)'],
  },
};

describe("loading with the parse cache", () => {
  it.each(Object.entries(CASES))(
    "%s: the same lines with the cache as without it",
    async (_name, { edits, says }) => {
      const pack = packWith(edits);
      const without = await lintLines(pack);
      expect(without.map((line) => line.replace(`${pack}/`, ""))).toEqual(says);
      const { cache, hits } = cacheFor(pack);
      expect(await lintLines(pack, { yamlValues: cache })).toEqual(without);
      // Every file of the pack but one with a YAML error is read from the cache; a pack whose
      // quests do not load stops before its plays.
      expect(hits()).toBeGreaterThanOrEqual(28);
    },
  );
});
