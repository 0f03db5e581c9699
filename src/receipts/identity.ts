/**
 * Check identity and command redaction (seed 001).
 *
 * A receipt names the check it judged by a stable identity: a hash of what the check *does*
 * (command, folder, limits, predicates, isolation), never of its id or description. It is taken
 * from the unredacted command, so two commands that differ only in a hidden argument (a token)
 * never share an identity and never supersede one another. The command a receipt stores, on the
 * other hand, is redacted: secrets become `***` and everything else stays byte for byte.
 */
import { createHash } from "node:crypto";
import { posix } from "node:path";
import type { CommandCheck } from "../core/checks.ts";

// --- identity ------------------------------------------------------------------------------

/** Bumped when the definition below changes meaning, so old identities can never collide. */
const IDENTITY_VERSION = "pi-quests.check-identity/1";

/** A workspace-relative posix path: `./a/b/`, `a//b` and `a\b` are all `a/b`; the root is ".". */
export function normalizeRelativePath(path: string): string {
  const normalized = posix.normalize(path.replaceAll("\\", "/"));
  const trimmed = normalized.length > 1 ? normalized.replace(/\/+$/, "") : normalized;
  return trimmed === "" ? "." : trimmed;
}

/** A bare value means equality: `0` and `{equals: 0}` are the same predicate. */
function normalizePredicate(predicate: unknown): unknown {
  if (predicate === undefined) return null;
  return typeof predicate === "object" && predicate !== null ? predicate : { equals: predicate };
}

/** JSON with object keys sorted at every level, so key order never changes the hash. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(",")}]`;
  if (typeof value === "object" && value !== null) {
    const entries = Object.entries(value)
      .filter(([, item]) => item !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([key, item]) => `${JSON.stringify(key)}:${canonicalJson(item)}`).join(",")}}`;
  }
  return JSON.stringify(value);
}

/**
 * The stable identity of a command check run in `cwd` (workspace-relative; "." for the root):
 * sha256 hex of the canonical JSON of its normalized definition. `check.cwd` itself is left
 * out because `cwd` is where it resolved to: `{workspace}/x` and `x` are the same folder.
 */
export function checkIdentity(check: CommandCheck, cwd: string): string {
  const definition = {
    identity: IDENTITY_VERSION,
    type: check.type,
    run: check.run,
    cwd: normalizeRelativePath(cwd),
    timeout_ms: check.timeout_ms,
    exit_code: normalizePredicate(check.exit_code),
    stdout: normalizePredicate(check.stdout),
    stderr: normalizePredicate(check.stderr),
    oracle_paths: [...new Set(check.oracle_paths.map(normalizeRelativePath))].sort(),
    isolation: check.isolation,
    // A different scope judges different work; absent, the identity is as it was before version 2.
    ...(check.editable ? { editable: [...new Set(check.editable)].sort() } : {}),
  };
  return createHash("sha256").update(canonicalJson(definition)).digest("hex");
}

// --- redaction -----------------------------------------------------------------------------

const MASK = "***";

