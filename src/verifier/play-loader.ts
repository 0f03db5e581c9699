/**
 * Reads a pack's plays: `solutions/<quest-id>/pass.yaml`, `pass-<name>.yaml` and `fail-<name>.yaml` beside the quest
 * files. Every problem is reported with file:line:col, as quest files' are: a folder for a quest
 * the pack does not have, a file that is not a play, a play file that does not follow the schema
 * (src/verifier/play.ts). A pack without a solutions folder has no plays, which is not an error.
 */
import { readdirSync, statSync } from "node:fs";
import { extname, join } from "node:path";
import { type Diagnostic, describeFsError, type Loaded } from "../core/diagnostics.ts";
import { ONE_PARSE } from "../core/one-parse.ts";
import { readYamlSource } from "../core/yaml-source.ts";
import { type LoadOptions, MAX_QUEST_FILE_BYTES, readBounded } from "./loader.ts";
import { expectationOf, PLAY_NAME_PATTERN, type Play, PlayFileSchema } from "./play.ts";
import { zodDiagnostics } from "./schema-diagnostics.ts";

export const SOLUTIONS_FOLDER = "solutions";

/**
 * The plays of the pack in `packDir` for `questIds`, in pack order; a quest's own in file-name
 * order, except its pass play first.
 */
export async function loadPlays(
  packDir: string,
  questIds: readonly string[],
  options: LoadOptions = {},
): Promise<Loaded<Play[]>> {
  const root = join(packDir, SOLUTIONS_FOLDER);
  const listed = await entriesOf(root);
  if (listed.kind === "absent") return { ok: true, value: [] };
  if (listed.kind === "unreadable") return { ok: false, diagnostics: [at(root, listed.problem)] };

  const diagnostics: Diagnostic[] = [];
  const byQuest = new Map<string, Play[]>();
  for (const folder of listed.names.sort()) {
    const dir = join(root, folder);
    if (!(await isFolder(dir))) {
      diagnostics.push(
        at(dir, `is not a folder; ${SOLUTIONS_FOLDER}/ holds one folder per quest, named by its id`),
      );
      continue;
    }
    if (!questIds.includes(folder)) {
      diagnostics.push(at(dir, `names no quest of this pack; quests: ${questIds.join(", ")}`));
      continue;
    }
    const plays = await readQuestPlays(dir, folder, diagnostics, options);
    byQuest.set(folder, plays);
  }
  if (diagnostics.length > 0) return { ok: false, diagnostics };
  return { ok: true, value: questIds.flatMap((id) => byQuest.get(id) ?? []) };
}

async function readQuestPlays(
  dir: string,
  quest: string,
  diagnostics: Diagnostic[],
  options: LoadOptions,
): Promise<Play[]> {
  const listed = await entriesOf(dir);
  if (listed.kind !== "listed") {
    diagnostics.push(at(dir, listed.kind === "absent" ? "is gone" : listed.problem));
    return [];
  }
  const plays: Play[] = [];
  for (const file of listed.names.sort()) {
    const path = join(dir, file);
    const name = file.slice(0, -extname(file).length || undefined);
    if (extname(file) !== ".yaml" || !PLAY_NAME_PATTERN.test(name)) {
      diagnostics.push(
        at(
          path,
          "is not a play: a quest's plays are pass.yaml, pass-<name>.yaml and fail-<name>.yaml (a-z, 0-9 and - in the name)",
        ),
      );
      continue;
    }
    const play = await readPlayFile(path, quest, name, options);
    if (play.ok) plays.push(play.value);
    else diagnostics.push(...play.diagnostics);
  }
  // The pass play first: the quests that require this one are played after it.
  return plays.sort((a, b) => Number(b.name === "pass") - Number(a.name === "pass"));
}

/** One play file, checked against the schema. */
export async function readPlayFile(
  file: string,
  quest: string,
  name: string,
  options: LoadOptions = {},
): Promise<Loaded<Play>> {
  const read = await readBounded(file, { maxBytes: MAX_QUEST_FILE_BYTES, what: "a play file" });
  if (!read.ok) return { ok: false, diagnostics: [at(file, read.problem)] };
  if (read.bytes.includes(0))
    return { ok: false, diagnostics: [at(file, "is a binary file, not YAML text")] };
  const text = read.bytes.toString("utf8");
  if (text.trim() === "")
    return { ok: false, diagnostics: [at(file, "is empty; a play needs version and steps")] };
  const parsed = await readYamlSource(text, file, options.yamlValues);
  if (!parsed.ok) return parsed;
  const { source } = parsed;
  const result = PlayFileSchema.safeParse(source.value, ONE_PARSE);
  if (!result.success)
    return { ok: false, diagnostics: await zodDiagnostics(result.error, { source, schema: PlayFileSchema }) };
  return { ok: true, value: { ...result.data, quest, name, expected: expectationOf(name), source: file } };
}

type Listing =
  | { kind: "listed"; names: string[] }
  | { kind: "absent" }
  | { kind: "unreadable"; problem: string };

async function entriesOf(dir: string): Promise<Listing> {
  try {
    return { kind: "listed", names: readdirSync(dir) };
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return { kind: "absent" };
    return { kind: "unreadable", problem: describeFsError(error) };
  }
}

async function isFolder(path: string): Promise<boolean> {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}

function at(file: string, message: string): Diagnostic {
  return { file, line: 0, column: 0, message };
}
