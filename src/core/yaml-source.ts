import {
  type Document,
  isCollection,
  isMap,
  isNode,
  isPair,
  isScalar,
  LineCounter,
  parseDocument,
  visit,
  type Node as YamlNode,
} from "yaml";
import type { Diagnostic } from "./diagnostics.ts";

/** A parsed YAML document that can say where any value came from. */
export type YamlSource = {
  file: string;
  /** The text the document was parsed from. */
  text: string;
  document: Document.Parsed;
  /** The line and column of the value at `path`, or of its nearest parent that exists. */
  locate(path: readonly PropertyKey[], options?: { key?: string }): { line: number; column: number };
  /** The line and column of a character offset in the text. */
  position(offset: number): { line: number; column: number };
};

export function parseYamlSource(
  text: string,
  file: string,
): { ok: true; source: YamlSource } | { ok: false; diagnostics: Diagnostic[] } {
  const lineCounter = new LineCounter();
  const document = parseDocument(text, { lineCounter, prettyErrors: false, uniqueKeys: true });
  const position = (offset: number) => {
    const { line, col } = lineCounter.linePos(offset);
    return { line, column: col };
  };
  if (document.errors.length > 0) {
    return {
      ok: false,
      diagnostics: document.errors.map((error) => ({
        file,
        ...position(error.pos[0]),
        message: `YAML: ${error.message.split("\n")[0]}`,
      })),
    };
  }
  const locate: YamlSource["locate"] = (path, options = {}) => {
    let node: unknown = document.contents;
    let found = node;
    for (const segment of path) {
      if (!isCollection(node)) break;
      const child: unknown = node.get(typeof segment === "symbol" ? String(segment) : segment, true);
      if (child === undefined) break;
      node = child;
      found = child;
    }
    // For an unknown key, point at the key itself rather than the map that holds it.
    if (options.key !== undefined && isMap(found)) {
      const pair = found.items.find(
        (item) => isPair(item) && isScalar(item.key) && item.key.value === options.key,
      );
      if (pair && isNode(pair.key)) found = pair.key;
    }
    const range = isNode(found) ? (found as YamlNode).range : undefined;
    return range ? position(range[0]) : { line: 1, column: 1 };
  };
  return { ok: true, source: { file, text, document, locate, position } };
}

/**
 * How many times one anchor may be expanded through aliases before the document is refused (the
 * yaml library's own bound): a "billion laughs" document nests aliases so that a few lines would
 * expand to gigabytes.
 */
export const MAX_ALIAS_EXPANSIONS = 100;

export type DocumentValue =
  | { ok: true; value: unknown }
  | {
      ok: false;
      message: string /** Where the offending alias starts, when there is one. */;
      offset?: number;
    };

/** The document as plain data, or why it cannot be (an alias bomb), never an exception. */
export function documentValue(document: Document.Parsed): DocumentValue {
  try {
    return { ok: true, value: document.toJS({ maxAliasCount: MAX_ALIAS_EXPANSIONS }) };
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    if (!/excessive alias/i.test(reason)) return { ok: false, message: `cannot be read as data: ${reason}` };
    const offset = nestedAliasOffset(document);
    return {
      ok: false,
      message: `its aliases (*name) expand too far (more than ${MAX_ALIAS_EXPANSIONS} copies of one anchor), the shape of a "billion laughs" attack; write the values out instead of nesting anchors`,
      ...(offset !== undefined ? { offset } : {}),
    };
  }
}

/** The first alias to an anchored value that itself holds an alias (where a bomb multiplies), or the first alias. */
function nestedAliasOffset(document: Document.Parsed): number | undefined {
  let first: number | undefined;
  let nested: number | undefined;
  visit(document, {
    Alias(_key, alias) {
      const start = alias.range?.[0];
      first ??= start;
      const target = alias.resolve(document);
      let holdsAlias = false;
      if (target && isCollection(target)) {
        visit(target, {
          Alias() {
            holdsAlias = true;
            return visit.BREAK;
          },
        });
      }
      if (holdsAlias && start !== undefined) {
        nested = start;
        return visit.BREAK;
      }
      return undefined;
    },
  });
  return nested ?? first;
}
