/**
 * The yaml library's side of reading a YAML file: the parsed Document, where each value was
 * written (line and column), the document as plain data, and the parser's errors in plain words.
 * The only module of the loaders that imports the yaml library: yaml-source.ts loads it with
 * `import()` when a file is not in the shipped pack's parse cache, or when a diagnostic needs a
 * position.
 */
import {
  type Document,
  type ErrorCode,
  isCollection,
  isMap,
  isNode,
  isPair,
  isScalar,
  LineCounter,
  parseDocument,
  visit,
  type YAMLError,
  type Node as YamlNode,
} from "yaml";
import type { Diagnostic } from "./diagnostics.ts";
import { MAX_ALIAS_EXPANSIONS, YAML_PARSE_OPTIONS, YAML_VALUE_OPTIONS } from "./yaml-options.ts";

export type Position = { line: number; column: number };

/** Where the values of a parsed document were written. */
export type YamlLocator = {
  document: Document.Parsed;
  /** The line and column of the value at `path`, or of its nearest parent that exists. */
  locate(path: readonly PropertyKey[], options?: { key?: string }): Position;
  /** The line and column of a character offset in the text. */
  position(offset: number): Position;
  /**
   * The map of one pair at `path`, where the text wanted a scalar (`Try this: run it` read as a
   * map because of its `: `): the key and the text from the map's start to its value's end.
   */
  onePairMap(path: readonly PropertyKey[]): { key: string; start: number; end: number } | undefined;
};

export type ParsedYaml =
  | { ok: true; value: unknown; locator: YamlLocator }
  | { ok: false; diagnostics: Diagnostic[] };

/**
 * The text parsed: its value as plain data and where each value was written, or its problems as
 * diagnostics (the parser's errors in plain words; an alias bomb at its nested alias).
 */
export function parseYamlDocument(text: string, file: string): ParsedYaml {
  const lineCounter = new LineCounter();
  const document = parseDocument(text, { lineCounter, ...YAML_PARSE_OPTIONS });
  const position = positionsOf(lineCounter);
  if (document.errors.length > 0) {
    const diagnostics: Diagnostic[] = [];
    for (const error of document.errors) {
      const { offset, message } = describeYamlError(error, text);
      const diagnostic = { file, ...position(offset), message: `YAML: ${message}` };
      // One mistake can make the parser report it several times at one place: the first says it.
      const said = diagnostics.some((d) => d.line === diagnostic.line && d.column === diagnostic.column);
      if (!said) diagnostics.push(diagnostic);
    }
    return { ok: false, diagnostics };
  }
  const data = documentValue(document);
  if (!data.ok) {
    const where = data.offset !== undefined ? position(data.offset) : { line: 1, column: 1 };
    return { ok: false, diagnostics: [{ file, ...where, message: `YAML: ${data.message}` }] };
  }
  return { ok: true, value: data.value, locator: locatorOf(document, position) };
}

/**
 * Where the values of `text` were written, for a text whose value is already known (the parse
 * cache's): parsed now, its errors (which a cached text does not have) not reported.
 */
export function yamlLocator(text: string): YamlLocator {
  const lineCounter = new LineCounter();
  const document = parseDocument(text, { lineCounter, ...YAML_PARSE_OPTIONS });
  return locatorOf(document, positionsOf(lineCounter));
}

function positionsOf(lineCounter: LineCounter): (offset: number) => Position {
  return (offset) => {
    const { line, col } = lineCounter.linePos(offset);
    return { line, column: col };
  };
}