/** `$TOKEN`, `${TOKEN}`, `"$TOKEN"`, `$(cat file)`: a reference to a secret, not the secret. */
function isReference(value: string): boolean {
  return /^["']?\$/.test(value);
}

/** Masks a value, keeping the quotes around it so the command keeps its shape. */
function mask(value: string): string {
  if (isReference(value)) return value;
  const quote = value[0];
  if ((quote === '"' || quote === "'") && value.length >= 2 && value.endsWith(quote)) {
    return `${quote}${MASK}${quote}`;
  }
  return MASK;
}

/**
 * A value after `=` or a flag: a whole quoted string closed before a word boundary, or a run of
 * characters that are neither blanks, quotes nor shell operators.
 */
const VALUE = String.raw`(?:"(?:[^"\\]|\\.)*"(?=$|[\s;&|)])|'[^']*'(?=$|[\s;&|)])|[^\s"'\x60;&|<>()]+)`;

/** Splits `GITHUB_TOKEN`, `_authToken`, `x-api-key` or `db.password` into lowercase words. */
function words(name: string): string[] {
  return name
    .replace(/([a-z0-9])([A-Z])/g, "$1 $2")
    .split(/[\s_.-]+/)
    .filter((word) => word !== "")
    .map((word) => word.toLowerCase());
}

const SECRET_WORDS = new Set([
  "token",
  "tokens",
  "secret",
  "secrets",
  "password",
  "passwords",
  "passwd",
  "pass",
  "pwd",
  "auth",
  "credential",
  "credentials",
]);

/**
 * Whether a variable name holds a secret: a secret word as one of its words (`GITHUB_TOKEN`,
 * `AWS_SECRET_ACCESS_KEY`, `_authToken`), `apikey`/`privatekey` anywhere (`OPENAI_API_KEY`), or
 * a name glued onto a secret word (`PGPASSWORD`). Words merely containing one do not count:
 * `GIT_AUTHOR_NAME`, `TOKENIZERS_PARALLELISM`. `PWD` and `OLDPWD` are the shell's folders.
 */
export function isSecretName(name: string): boolean {
  if (/^(OLD)?PWD$/i.test(name)) return false;
  const parts = words(name);
  if (parts.some((word) => SECRET_WORDS.has(word))) return true;
  const glued = parts.join("");
  return /apikey|privatekey/.test(glued) || /(token|secret|password|passwd|pwd|credentials?)$/.test(glued);
}

/** Rewrites each match of `pattern`; `replace` returns the whole new text of the match. */
type Rule = { pattern: RegExp; replace: (...groups: string[]) => string };

const RULES: Rule[] = [
  // Credentials in a URL. With a colon (`user:pass@`, `token:x-oauth-basic@`) either half may be
  // the secret, so both go; a lone name is a token only for web URLs (`ssh://git@host` is fine).
  {
    pattern: /(?<![a-z0-9+.-])([a-z][a-z0-9+.-]{0,30}:\/\/)([^\s/?#@"'\x60]+)@/gi,
    replace: (match, scheme = "", userinfo = "") =>
      userinfo.includes(":") || /^(https?|ftps?):\/\/$/i.test(scheme) ? `${scheme}${MASK}@` : match,
  },
  // Headers: `Authorization: Bearer x`, `Proxy-Authorization: Basic x`, `Cookie: x`, and
  // hyphenated names with a secret word (`X-Api-Key: x`, `Private-Token: x`). The scheme stays.
  {
    pattern:
      /(?<![\w-])((?:proxy-)?authorization|cookie|[a-z0-9]+(?:-[a-z0-9]+)+)(:[ \t]*)((?:bearer|basic|token|digest|negotiate|ntlm)[ \t]+)?([^\s"'\x60]+)/gi,
    replace: (match, name = "", colon = "", scheme = "", value = "") => {
      const parts = words(name);
      // A hyphenated name needs the blank after its colon (or an `X-` prefix) to be a header:
      // `git push origin fix-token:main` is a refspec.
      const named = parts.some((word) => SECRET_WORDS.has(word)) || /apikey/.test(parts.join(""));
      const secretHeader =
        /^((proxy-)?authorization|cookie)$/i.test(name) || (named && (colon.length > 1 || /^x-/i.test(name)));
      return secretHeader && !isReference(value) ? `${name}${colon}${scheme}${MASK}` : match;
    },
  },
  // A bearer token on its own (RFC 6750's token characters: quotes and `$VAR` end it). Capital B
  // only: "the bearer of" is English.
  {
    pattern: /\b(Bearer[ \t]+)([A-Za-z0-9._~+/-]+=*)/g,
    replace: (_match, bearer = "") => `${bearer}${MASK}`,
  },
  // curl's `-u user:password` (elsewhere `-u 1000:1000` is a user and group, so curl only).
  {
    pattern: new RegExp(String.raw`(\bcurl\b[^;&|\n]{0,500}?[ \t](?:-u|--user)(?:=|[ \t]*))(${VALUE})`, "g"),
    replace: (match, before = "", value = "") => (value.includes(":") ? `${before}${mask(value)}` : match),
  },
  // Long flags naming a secret: `--password=x`, `--token x`, `--github-token x`, `--api-key=x`.
  // The name must end at the secret word (`--token-file`, `--password-stdin` are not secrets), a
  // spaced value must not be the next flag, and `--no-auth` is a switch.
  {
    pattern: new RegExp(
      String.raw`(--(?!no-)(?:[a-z0-9]+[-_])*(?:password|passwd|token|secret|api[-_]?key|auth|credentials?|private[-_]key))(=|[ \t]+)(?!-)(${VALUE})`,
      "gi",
    ),
    replace: (_match, flag = "", separator = "", value = "") => `${flag}${separator}${mask(value)}`,
  },
  // Assignments to a secret name, at the start of a shell word, in a quote, in a URL query or a
  // Java property: `GITHUB_TOKEN=x cmd`, `export NPM_TOKEN=x`, `"API_KEY=x"`, `?access_token=x`,
  // `:_authToken=x`, `-Ddb.password=x`.
  {
    pattern: new RegExp(String.raw`(?<=^|[\s;&|(\x60"'?:=]|-D)([A-Za-z_][A-Za-z0-9_.]*)=(${VALUE})`, "g"),
    replace: (match, name = "", value = "") => (isSecretName(name) ? `${name}=${mask(value)}` : match),
  },
  // Well-known token shapes, wherever they appear. Each starts only where a token can start, so
  // a long run of look-alikes (`sk-sk-sk-...`) is read once, not once per position.
  { pattern: /\b(?:gh[pousr]_[A-Za-z0-9]{36,}|github_pat_[A-Za-z0-9_]{22,})\b/g, replace: () => MASK },
  // OpenAI-style `sk-...` keys have digits; a long package name like `sk-some-tool-name` does not.
  {
    pattern: /(?<![A-Za-z0-9_-])sk-[A-Za-z0-9_-]{20,}/g,
    replace: (match) => (/[0-9]/.test(match) ? MASK : match),
  },
  { pattern: /(?<![A-Za-z0-9_-])xox[baprs]-[A-Za-z0-9-]{10,}/g, replace: () => MASK },
  { pattern: /\b(?:AKIA|ASIA)[0-9A-Z]{16}\b/g, replace: () => MASK },
  { pattern: /\bnpm_[A-Za-z0-9]{36,}\b/g, replace: () => MASK },
  { pattern: /(?<![A-Za-z0-9_-])glpat-[A-Za-z0-9_-]{20,}/g, replace: () => MASK },
  { pattern: /\bAIza[0-9A-Za-z_-]{35}\b/g, replace: () => MASK },
];

/**
 * The command as a receipt may keep it: secrets replaced by `***`, every other byte as it was.
 * A heuristic, tuned to leave ordinary commands alone (`-p 8080` is a port, not a password);
 * redacting twice gives the same text.
 */
export function redactCommand(text: string): string {
  let redacted = text;
  for (const rule of RULES) {
    redacted = redacted.replace(rule.pattern, (...args: unknown[]) => {
      // replace() passes the match, the groups, then offset and input; keep the strings before offset.
      const end = args.findIndex((arg) => typeof arg === "number");
      const strings = args.slice(0, end).map((arg) => (typeof arg === "string" ? arg : ""));
      return rule.replace(...strings);
    });
  }
  return redacted;
}
