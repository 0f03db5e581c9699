import {
  closeSync,
  constants,
  fstatSync,
  openSync,
  readdirSync,
  readSync,
  type Stats,
  statSync,
} from "node:fs";
import { basename, dirname, extname, join, resolve } from "node:path";
import { type Diagnostic, describeFsError, type Loaded } from "../core/diagnostics.ts";
import { ONE_PARSE } from "../core/one-parse.ts";
import { readYamlSource, type YamlProblem, type YamlSource } from "../core/yaml-source.ts";
import type { YamlValueCache } from "../core/yaml-value-cache.ts";
import { withQuestDefaults } from "./checks/registry.ts";
import { PACK_FILE } from "./pack-manifest.ts";
import { defaultCheckId, QUEST_ID_PATTERN, type Quest, QuestFileSchema } from "./quest.ts";
import { partsBesideIssues, questFileProblems } from "./quest-file-problems.ts";
import { zodDiagnostics } from "./schema-diagnostics.ts";

const MIB = 1024 * 1024;

/** A quest file larger than this is refused before parsing. */
export const MAX_QUEST_FILE_BYTES = MIB;

const QUEST_EXTENSIONS = new Set([".yaml", ".yml"]);

/**
 * How files are read. `yamlValues`: a parse cache to use instead of the shipped pack's (tests
 * give one; the default is the installed package's, for its quests/ folder, or none).
 */
export type LoadOptions = { yamlValues?: YamlValueCache };

/** Loads a quest file or a pack folder (every .yaml/.yml in it, ordered by file name). */
export async function loadQuests(
  path: string,
  options: LoadOptions = {},
): Promise<{ ok: true; value: Quest[] } | PackProblems> {
  const absolute = resolve(path);
  let info: Stats;
  try {
    info = statSync(absolute);
  } catch (error) {
    return fileProblem(absolute, `${describeFsError(error)}; give a quest .yaml file or a pack folder`);
  }
  return info.isDirectory()
    ? loadQuestPack(absolute, undefined, options)
    : loadQuestPack(dirname(absolute), [basename(absolute)], options);
}

/** Loads one quest file on its own (its `requires` are not checked against a pack). */
export async function loadQuestFile(file: string, options: LoadOptions = {}): Promise<Loaded<Quest>> {
  const loaded = await readQuestFile(resolve(file), options);
  return loaded.ok ? { ok: true, value: loaded.value } : loaded;
}

/**
 * Loads a pack: each file on its own, then what only the whole pack can say (duplicate ids,
 * unknown or cyclic `requires`). Every problem in every file is reported, not only the first.
 */
export async function loadQuestPack(
  dir: string,
  only?: string[],
  options: LoadOptions = {},
): Promise<{ ok: true; value: Quest[] } | PackProblems> {
  let names: string[];
  try {
    // pack.yaml is the pack's manifest (pack-manifest.ts), not a quest.
    names =
      only ?? readdirSync(dir).filter((name) => QUEST_EXTENSIONS.has(extname(name)) && name !== PACK_FILE);
  } catch (error) {
    return fileProblem(dir, describeFsError(error));
  }
  names.sort();
  if (names.length === 0) return fileProblem(dir, "no quest files (.yaml or .yml) in this folder");

  const diagnostics: Diagnostic[] = [];
  const quests: Quest[] = [];
  const sources = new Map<Quest, YamlSource>();
  const failed: FailedFiles = { ids: new Set(), withoutId: 0, sources: [] };
  for (const name of names) {
    const loaded = await readQuestFile(join(dir, name), options);
    if (loaded.ok) {
      quests.push(loaded.value);
      sources.set(loaded.value, loaded.source);
    } else {
      diagnostics.push(...loaded.diagnostics);
      if (loaded.id !== undefined) failed.ids.add(loaded.id);
      else failed.withoutId++;
      if (loaded.source) failed.sources.push(loaded.source);
    }
  }
  diagnostics.push(...(await packProblems(quests, sources, only === undefined, failed)));
  if (diagnostics.length === 0) return { ok: true, value: quests };
  const questIds = [...quests.map((quest) => quest.id), ...failed.ids];
  return {
    ok: false,
    diagnostics: inPackOrder(
      diagnostics,
      names.map((name) => join(dir, name)),
    ),
    ...(failed.withoutId === 0 ? { questIds } : {}),
  };
}

/**
 * A pack that did not load: its problems, and the quest ids its files give when every file gives
 * one (so that its plays can still be checked against them in the same run).
 */
export type PackProblems = { ok: false; diagnostics: Diagnostic[]; questIds?: string[] };

/** Each file's problems together, files in pack order, each file's in file order. */
function inPackOrder(diagnostics: readonly Diagnostic[], files: readonly string[]): Diagnostic[] {
  const rank = (file: string) => {
    const index = files.indexOf(file);
    return index < 0 ? files.length : index;
  };
  return inFileOrder(diagnostics).sort((a, b) => rank(a.file) - rank(b.file));
}