function locatorOf(document: Document.Parsed, position: (offset: number) => Position): YamlLocator {
  const locate: YamlLocator["locate"] = (path, options = {}) => {
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
  const onePairMap: YamlLocator["onePairMap"] = (path) => {
    const segments = path.map((segment) => (typeof segment === "symbol" ? String(segment) : segment));
    const node = document.getIn(segments, true);
    if (!isMap(node) || node.items.length !== 1 || !node.range) return undefined;
    const pair = node.items[0];
    const key = pair?.key;
    if (!isScalar(key)) return undefined;
    // Up to the end of the value, so that a comment after it is not quoted with it.
    const end = isScalar(pair?.value) && pair.value.range ? pair.value.range[1] : node.range[1];
    return { key: String(key.value), start: node.range[0], end };
  };
  return { document, locate, position, onePairMap };
}

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
    return { ok: true, value: document.toJS(YAML_VALUE_OPTIONS) };
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

/**
 * What the parser's errors mean, in plain words, by the parser's code (and, where one code
 * covers several mistakes, its message). A rewrite that does not apply gives undefined.
 */
const PLAIN_WORDS: Partial<Record<ErrorCode, (words: string, at: Written) => string | undefined>> = {
  TAB_AS_INDENT: () => "a tab indents this line; YAML indents with spaces only",
  DUPLICATE_KEY: (_, at) => `${at.key() ? `"${at.key()}"` : "this key"} appears twice in this map; keep one`,
  BAD_INDENT: (words) => {
    const flow = /^Flow (sequence|map) in block collection/.exec(words);
    if (flow)
      return flow[1] === "sequence"
        ? "a [ list is not closed with ] (or a line of it is not indented under its key)"
        : "a { map is not closed with } (or a line of it is not indented under its key)";
    if (/All mapping items must start at the same column/.test(words))
      return "the keys of one map must start in the same column; line this one up with the keys above it";
    if (/All sequence items must start at the same column/.test(words))
      return "the items of one list must start in the same column; line this - up with the ones above it";
    return undefined;
  },
  BLOCK_AS_IMPLICIT_KEY: (words, at) => {
    if (/A block sequence/.test(words))
      return "this - item is not lined up with the items above it, so YAML reads it as a key";
    const rest = at.restOfLine();
    if (rest.includes(": "))
      return `this value has ": " in it, so YAML reads it as a map inside a map; put the whole value in quotes: ${at.lineBefore()}${JSON.stringify(rest)}`;
    return 'this value goes on over the next line, which is indented further and has ": " in it, so YAML reads a map there; put the whole text in quotes (or write | and the text indented below), or line up the keys of one map';
  },
  MULTILINE_IMPLICIT_KEY: () =>
    'a key must fit on one line; a text that goes on over several lines and has ": " in it needs quotes (or | for a block of text)',
  MISSING_CHAR: (words) => {
    if (/^Implicit map keys need to be followed by map values/.test(words))
      return 'expected "key: value" on this line (a list item starts with "- ")';
    if (/^Missing , (or : )?between/.test(words))
      return "the items of a [ ] list or { } map are separated by commas";
    if (/^Comments must be separated/.test(words))
      return 'put a space before the # (a comment starts with " #")';
    return undefined;
  },
  BAD_SCALAR_START: (words) => {
    const char = /reserved character (.)/.exec(words)?.[1];
    return `a value cannot start with ${char ?? "this character"} unless it is quoted; put the value in quotes`;
  },
  BAD_DQ_ESCAPE: (words) => {
    const sequence = /Invalid escape sequence (.+)$/.exec(words)?.[1] ?? "this";
    return `${sequence} is not an escape in "double quotes"; write \\\\ for a backslash, or use 'single quotes'`;
  },
  BLOCK_IN_FLOW: () =>
    "a [ ] list or { } map holds indented lines (- items or key: value lines); write its items on one line, separated by commas, or leave out the brackets",
  MULTIPLE_DOCS: () => "this file holds more than one YAML document (a --- line); keep one",
};

/** The text around an error's position, for the rewrites that quote what was written. */
type Written = {
  /** The key at the position (up to its `:`), when there is one. */
  key(): string | undefined;
  /** The rest of the line from the position, trimmed. */
  restOfLine(): string;
  /** The line up to the position, without its indent (`goal: `). */
  lineBefore(): string;
};

/**
 * The parser's error in plain words, keeping its own words (in parentheses) where there is no
 * rewrite, and where to point: the parser's position, or for a quote never closed (which the
 * parser notices only at the end of the file) the quote that opened it.
 */
function describeYamlError(error: YAMLError, text: string): { offset: number; message: string } {
  const words = error.message.split("\n")[0] ?? error.message;
  const offset = error.pos[0];
  const quote = /^Missing closing (["'])quote/.exec(words)?.[1];
  if (error.code === "MISSING_CHAR" && quote !== undefined) {
    const opened = openingQuote(text, offset, quote);
    const where = opened === undefined ? "" : " that opens here";
    return {
      offset: opened ?? offset,
      message: `the quoted text${where} is never closed: add the closing ${quote}`,
    };
  }
  const lineStart = text.lastIndexOf("\n", offset - 1) + 1;
  const lineEnd = text.indexOf("\n", offset);
  const rest = text.slice(offset, lineEnd === -1 ? undefined : lineEnd);
  const at: Written = {
    key: () => /^\s*(.+?)\s*:(\s|$)/.exec(rest)?.[1],
    restOfLine: () => rest.replace(/\s+#.*$/, "").trim(),
    lineBefore: () => text.slice(lineStart, offset).trimStart(),
  };
  return { offset, message: PLAIN_WORDS[error.code]?.(words, at) ?? `this is not valid YAML (${words})` };
}

/**
 * The quote that opened a quoted text still open at `end`: the last one before it that is not
 * escaped (`\"` in double quotes, `''` in single quotes).
 */
function openingQuote(text: string, end: number, quote: string): number | undefined {
  for (let i = Math.min(end, text.length) - 1; i >= 0; i--) {
    if (text[i] !== quote) continue;
    if (quote === "'" && text[i - 1] === "'") {
      i--;
      continue;
    }
    if (quote === '"') {
      let backslashes = 0;
      while (text[i - 1 - backslashes] === "\\") backslashes++;
      if (backslashes % 2 === 1) continue;
    }
    return i;
  }
  return undefined;
}
