/**
 * Every regex a quest supplies is compiled and matched here, on RE2 (the `re2js` port): matching
 * takes time linear in the input, so no pattern (`^(a+)+$`) can hold Pi on a long string. The
 * loader compiles with the same engine, so a pattern this module cannot run is a load-time
 * diagnostic, never a surprise while checking.
 *
 * Why RE2 and not a bounded worker running JavaScript's engine: a worker only turns a hang into a
 * timeout (the check would be `pending`, the CPU still burnt up to the bound, on every event) and
 * costs a thread per match; RE2 answers every pattern it accepts, fast, in the same thread.
 *
 * What RE2 cannot do is refused with a sentence that says what to write instead: backreferences
 * and lookaround. JavaScript's `\uXXXX` and `\u{X}` are rewritten to RE2's `\x{X}`; any other
 * syntax RE2 lacks (`[^]`, `\cX`) is reported with RE2's own words.
 */
import { RE2JS } from "re2js";

/** A compiled quest regex: `test` answers for the whole value, from its start. */
export type QuestRegex = { readonly pattern: string; test(value: string): boolean };

export type RegexCompilation = { ok: true; regex: QuestRegex } | { ok: false; problem: string };

/**
 * The flags a quest may give. `i`, `m` and `s` change the match; `u` is accepted and changes
 * nothing (RE2 always matches code points and knows `\p{...}`); `g` and `d` change nothing for a
 * yes/no test; `y` (sticky) anchors the match at the start of the value, as a fresh sticky
 * RegExp does. `v` (Unicode sets) is refused: RE2 has no set operations.
 */
const FLAG_BITS: Readonly<Record<string, number>> = {
  i: RE2JS.CASE_INSENSITIVE,
  m: RE2JS.MULTILINE,
  s: RE2JS.DOTALL,
  u: 0,
  g: 0,
  d: 0,
  y: 0,
};
export const ACCEPTED_FLAGS = Object.keys(FLAG_BITS).join("");

const SEE_DOCS = "see docs/quest-format.md, Predicates";

/** Why these flags cannot be used, or undefined when they can. */
export function flagsProblem(flags: string): string | undefined {
  const seen = new Set<string>();
  for (const flag of flags) {
    if (flag === "v") {
      return "flag v (Unicode sets) is not supported: quest regexes run on RE2, which has no set operations; use u, or list the characters in a class";
    }
    if (!(flag in FLAG_BITS)) return `flags may use only ${ACCEPTED_FLAGS}; "${flag}" is not one of them`;
    if (seen.has(flag)) return `flag ${flag} is given twice`;
    seen.add(flag);
  }
  return undefined;
}

/** Compiles a quest regex, or says in a sentence why it cannot be run. Never throws. */
export function compileQuestRegex(pattern: string, flags = ""): RegexCompilation {
  const badFlags = flagsProblem(flags);
  if (badFlags) return { ok: false, problem: badFlags };
  const unsupported = unsupportedConstruct(pattern);
  if (unsupported) return { ok: false, problem: unsupported };
  const translated = translateEscapes(pattern);
  const source = flags.includes("y") ? `\\A(?:${translated})` : translated;
  let bits = 0;
  for (const flag of flags) bits |= FLAG_BITS[flag] ?? 0;
  try {
    const compiled = RE2JS.compile(source, bits);
    return { ok: true, regex: { pattern, test: (value) => compiled.test(value) } };
  } catch (error) {
    const message = (error instanceof Error ? error.message : String(error)).replace(
      /^error parsing regexp: /,
      "",
    );
    return { ok: false, problem: `${message} (quest regexes use RE2 syntax; ${SEE_DOCS})` };
  }
}

/** The sentence for a pattern that cannot be compiled, or undefined when it can. */
export function regexProblem(pattern: string, flags?: string): string | undefined {
  const compiled = compileQuestRegex(pattern, flags);
  return compiled.ok ? undefined : compiled.problem;
}

/**
 * Backreferences and lookaround, found by walking the pattern the way a regex parser does
 * (escapes and character classes skipped), so the learner hears what the construct is and what
 * to write instead, rather than RE2's "invalid escape sequence".
 */
function unsupportedConstruct(pattern: string): string | undefined {
  let inClass = false;
  for (let index = 0; index < pattern.length; index++) {
    const char = pattern[index];
    const at = `at character ${index + 1} of the pattern`;
    if (char === "\\") {
      const next = pattern[index + 1] ?? "";
      if (!inClass && /[1-9]/.test(next)) {
        return `backreference \\${next} ${at} is not supported: quest regexes run on RE2, in linear time, and cannot match repeated text; write the repeated text out (ab(ab) rather than (ab)\\1), or check each part with its own predicate (${SEE_DOCS})`;
      }
      if (!inClass && next === "k" && pattern[index + 2] === "<") {
        return `named backreference \\k<...> ${at} is not supported: quest regexes run on RE2, in linear time, and cannot match repeated text; write the repeated text out (${SEE_DOCS})`;
      }
      index++;
      continue;
    }
    if (inClass) {
      if (char === "]") inClass = false;
      continue;
    }
    if (char === "[") {
      inClass = true;
      // A `]` right after `[` or `[^` is a literal in RE2, not the end of the class.
      if (pattern[index + 1] === "^") index++;
      if (pattern[index + 1] === "]") index++;
      continue;
    }
    if (char === "(" && pattern[index + 1] === "?") {
      const kind = lookaround(pattern.slice(index + 2, index + 4));
      if (kind) {
        return `${kind} ${at} is not supported: quest regexes run on RE2, in linear time, which has no lookahead or lookbehind; match the text itself (foo(bar) rather than foo(?=bar)), or split the condition into two checks (${SEE_DOCS})`;
      }
    }
  }
  return undefined;
}

function lookaround(after: string): string | undefined {
  if (after.startsWith("=")) return "lookahead (?=...)";
  if (after.startsWith("!")) return "negative lookahead (?!...)";
  if (after === "<=") return "lookbehind (?<=...)";
  if (after === "<!") return "negative lookbehind (?<!...)";
  return undefined;
}

/** JavaScript's `\uXXXX` and `\u{X}` as RE2's `\x{X}`; every other byte as written. */
function translateEscapes(pattern: string): string {
  let out = "";
  for (let index = 0; index < pattern.length; index++) {
    const char = pattern[index];
    if (char !== "\\") {
      out += char;
      continue;
    }
    const rest = pattern.slice(index + 1);
    const braced = /^u\{([0-9A-Fa-f]{1,6})\}/.exec(rest);
    const plain = braced ? undefined : /^u([0-9A-Fa-f]{4})/.exec(rest);
    const unicode = braced ?? plain;
    if (unicode) {
      out += `\\x{${unicode[1]}}`;
      index += unicode[0].length;
      continue;
    }
    out += char + (pattern[index + 1] ?? "");
    index++;
  }
  return out;
}
