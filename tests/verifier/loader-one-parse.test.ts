/**
 * The loaders check each file with zod's JIT off (ONE_PARSE, for a process that parses each
 * file once): the same data and the same issues as with it, for every quest and play file here.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { ONE_PARSE } from "../../src/core/one-parse.ts";
import { readYamlSource } from "../../src/core/yaml-source.ts";
import { PlayFileSchema } from "../../src/verifier/play.ts";
import { QuestFileSchema } from "../../src/verifier/quest.ts";

describe("zod without its JIT (ONE_PARSE), as the loaders check a file", () => {
  /** Every YAML file of the built-in pack, the bad-input corpus and the fixture packs. */
  const yamlFiles = (folder: string): string[] =>
    readdirSync(folder, { withFileTypes: true }).flatMap((entry) => {
      const path = join(folder, entry.name);
      if (entry.isDirectory()) return yamlFiles(path);
      return /\.ya?ml$/.test(entry.name) ? [path] : [];
    });
  const repo = resolve(import.meta.dirname, "../..");
  const files = ["quests", "fixtures/bad/quests", "fixtures/packs"].flatMap((folder) =>
    yamlFiles(join(repo, folder)),
  );

  it("gives the same data and the same issues as with it, for every quest and play file there is", async () => {
    let compared = 0;
    for (const file of files) {
      const read = await readYamlSource(readFileSync(file, "utf8"), file);
      if (!read.ok) continue;
      const schema = file.includes("/solutions/") ? PlayFileSchema : QuestFileSchema;
      const withJit = schema.safeParse(read.source.value);
      const without = schema.safeParse(read.source.value, ONE_PARSE);
      expect(without.success, file).toBe(withJit.success);
      expect(without.success ? without.data : without.error.issues, file).toEqual(
        withJit.success ? withJit.data : withJit.error.issues,
      );
      compared++;
    }
    expect(compared).toBeGreaterThan(150);
  });
});