/**
 * The files of a pack that did not load: the ids they give, how many give none that can be read,
 * and the ones read as YAML (their `requires` are still checked against the pack).
 */
type FailedFiles = { ids: Set<string>; withoutId: number; sources: YamlSource[] };

/** A quest file read: the quest, or its problems and the id it gives when that can be read. */
type ReadQuest =
  | { ok: true; value: Quest; source: YamlSource }
  | { ok: false; diagnostics: Diagnostic[]; id?: string; source?: YamlSource };

async function readQuestFile(file: string, options: LoadOptions): Promise<ReadQuest> {
  const read = await readBounded(file);
  if (!read.ok) return fileProblem(file, read.problem);
  const { bytes } = read;
  if (bytes.includes(0)) return fileProblem(file, "is a binary file, not YAML text");
  const text = bytes.toString("utf8");
  if (text.trim() === "")
    return fileProblem(file, "is empty; a quest file needs version, id, title, goal and checks");

  const parsed = await readYamlSource(text, file, options.yamlValues);
  if (!parsed.ok) return { ...parsed, ...writtenId(text) };
  const { source } = parsed;
  const given = source.value as { id?: unknown; requires?: unknown } | null;
  const id = typeof given?.id === "string" ? { id: given.id } : {};
  const result = QuestFileSchema.safeParse(source.value, ONE_PARSE);
  if (!result.success) {
    // The rest of the file is still judged where the schema accepted it: one run, every problem.
    const beside = await questFileProblems(partsBesideIssues(source.value, result.error.issues), file);
    const diagnostics = [
      ...(await zodDiagnostics(result.error, { source, schema: QuestFileSchema })),
      ...(await source.diagnose(beside.problems)),
    ];
    return { ok: false, diagnostics: inFileOrder(diagnostics), ...id, source };
  }

  const questEditable = result.data.editable;
  const checks = result.data.checks.map((check, index) =>
    withQuestDefaults({ ...check, id: check.id ?? defaultCheckId(index) }, { editable: questEditable }),
  );
  const { problems, sandboxDir } = await questFileProblems(
    {
      checks: checks.map((check, index) => ({ index, check })),
      siblings: checks,
      editable: questEditable,
      sandbox: result.data.sandbox,
    },
    file,
  );
  if (problems.length > 0)
    return { ok: false, diagnostics: inFileOrder(await source.diagnose(problems)), ...id, source };
  const quest: Quest = { ...result.data, checks, source: file, ...(sandboxDir ? { sandboxDir } : {}) };
  return { ok: true, value: quest, source };
}

/** Diagnostics by line, then column: the order an author reads the file in (a file's own first). */
export function inFileOrder<T extends Diagnostic>(diagnostics: readonly T[]): T[] {
  return [...diagnostics].sort((a, b) => a.line - b.line || a.column - b.column);
}

/** What `readBounded` refuses beyond, and how its messages name the file. */
export type ReadBound = {
  /** The most bytes the file may hold. */
  maxBytes: number;
  /** What the file is, for the message: "a quest file", "a play file". */
  what: string;
};

const QUEST_FILE_BOUND: ReadBound = { maxBytes: MAX_QUEST_FILE_BYTES, what: "a quest file" };

/**
 * The file's bytes, never more than the bound (default: a quest file's 1 MiB), or why not as a
 * sentence (too large, not a regular file, a file system error); never an exception. The size is
 * taken from the open file, and one byte past the bound tells a file that grew after that from
 * one that fits. A FIFO does not block the open (O_NONBLOCK) and is refused as not a regular file.
 *
 * The loaders read synchronously: a pack is a hundred small files, each asynchronous call is a
 * round trip through libuv's thread pool (five a file here), and the YAML parse that follows
 * holds the thread anyway. Measured on the curriculum's lint: about 80 ms of 500 less.
 */
export async function readBounded(
  file: string,
  bound: ReadBound = QUEST_FILE_BOUND,
): Promise<{ ok: true; bytes: Buffer } | { ok: false; problem: string }> {
  const { maxBytes, what } = bound;
  const mebibytes = maxBytes % MIB === 0 ? ` (${maxBytes / MIB} MiB)` : "";
  const tooLarge = (size: number | string) => ({
    ok: false as const,
    problem: `is ${size} bytes; ${what} may be at most ${maxBytes} bytes${mebibytes}, so it was not read`,
  });
  let handle: number | undefined;
  try {
    handle = openSync(file, constants.O_RDONLY | (constants.O_NONBLOCK ?? 0));
    const info = fstatSync(handle);
    if (!info.isFile()) return { ok: false, problem: "is not a regular file" };
    if (info.size > maxBytes) return tooLarge(info.size);
    // Room for the size the file has (and the byte that tells it grew), not the whole bound: a
    // pack's hundred small files would otherwise allocate and clear a MiB each.
    let buffer = Buffer.allocUnsafeSlow(info.size + 1);
    let length = 0;
    for (;;) {
      if (length === buffer.length) {
        if (length > maxBytes) break;
        const larger = Buffer.allocUnsafeSlow(Math.min(length * 2, maxBytes + 1));
        buffer.copy(larger, 0, 0, length);
        buffer = larger;
      }
      const bytesRead = readSync(handle, buffer, length, buffer.length - length, null);
      if (bytesRead === 0) break;
      length += bytesRead;
    }
    if (length > maxBytes) return tooLarge(`more than ${maxBytes}`);
    return { ok: true, bytes: buffer.subarray(0, length) };
  } catch (error) {
    return { ok: false, problem: describeFsError(error) };
  } finally {
    if (handle !== undefined) closeSync(handle);
  }
}

