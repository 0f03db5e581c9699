import { constants } from "node:fs";
import { type FileHandle, open, readdir, stat } from "node:fs/promises";
import { basename, dirname, extname, join, resolve } from "node:path";
import type { z } from "zod";
import { type Diagnostic, describeFsError, type Loaded } from "../core/diagnostics.ts";
import { describeValue } from "../core/predicates.ts";
import { documentValue, parseYamlSource, type YamlSource } from "../core/yaml-source.ts";
import { withQuestDefaults } from "./checks/registry.ts";
import { defaultCheckId, type Quest, QuestFileSchema } from "./quest.ts";

/** A quest file larger than this is refused before parsing. */
export const MAX_QUEST_FILE_BYTES = 1024 * 1024;

const QUEST_EXTENSIONS = new Set([".yaml", ".yml"]);

/** Loads a quest file or a pack folder (every .yaml/.yml in it, ordered by file name). */
export async function loadQuests(path: string): Promise<Loaded<Quest[]>> {
  const absolute = resolve(path);
  let info: Awaited<ReturnType<typeof stat>>;
  try {
    info = await stat(absolute);
  } catch (error) {
    return fileProblem(absolute, `${describeFsError(error)}; give a quest .yaml file or a pack folder`);
  }
  return info.isDirectory()
    ? loadQuestPack(absolute)
    : loadQuestPack(dirname(absolute), [basename(absolute)]);
}

/** Loads one quest file on its own (its `requires` are not checked against a pack). */
export async function loadQuestFile(file: string): Promise<Loaded<Quest>> {
  const loaded = await readQuestFile(resolve(file));
  return loaded.ok ? { ok: true, value: loaded.value } : loaded;
}

/**
 * Loads a pack: each file on its own, then what only the whole pack can say (duplicate ids,
 * unknown or cyclic `requires`). Every problem in every file is reported, not only the first.
 */
export async function loadQuestPack(dir: string, only?: string[]): Promise<Loaded<Quest[]>> {
  let names: string[];
  try {
    names = only ?? (await readdir(dir)).filter((name) => QUEST_EXTENSIONS.has(extname(name)));
  } catch (error) {
    return fileProblem(dir, describeFsError(error));
  }
  names.sort();
  if (names.length === 0) return fileProblem(dir, "no quest files (.yaml or .yml) in this folder");

  const diagnostics: Diagnostic[] = [];
  const quests: Quest[] = [];
  const sources = new Map<Quest, YamlSource>();
  for (const name of names) {
    const loaded = await readQuestFile(join(dir, name));
    if (loaded.ok) {
      quests.push(loaded.value);
      sources.set(loaded.value, loaded.source);
    } else {
      diagnostics.push(...loaded.diagnostics);
    }
  }
  diagnostics.push(...packProblems(quests, sources, only === undefined));
  return diagnostics.length > 0 ? { ok: false, diagnostics } : { ok: true, value: quests };
}

async function readQuestFile(
  file: string,
): Promise<{ ok: true; value: Quest; source: YamlSource } | { ok: false; diagnostics: Diagnostic[] }> {
  const read = await readBounded(file);
  if (!read.ok) return fileProblem(file, read.problem);
  const { bytes } = read;
  if (bytes.includes(0)) return fileProblem(file, "is a binary file, not YAML text");
  const text = bytes.toString("utf8");
  if (text.trim() === "")
    return fileProblem(file, "is empty; a quest file needs version, id, title, goal and checks");

  const parsed = parseYamlSource(text, file);
  if (!parsed.ok) return parsed;
  const { source } = parsed;
  const data = documentValue(source.document);
  if (!data.ok) {
    const where = data.offset !== undefined ? source.position(data.offset) : { line: 1, column: 1 };
    return { ok: false, diagnostics: [{ file, ...where, message: `YAML: ${data.message}` }] };
  }
  const result = QuestFileSchema.safeParse(data.value);
  if (!result.success) return { ok: false, diagnostics: zodDiagnostics(result.error, source) };

  const diagnostics: Diagnostic[] = [];
  const questEditable = result.data.editable;
  const checks = result.data.checks.map((check, index) =>
    withQuestDefaults({ ...check, id: check.id ?? defaultCheckId(index) }, { editable: questEditable }),
  );
  const seen = new Map<string, number>();
  checks.forEach((check, index) => {
    const first = seen.get(check.id);
    if (first !== undefined) {
      diagnostics.push({
        file,
        ...source.locate(["checks", index, "id"]),
        message: `duplicate check id "${check.id}" (also check ${first + 1}); give each check its own id`,
      });
    } else {
      seen.set(check.id, index);
    }
  });

  let sandboxDir: string | undefined;
  if (result.data.sandbox !== undefined) {
    sandboxDir = resolve(dirname(file), result.data.sandbox);
    const problem = await folderProblem(sandboxDir);
    if (problem) {
      diagnostics.push({
        file,
        ...source.locate(["sandbox"]),
        message: `sandbox ${result.data.sandbox} ${problem}; it names a template folder relative to this quest file`,
      });
    }
  }
  if (diagnostics.length > 0) return { ok: false, diagnostics };
  const quest: Quest = { ...result.data, checks, source: file, ...(sandboxDir ? { sandboxDir } : {}) };
  return { ok: true, value: quest, source };
}

