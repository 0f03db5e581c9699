/**
 * Schema problems as diagnostics a person can act on: each zod issue becomes one `file:line:col`
 * message at the YAML node it is about, in words ("is required", "must be string, not a list"),
 * with the closest known name for a typo ("did you mean path?"). Shared by every loader of YAML
 * files (quests, plays):
 *
 *   const result = Schema.safeParse(source.value);
 *   if (!result.success) return await zodDiagnostics(result.error, { source, schema: Schema });
 *
 * A schema's own refinement may point at a map's key instead of its value: add the issue with
 * `params: { key }` (the key's name), as for an unknown field.
 */
import type { z } from "zod";
import type { Diagnostic } from "../core/diagnostics.ts";
import { describeValue } from "../core/predicates.ts";
import { closestName } from "../core/suggest.ts";
import type { YamlLocator, YamlSource } from "../core/yaml-source.ts";

/** What `zodDiagnostics` needs besides the error. */
export type SchemaInput = {
  /** The YAML file: its value (what the schema was given) and where each value was written. */
  source: YamlSource;
  /** The schema that refused it: the fields it accepts at a path, for "did you mean". */
  schema: z.ZodType;
};

type Path = readonly PropertyKey[];

/** What the messages are worked out from: the schema, the data, the text and its positions. */
type Context = { schema: z.ZodType; data: unknown; text: string; where: YamlLocator };

/**
 * One diagnostic per zod issue, at the node it is about, in the order zod reported them. An
 * unknown field suggests the closest field the schema accepts there, and the "is required" of
 * the field it suggests is left out: `pth: x` is one message, not two.
 */
export async function zodDiagnostics(error: z.ZodError, input: SchemaInput): Promise<Diagnostic[]> {
  const { source, schema } = input;
  const context: Context = { schema, data: source.value, text: source.text, where: await source.locator() };
  const suggested = new Set<string>();
  const entries: { diagnostic: Diagnostic; missing?: string }[] = [];
  for (const issue of error.issues) {
    const path = issue.path;
    const label = path.length > 0 ? `${formatPath(path)}: ` : "";
    if (issue.code === "unrecognized_keys") {
      const message = unknownKeysMessage(issue.keys, path, context, suggested);
      const where = context.where.locate(path, { key: issue.keys[0] ?? "" });
      entries.push({ diagnostic: { file: source.file, ...where, message: `${label}${message}` } });
      continue;
    }
    const value = valueAt(context.data, path);
    const missing = value === undefined && (issue.code === "invalid_type" || issue.message === "is required");
    const key = issue.code === "custom" ? keyParam(issue.params) : undefined;
    const where = context.where.locate(path, key === undefined ? {} : { key });
    const message = issueMessage(issue, value, path, context);
    entries.push({
      diagnostic: { file: source.file, ...where, message: `${label}${message}` },
      ...(missing ? { missing: pathKey(path) } : {}),
    });
  }
  return entries.filter((entry) => !(entry.missing && suggested.has(entry.missing))).map((e) => e.diagnostic);
}

function issueMessage(issue: z.core.$ZodIssue, value: unknown, path: Path, context: Context): string {
  if (issue.code === "invalid_type") {
    if (value === undefined) return "is required";
    if (issue.expected === "string") {
      const hint = scalarReadAsMap(context, path);
      if (hint) return `must be text, but ${hint}`;
    }
    return `must be ${issue.expected}, not ${describeValue(value)}`;
  }
  // zod's own words for an enum ("Invalid option: expected one of ..."); a schema's own message wins.
  if (issue.code === "invalid_value" && issue.message.startsWith("Invalid option")) {
    const options = issue.values.map(String);
    if (value === undefined) return `is required: one of ${options.join(", ")}`;
    const closest = typeof value === "string" ? closestName(value, options) : undefined;
    const mean = closest === undefined ? "" : `; did you mean ${closest}?`;
    return `${JSON.stringify(value)} is not one of ${options.join(", ")}${mean}`;
  }
  return issue.message;
}

function unknownKeysMessage(keys: readonly string[], path: Path, context: Context, suggested: Set<string>) {
  const known = knownKeysAt(context.schema, context.data, path) ?? [];
  // Only a field the map does not already have can be the one a typo meant.
  const free = known.filter((name) => valueAt(context.data, [...path, name]) === undefined);
  let unsuggested = 0;
  const named = keys.map((key) => {
    const closest = closestName(key, free);
    if (closest === undefined) {
      unsuggested++;
      return `"${key}"`;
    }
    suggested.add(pathKey([...path, closest]));
    return `"${key}" (did you mean ${closest}?)`;
  });
  const docs = unsuggested > 0 ? "; see docs/quest-format.md for the fields this accepts" : "";
  return `unknown field${keys.length > 1 ? "s" : ""} ${named.join(", ")}${docs}`;
}

/**
 * A YAML value the schema wanted as text, written as `Try this: run it` on one line: YAML reads
 * it as a map of one pair because of the `: `. Says so, with the line as it should be written.
 */