/** The quest id a file that is not valid YAML says on a line of its own (`id: first-file`), if any. */
function writtenId(text: string): { id?: string } {
  const id = /^id:[ \t]*["']?([a-z0-9][a-z0-9-]*)["']?[ \t]*$/m.exec(text)?.[1];
  return id === undefined ? {} : { id };
}

/**
 * What only the whole pack can say. A quest that requires one whose file did not load is not
 * also told the id is unknown: the file's own error is the one to fix (and when a file failed
 * with no id that can be read, any unknown id may be its).
 */
async function packProblems(
  quests: Quest[],
  sources: Map<Quest, YamlSource>,
  wholePack: boolean,
  failed: FailedFiles,
): Promise<Diagnostic[]> {
  const problems: { quest: Quest; problem: YamlProblem }[] = [];
  const at = (quest: Quest, path: PropertyKey[], message: string) =>
    problems.push({ quest, problem: { path, message } });
  const located = async () => {
    const diagnostics: Diagnostic[] = [];
    for (const { quest, problem } of problems) {
      const source = sources.get(quest);
      if (source) diagnostics.push(...(await source.diagnose([problem])));
      else diagnostics.push({ file: quest.source, line: 1, column: 1, message: problem.message });
    }
    return diagnostics;
  };

  const byId = new Map<string, Quest>();
  for (const quest of quests) {
    const first = byId.get(quest.id);
    if (first)
      at(
        quest,
        ["id"],
        `duplicate quest id "${quest.id}" (also in ${first.source}); quest ids are unique in a pack`,
      );
    else byId.set(quest.id, quest);
  }
  // A single file checked alone cannot know the rest of its pack.
  if (!wholePack) return located();

  const unknown = (required: unknown) =>
    typeof required === "string" &&
    QUEST_ID_PATTERN.test(required) &&
    !byId.has(required) &&
    !failed.ids.has(required) &&
    failed.withoutId === 0;
  const unknownMessage = (required: string) =>
    `requires unknown quest "${required}"; quests in this pack: ${[...byId.keys()].join(", ")}`;
  for (const quest of quests) {
    quest.requires.forEach((required, index) => {
      if (unknown(required)) at(quest, ["requires", index], unknownMessage(required));
    });
  }
  // A file that did not load is still told about a quest it requires that the pack does not have.
  const elsewhere: Diagnostic[] = [];
  for (const source of failed.sources) {
    const requires = (source.value as { requires?: unknown } | null)?.requires;
    if (!Array.isArray(requires)) continue;
    const problems = requires.flatMap((required, index) =>
      unknown(required) ? [{ path: ["requires", index], message: unknownMessage(required as string) }] : [],
    );
    elsewhere.push(...(await source.diagnose(problems)));
  }
  for (const cycle of requiresCycles(byId)) {
    const first = byId.get(cycle[0] ?? "");
    if (first)
      at(
        first,
        ["requires"],
        `requires form a cycle: ${[...cycle, cycle[0]].join(" -> ")}; no quest in it could ever start`,
      );
  }
  return [...(await located()), ...elsewhere];
}

/** Each cycle once, as the list of quest ids along it (depth-first search with colors). */
function requiresCycles(byId: Map<string, Quest>): string[][] {
  const state = new Map<string, "visiting" | "done">();
  const stack: string[] = [];
  const cycles: string[][] = [];
  const visit = (id: string) => {
    state.set(id, "visiting");
    stack.push(id);
    for (const next of byId.get(id)?.requires ?? []) {
      if (!byId.has(next)) continue;
      if (state.get(next) === "visiting") cycles.push(stack.slice(stack.indexOf(next)));
      else if (!state.has(next)) visit(next);
    }
    stack.pop();
    state.set(id, "done");
  };
  for (const id of byId.keys()) if (!state.has(id)) visit(id);
  return cycles;
}

function fileProblem(file: string, message: string): { ok: false; diagnostics: Diagnostic[] } {
  return { ok: false, diagnostics: [{ file, line: 0, column: 0, message }] };
}
