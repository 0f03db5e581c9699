/**
 * Schema problems as diagnostics a person can act on: each zod issue becomes one `file:line:col`
 * message at the YAML node it is about. Shared by every loader of YAML files (quests, plays).
 */
import type { z } from "zod";
import type { Diagnostic } from "../core/diagnostics.ts";
import { describeValue } from "../core/predicates.ts";
import type { YamlSource } from "../core/yaml-source.ts";

/** One diagnostic per zod issue of `error` (from parsing `source`'s document), at the node it is about. */
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

/** The value at `path` in the document. */
export function valueAt(source: YamlSource, path: readonly PropertyKey[]): unknown {
  return source.document.getIn(
    path.map((segment) => (typeof segment === "symbol" ? String(segment) : segment)),
  );
}

/** `checks[0].match.tool`, as a person reads a YAML path. */
export function formatPath(path: readonly PropertyKey[]): string {
  return path
    .map((segment, index) =>
      typeof segment === "number" ? `[${segment}]` : `${index > 0 ? "." : ""}${String(segment)}`,
    )
    .join("");
}
