import {
  type Document,
  isCollection,
  isMap,
  isNode,
  isPair,
  isScalar,
  LineCounter,
  parseDocument,
  type Node as YamlNode,
} from "yaml";
import type { Diagnostic } from "./diagnostics.ts";

/** A parsed YAML document that can say where any value came from. */
export type YamlSource = {
  file: string;
  document: Document.Parsed;
  /** The line and column of the value at `path`, or of its nearest parent that exists. */
  locate(path: readonly PropertyKey[], options?: { key?: string }): { line: number; column: number };
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
  return { ok: true, source: { file, document, locate } };
}
