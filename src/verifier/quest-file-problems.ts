/**
 * What a quest file can be wrong about beyond its schema: two checks with one id, a check that
 * names a sibling it does not have, a path that can never resolve inside its root, a sandbox that
 * is not a folder of the pack. Asked of a file the schema accepted, and of one it refused in
 * part: there, of every part the schema accepted (a check that is valid on its own, the sandbox,
 * the editable globs), so that one lint run reports every problem of a file, not the schema's
 * first and the rest in the next run.
 */
import { realpathSync, statSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { describeFsError } from "../core/diagnostics.ts";
import { ONE_PARSE } from "../core/one-parse.ts";
import { isInside, parseQuestPath, type QuestPathRule } from "../core/paths.ts";
import type { YamlProblem } from "../core/yaml-source.ts";
import type { PathField, SiblingCheck } from "./checks/define.ts";
import { type Check, CheckSchema, pathFieldsOf, problemsAmong } from "./checks/registry.ts";
import { defaultCheckId } from "./quest.ts";
import { formatPath } from "./schema-diagnostics.ts";

/** The parts of a quest file these rules read; `checks` keep their place in the file. */
export type QuestParts = {
  /** The checks that are valid on their own, each with its index in the file's `checks`. */
  checks: ReadonlyArray<{ index: number; check: Check }>;
  /** Every check of the file as its siblings see it (an id, a type, what it comes after). */
  siblings: readonly SiblingCheck[];
  editable?: readonly string[] | undefined;
  sandbox?: string | undefined;
};

/** The problems beyond the schema, and the sandbox folder when the quest names a usable one. */
export async function questFileProblems(
  parts: QuestParts,
  file: string,
): Promise<{ problems: YamlProblem[]; sandboxDir?: string }> {
  const problems = [
    ...duplicateCheckIds(parts.siblings),
    ...parts.checks.flatMap(({ index, check }) =>
      problemsAmong(check, parts.siblings).map(({ field, message }) => ({
        path: ["checks", index, ...field],
        message,
      })),
    ),
    ...pathProblems(parts),
  ];
  if (parts.sandbox === undefined) return { problems };
  const sandboxDir = resolve(dirname(file), parts.sandbox);
  const problem = await sandboxProblem(parts.sandbox, sandboxDir, dirname(file));
  if (problem) problems.push({ path: ["sandbox"], message: `sandbox ${problem}` });
  return { problems, sandboxDir };
}

/**
 * The parts of a file the schema refused, that the schema did not refuse: a check is read when
 * it is valid on its own; `editable` and `sandbox` when no issue of the schema is about them.
 */
export function partsBesideIssues(value: unknown, issues: readonly SchemaIssue[]): QuestParts {
  const quest = isMap(value) ? value : {};
  // An unknown field is an issue of its map that names the field: it refuses that field only.
  const paths = issues.flatMap((issue) =>
    issue.code === "unrecognized_keys" ? (issue.keys ?? []).map((key) => [...issue.path, key]) : [issue.path],
  );
  const refused = (path: readonly PropertyKey[]) =>
    paths.some((issue) => startsWith(issue, path) || startsWith(path, issue));
  const written = Array.isArray(quest.checks) ? (quest.checks as unknown[]) : [];
  const checks = written.flatMap((raw, index) => {
    if (refused(["checks", index])) return [];
    const parsed = CheckSchema.safeParse(raw, ONE_PARSE);
    if (!parsed.success) return [];
    return [{ index, check: { ...parsed.data, id: parsed.data.id ?? defaultCheckId(index) } as Check }];
  });
  // An id the schema refused is its problem already: it is not also a duplicate of another.
  const siblings = written.map((raw, index) =>
    refused(["checks", index, "id"]) ? { id: `\0${index}`, type: "" } : siblingOf(raw, index),
  );
  const editable =
    Array.isArray(quest.editable) && !refused(["editable"]) ? quest.editable.map(String) : undefined;
  const sandbox = typeof quest.sandbox === "string" && !refused(["sandbox"]) ? quest.sandbox : undefined;
  return { checks, siblings, editable, sandbox };
}

/** What the loader needs of a schema issue: where it is, and for an unknown field, which. */
export type SchemaIssue = { path: readonly PropertyKey[]; code?: string; keys?: readonly string[] };

/** A check as its siblings see it, read from what was written (id, type, after). */
function siblingOf(raw: unknown, index: number): SiblingCheck {
  const check = isMap(raw) ? raw : {};
  const id = typeof check.id === "string" ? check.id : defaultCheckId(index);
  return { id, type: typeof check.type === "string" ? check.type : "", after: check.after };
}

function duplicateCheckIds(siblings: readonly SiblingCheck[]): YamlProblem[] {
  const seen = new Map<string, number>();
  const problems: YamlProblem[] = [];
  siblings.forEach(({ id }, index) => {
    const first = seen.get(id);
    if (first === undefined) seen.set(id, index);
    else
      problems.push({
        path: ["checks", index, "id"],
        message: `duplicate check id "${id}" (also check ${first + 1}); give each check its own id`,
      });
  });
  return problems;
}

/**
 * The path fields that can never resolve inside their root (each check type names its own,
 * `pathFields`; the quest's `editable`), by core's rule, the one `resolveQuestPath` applies at run
 * time. Lint refuses them for version 1 files too: they never worked.
 */
function pathProblems(parts: QuestParts): YamlProblem[] {
  const fields: { path: (string | number)[]; field: PathField }[] = [];
  for (const { index, check } of parts.checks)
    for (const field of pathFieldsOf(check)) fields.push({ path: ["checks", index, ...field.field], field });
  (parts.editable ?? []).forEach((written, index) => {
    fields.push({ path: ["editable", index], field: { field: [], written, rule: QUEST_EDITABLE } });
  });
  return fields.flatMap(({ path, field }) => {
    const parsed = parseQuestPath(field.written, field.rule);
    if (parsed.ok) return [];
    const note = field.note ? ` ${field.note}` : "";
    return [{ path, message: `${formatPath(path)}: ${field.written} ${parsed.reason}${note}` }];
  });
}

const QUEST_EDITABLE: QuestPathRule = { templates: "none", relativeTo: "the quest workspace" };
const SANDBOX: QuestPathRule = { templates: "none", relativeTo: "the pack folder" };

/**
 * Why a quest's `sandbox` cannot be its template folder: it must name a folder inside the pack
 * (relative to the quest file), by name and once symbolic links are followed.
 */
async function sandboxProblem(written: string, dir: string, packDir: string): Promise<string | undefined> {
  const parsed = parseQuestPath(written, SANDBOX);
  if (!parsed.ok) {
    const why = parsed.problem === "escape" ? 'leaves the pack folder through ".."' : parsed.reason;
    return `${written} ${why}; a sandbox is a template folder inside the pack`;
  }
  try {
    if (!statSync(dir).isDirectory()) return `${written} is not a folder`;
    const [real, realPack] = [realpathSync(dir), realpathSync(packDir)];
    if (!isInside(real, realPack))
      return `${written} leads out of the pack folder through a symbolic link (to ${real}); a sandbox is a template folder inside the pack`;
    return undefined;
  } catch (error) {
    return `${written} cannot be used (${describeFsError(error)}); it names a template folder relative to this quest file`;
  }
}

function startsWith(path: readonly PropertyKey[], prefix: readonly PropertyKey[]): boolean {
  return prefix.length <= path.length && prefix.every((part, index) => path[index] === part);
}

function isMap(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
