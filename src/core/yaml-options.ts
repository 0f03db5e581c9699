/**
 * How pi-quests reads a YAML file into data: the yaml library's parse options and the bound on
 * alias expansion. The parser (yaml-document.ts) uses them, and the parse cache of the shipped
 * pack (yaml-value-cache.ts) is stamped with them: a cache made with other options is not used.
 * A module of its own so that the cache can compare them without loading the yaml library.
 */

/**
 * How many times one anchor may be expanded through aliases before the document is refused (the
 * yaml library's own bound): a "billion laughs" document nests aliases so that a few lines would
 * expand to gigabytes.
 */
export const MAX_ALIAS_EXPANSIONS = 100;

/** `parseDocument`'s options (besides the line counter, which only records where lines start). */
export const YAML_PARSE_OPTIONS = { prettyErrors: false, uniqueKeys: true } as const;

/** `toJS`'s options: the document as plain data. */
export const YAML_VALUE_OPTIONS = { maxAliasCount: MAX_ALIAS_EXPANSIONS } as const;