function scalarReadAsMap(context: Context, path: Path): string | undefined {
  const map = context.where.onePairMap(path);
  if (map === undefined) return undefined;
  const { text } = context;
  const written = text.slice(map.start, map.end).trimEnd();
  if (written.includes("\n")) return undefined;
  const lineStart = text.lastIndexOf("\n", map.start - 1) + 1;
  const before = text.slice(lineStart, map.start);
  const quoted = JSON.stringify(written);
  const line = /^\s*-\s+$/.test(before) ? `- ${quoted}` : quoted;
  return `YAML read it as a map because of the ": " after ${JSON.stringify(map.key)}; put the whole text in quotes: ${line}`;
}

/** The plain value at `path` in `data` (undefined where the path leads nowhere). */
export function valueAt(data: unknown, path: Path): unknown {
  let value = data;
  for (const segment of path) {
    if (typeof value !== "object" || value === null) return undefined;
    value = (value as Record<PropertyKey, unknown>)[segment];
  }
  return value;
}

/**
 * `checks[0].match.tool`, as a person reads a YAML path; a key that is not a plain name is
 * written in brackets: `match.fields["input.path"]`.
 */
export function formatPath(path: Path): string {
  return path
    .map((segment, index) => {
      if (typeof segment === "number") return `[${segment}]`;
      const name = String(segment);
      if (!/^[A-Za-z_][A-Za-z0-9_-]*$/.test(name)) return `[${JSON.stringify(name)}]`;
      return `${index > 0 ? "." : ""}${name}`;
    })
    .join("");
}

/**
 * The keys the schema accepts for the map at `path` of `data`, or undefined when it cannot say
 * (not a map there, or a schema it cannot look into). A discriminated union is followed by the
 * data's discriminator (a check's `type`), another union by the options that have the key.
 */
export function knownKeysAt(schema: z.ZodType, data: unknown, path: Path): string[] | undefined {
  let current: z.ZodType | undefined = schema;
  let value = data;
  for (const segment of path) {
    if (current === undefined) return undefined;
    current = childSchema(current, value, segment);
    value = valueAt(value, [segment]);
  }
  return current === undefined ? undefined : keysOf(current, value);
}

/** The parts of a zod schema this reads (zod 4's `_zod.def`). */
type Def = {
  type: string;
  shape?: Record<string, z.ZodType>;
  element?: z.ZodType;
  valueType?: z.ZodType;
  options?: z.ZodType[];
  discriminator?: string;
  innerType?: z.ZodType;
  in?: z.ZodType;
  values?: unknown[];
};

function defOf(schema: z.ZodType): Def {
  return schema._zod.def as unknown as Def;
}

/** The schema with its wrappers (optional, default, pipe...) taken off. */
function unwrap(schema: z.ZodType): z.ZodType {
  let current = schema;
  for (let depth = 0; depth < 20; depth++) {
    const def = defOf(current);
    const inner = def.innerType ?? (def.type === "pipe" ? def.in : undefined);
    if (inner === undefined) return current;
    current = inner;
  }
  return current;
}

function childSchema(schema: z.ZodType, value: unknown, segment: PropertyKey): z.ZodType | undefined {
  const def = defOf(unwrap(schema));
  switch (def.type) {
    case "object":
      return def.shape?.[String(segment)];
    case "array":
      return def.element;
    case "record":
      return def.valueType;
    case "union": {
      const options = unionOptions(def, value).filter((option) =>
        keysOf(option, value)?.includes(String(segment)),
      );
      return options.length === 0 ? undefined : childSchema(options[0] as z.ZodType, value, segment);
    }
    default:
      return undefined;
  }
}

function keysOf(schema: z.ZodType, value: unknown): string[] | undefined {
  const def = defOf(unwrap(schema));
  if (def.type === "object") return Object.keys(def.shape ?? {});
  if (def.type !== "union") return undefined;
  const keys = unionOptions(def, value).flatMap((option) => keysOf(option, value) ?? []);
  return keys.length === 0 ? undefined : [...new Set(keys)];
}

/** A discriminated union's option for the data's discriminator, or every option. */
function unionOptions(def: Def, value: unknown): z.ZodType[] {
  const options = def.options ?? [];
  if (def.discriminator === undefined) return options;
  const chosen = valueAt(value, [def.discriminator]);
  const matching = options.filter((option) => {
    const field = defOf(unwrap(option)).shape?.[def.discriminator ?? ""];
    return field !== undefined && (defOf(unwrap(field)).values ?? []).includes(chosen);
  });
  return matching.length > 0 ? matching : [];
}

function keyParam(params: unknown): string | undefined {
  const key = typeof params === "object" && params !== null ? (params as { key?: unknown }).key : undefined;
  return typeof key === "string" ? key : undefined;
}

function segments(path: Path): (string | number)[] {
  return path.map((segment) => (typeof segment === "symbol" ? String(segment) : segment));
}

function pathKey(path: Path): string {
  return JSON.stringify(segments(path));
}