/**
 * The file's bytes, never more than the bound: the size is taken from the open file, and one byte
 * past the bound tells a file that grew after that from one that fits. A FIFO does not block the
 * open (O_NONBLOCK) and is refused as not a regular file.
 */
export async function readBounded(
  file: string,
): Promise<{ ok: true; bytes: Buffer } | { ok: false; problem: string }> {
  const tooLarge = (size: number | string) => ({
    ok: false as const,
    problem: `is ${size} bytes; a quest file may be at most ${MAX_QUEST_FILE_BYTES} bytes (1 MiB), so it was not read`,
  });
  let handle: FileHandle | undefined;
  try {
    handle = await open(file, constants.O_RDONLY | (constants.O_NONBLOCK ?? 0));
    const info = await handle.stat();
    if (!info.isFile()) return { ok: false, problem: "is not a regular file" };
    if (info.size > MAX_QUEST_FILE_BYTES) return tooLarge(info.size);
    const buffer = Buffer.alloc(MAX_QUEST_FILE_BYTES + 1);
    let length = 0;
    while (length < buffer.length) {
      const { bytesRead } = await handle.read(buffer, length, buffer.length - length, null);
      if (bytesRead === 0) break;
      length += bytesRead;
    }
    if (length > MAX_QUEST_FILE_BYTES) return tooLarge(`more than ${MAX_QUEST_FILE_BYTES}`);
    return { ok: true, bytes: buffer.subarray(0, length) };
  } catch (error) {
    return { ok: false, problem: describeFsError(error) };
  } finally {
    await handle?.close();
  }
}

async function folderProblem(dir: string): Promise<string | undefined> {
  try {
    return (await stat(dir)).isDirectory() ? undefined : "is not a folder";
  } catch (error) {
    return `cannot be used (${describeFsError(error)})`;
  }
}

function packProblems(quests: Quest[], sources: Map<Quest, YamlSource>, wholePack: boolean): Diagnostic[] {
  const diagnostics: Diagnostic[] = [];
  const at = (quest: Quest, path: PropertyKey[], message: string) =>
    diagnostics.push({
      file: quest.source,
      ...(sources.get(quest)?.locate(path) ?? { line: 1, column: 1 }),
      message,
    });

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
  if (!wholePack) return diagnostics;

  for (const quest of quests) {
    quest.requires.forEach((required, index) => {
      if (!byId.has(required)) {
        const known = [...byId.keys()].join(", ");
        at(quest, ["requires", index], `requires unknown quest "${required}"; quests in this pack: ${known}`);
      }
    });
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
  return diagnostics;
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

/** One diagnostic per zod issue, at the YAML node the issue is about. */
export function zodDiagnostics(error: z.ZodError, source: YamlSource): Diagnostic[] {
  return error.issues.map((issue) => {
    const path = issue.path;
    const label = path.length > 0 ? `${formatPath(path)}: ` : "";
    if (issue.code === "unrecognized_keys") {
      const key = issue.keys[0] ?? "";
      return {
        file: source.file,
        ...source.locate(path, { key }),
        message: `${label}unknown field${issue.keys.length > 1 ? "s" : ""} ${issue.keys.map((k) => `"${k}"`).join(", ")}; see docs/quest-format.md for the fields this accepts`,
      };
    }
    let message = issue.message;
    if (issue.code === "invalid_type") {
      message = /received undefined$/.test(issue.message)
        ? "is required"
        : `must be ${issue.expected}, not ${describeValue(valueAt(source, path))}`;
    }
    return { file: source.file, ...source.locate(path), message: `${label}${message}` };
  });
}

function valueAt(source: YamlSource, path: readonly PropertyKey[]): unknown {
  return source.document.getIn(
    path.map((segment) => (typeof segment === "symbol" ? String(segment) : segment)),
  );
}

/** `checks[0].match.tool`, as a person reads a YAML path. */
function formatPath(path: readonly PropertyKey[]): string {
  return path
    .map((segment, index) =>
      typeof segment === "number" ? `[${segment}]` : `${index > 0 ? "." : ""}${String(segment)}`,
    )
    .join("");
}

function fileProblem(file: string, message: string): { ok: false; diagnostics: Diagnostic[] } {
  return { ok: false, diagnostics: [{ file, line: 0, column: 0, message }] };
}
