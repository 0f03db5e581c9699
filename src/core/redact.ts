/**
 * Secrets out of text a person or a record will see: a receipt's command, an MCP server's command
 * line. Moved here from src/receipts/identity.ts so probes and the engine can use it too (both
 * sit below receipts); identity.ts re-exports it.
 */

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

/**
 * A copy of `value` (JSON-like: a review's transcript) with every string redacted as a receipt's
 * command is: secrets in file contents, prompts and tool arguments become `***`.
 */
export function redactDeep(value: unknown): unknown {
  if (typeof value === "string") return redactCommand(value);
  if (Array.isArray(value)) return value.map(redactDeep);
  if (typeof value === "object" && value !== null) {
    return Object.fromEntries(Object.entries(value).map(([key, inner]) => [key, redactDeep(inner)]));
  }
  return value;
}
