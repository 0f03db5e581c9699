/**
 * The guard in front of pi-quests' records: a tool call of the agent that reaches the data dir
 * (`{agent_dir}/quests`: receipts, events, progress, the seal key) is blocked before it runs.
 * File tools are judged by their path (resolved against the cwd, `~` expanded, the existing part
 * through realpath, so a symlink into the data dir is caught); bash by the names its command
 * text uses for the data dir, quoted or not, and by the shell globs in it that could match them
 * (`find ~ -name 'seal.k*'`, `cat ~/.pi/agent/q*\/s*`); `write` and `edit` also by the names
 * their new text uses (a script written to run later). Bash text can always be obfuscated, so
 * this is a first line only: where it runs, the bash sandbox (src/probes/os/bash-sandbox.ts)
 * hides the records from the command itself, and the seals (src/core/seal.ts) are what keep an
 * altered record from counting. Pure: the caller gives the file system's realpath.
 */
import { dirname, isAbsolute, join, relative, resolve } from "node:path";
import { isInside } from "../core/paths.ts";

export type GuardContext = {
  cwd: string;
  home: string;
  /** Pi's agent dir; the data dir is its `quests` folder. */
  agentDir: string;
  /** The real path of an existing path; throws when there is none (node:fs realpathSync). */
  realpath(path: string): string;
};

export type GuardDecision = { block: false } | { block: true; reason: string };

const FILE_TOOLS = new Set(["read", "write", "edit", "grep", "find", "ls"]);
/** Tools that read the contents of everything under their path: reaching the data dir from above counts. */
const RECURSIVE_READERS = new Set(["grep"]);

/** Names for the data dir (or its contents) that need no path: a command that uses one is blocked. */
const TELLTALE_NAMES = [".pi/agent/quests", "quests/workspaces", "seal.key"];

/**
 * Names of the agent dir that need no path. The agent dir itself is the learner's (a quest asks
 * for `$PI_CODING_AGENT_DIR/keybindings.json`): only with `quests` in the same command do they
 * reach the data dir.
 */
const AGENT_DIR_VARIABLES = ["$PI_CODING_AGENT_DIR", `\${PI_CODING_AGENT_DIR}`];

/**
 * The names of the data dir and of the records in it, which a shell glob may be written to match
 * (`seal.k*`, `q*`). An unquoted word that matches one is caught only when it is pinned to it:
 * see `namedByGlob`.
 */
const RECORD_NAMES = ["quests", "seal.key", "workspaces", "receipts", "events.jsonl", "progress.json"];

export function guardToolCall(
  call: { toolName: string; input: unknown },
  context: GuardContext,
): GuardDecision {
  const dataDir = join(context.agentDir, "quests");
  const input = (call.input ?? {}) as Record<string, unknown>;
  if (call.toolName === "bash") {
    const command = typeof input.command === "string" ? input.command : "";
    const named = namedInText(command, dataDir, context);
    return named ? blocked(dataDir, `its command names ${named}`) : { block: false };
  }
  if (!FILE_TOOLS.has(call.toolName)) return { block: false };
  // What write and edit put in a file can be run later (a script, a test): it is read like bash.
  for (const text of newTextOf(call.toolName, input)) {
    const named = namedInText(text, dataDir, context);
    if (named) return blocked(dataDir, `the text it writes names ${named}`);
  }
  const given = typeof input.path === "string" && input.path !== "" ? input.path : ".";
  const target = realOf(expandHome(given.replace(/^@/, ""), context.home), context);
  const realDataDir = realOf(dataDir, context);
  if (isInside(target, realDataDir)) return blocked(dataDir, `its path ${given} is inside it`);
  if (RECURSIVE_READERS.has(call.toolName) && isInside(realDataDir, target))
    return blocked(dataDir, `it would search ${given}, which holds it`);
  return { block: false };
}

function blocked(dataDir: string, why: string): GuardDecision {
  return {
    block: true,
    reason: `pi-quests blocked this call: ${why}. ${dataDir} holds pi-quests' own records (receipts, recorded events, progress, its key), which are off-limits to the agent; the learner's quests are checked from them. Work in the workspace instead.`,
  };
}

/** The new text a `write` or `edit` call puts in its file. */
function newTextOf(toolName: string, input: Record<string, unknown>): string[] {
  if (toolName === "write") return typeof input.content === "string" ? [input.content] : [];
  if (toolName !== "edit") return [];
  const edits = Array.isArray(input.edits) ? (input.edits as Array<Record<string, unknown>>) : [];
  return [...edits.map((edit) => edit?.newText), input.newText].filter(
    (text): text is string => typeof text === "string",
  );
}

/**
 * The first name of the data dir the text uses, if any: as written, with its quotes and
 * backslashes taken out (`que""sts`, `seal\.key`), or as a glob that matches it.
 */
function namedInText(text: string, dataDir: string, context: GuardContext): string | undefined {
  const unquoted = text.replace(/["'\\]/g, "");
  return (
    namedLiterally(text, dataDir, context) ??
    namedLiterally(unquoted, dataDir, context) ??
    namedByGlob(unquoted, dataDir, context)
  );
}

/** The first name of the data dir the text uses literally, if any. */
function namedLiterally(command: string, dataDir: string, context: GuardContext): string | undefined {
  const forms = new Set<string>([dataDir, ...TELLTALE_NAMES]);
  for (const form of homeForms(dataDir, context.home)) forms.add(form);
  for (const form of forms) if (command.includes(form)) return form;
  // The agent dir by any of its names, and `quests` beside it (`cd ~/.pi/agent && cat quests/...`).
  const agentForms = [context.agentDir, ...homeForms(context.agentDir, context.home), ...AGENT_DIR_VARIABLES];
  // Not in `pi-quests` (the package name a learner greps settings.json for).
  if (/(?<![\w-])quests\b/.test(command))
    for (const form of agentForms) if (command.includes(form)) return form;
  return undefined;
}

/**
 * The first word of the text that is a shell glob pinned to the data dir, if any. A glob is
 * pinned when it cannot be an ordinary command's: a path from `/`, `~`, `$HOME` or the agent
 * dir's variable that matches the data dir or reaches inside it (`~/.pi/agent/q*`,
 * `$PI_CODING_AGENT_DIR/*\/seal.key`); a relative path whose first names, each beginning with a
 * letter of its own, match the data dir's last names (`q*\/s*`, `agent/quests/*`; not
 * `quests/*.yaml`, a project's own folder); or one name that begins with at
 * least two letters of a record's name and matches it (`seal.k*`, `pro*.json`). So `ls *`,
 * `cat *.json` and `rm -f s*` go through.
 */
function namedByGlob(text: string, dataDir: string, context: GuardContext): string | undefined {
  const dataNames = namesOf(dataDir);
  const expanded = text
    .replaceAll(`\${PI_CODING_AGENT_DIR}`, context.agentDir)
    .replaceAll("$PI_CODING_AGENT_DIR", context.agentDir)
    .replaceAll(`\${HOME}`, context.home)
    .replaceAll("$HOME", context.home);
  for (const word of expanded.split(/[\s;|&()<>`=]+/)) {
    if (!/[*?[]/.test(word)) continue;
    const path = word === "~" || word.startsWith("~/") ? context.home + word.slice(1) : word;
    const names = namesOf(path);
    if (names.length === 0) continue;
    if (path.startsWith("/")) {
      if (names.length < dataNames.length) continue;
      const upToData = names.slice(0, dataNames.length);
      if (!upToData.every((name, index) => globMatches(name, dataNames[index] as string))) continue;
      // Inside the data dir, or the data dir itself by a glob that begins as its name does.
      if (names.length > dataNames.length || leadingLetters(upToData.at(-1) as string) > 0) return word;
      continue;
    }
    if (names.length === 1) {
      const [name] = names as [string];
      if (leadingLetters(name) >= 2 && RECORD_NAMES.some((record) => globMatches(name, record))) return word;
      continue;
    }
    // Relative: its first names are the data dir's last ones, each pinned, and more than a
    // project's own `quests/` folder (`quests/*.yaml` is the learner's): two names, or a glob.
    for (let count = 1; count <= Math.min(names.length, dataNames.length); count++) {
      const head = names.slice(0, count);
      const tail = dataNames.slice(dataNames.length - count);
      const pinned = head.every(
        (name, index) => leadingLetters(name) > 0 && globMatches(name, tail[index] as string),
      );
      if (pinned && (count > 1 || leadingLetters(head[0] as string) < (head[0] as string).length))
        return word;
    }
  }
  return undefined;
}

function namesOf(path: string): string[] {
  return path.split("/").filter((name) => name !== "" && name !== ".");
}

/** How many characters a glob name begins with before its first wildcard. */
function leadingLetters(name: string): number {
  const first = name.search(/[*?[]/);
  return first < 0 ? name.length : first;
}

/** Whether the shell glob `pattern` (`*`, `?`, `[...]`) matches the whole of `name`. */
function globMatches(pattern: string, name: string): boolean {
  let source = "";
  for (let index = 0; index < pattern.length; index++) {
    const char = pattern[index] as string;
    if (char === "*") source += ".*";
    else if (char === "?") source += ".";
    else if (char === "[") {
      const close = pattern.indexOf("]", index + 2);
      if (close < 0) {
        source += "\\[";
        continue;
      }
      const body = pattern
        .slice(index + 1, close)
        .replace(/^[!^]/, "^")
        .replace(/[\\\]]/g, "\\$&");
      source += `[${body}]`;
      index = close;
    } else source += char.replace(/[.+^${}()|[\]\\]/g, "\\$&");
  }
  try {
    return new RegExp(`^${source}$`, "s").test(name);
  } catch {
    return false;
  }
}

function homeForms(path: string, home: string): string[] {
  const fromHome = relative(home, path);
  if (fromHome === "" || fromHome.startsWith("..") || isAbsolute(fromHome)) return [];
  return ["~", "$HOME", `\${HOME}`].map((form) => `${form}/${fromHome}`);
}

function expandHome(path: string, home: string): string {
  if (path === "~") return home;
  return path.startsWith("~/") ? join(home, path.slice(2)) : path;
}

/** The real path of `path`: the longest existing part through realpath, the rest as written. */
function realOf(path: string, context: GuardContext): string {
  let existing = resolve(context.cwd, path);
  const rest: string[] = [];
  for (;;) {
    try {
      return join(context.realpath(existing), ...rest.reverse());
    } catch {
      const parent = dirname(existing);
      if (parent === existing) return resolve(context.cwd, path);
      rest.push(existing.slice(parent.length).replace(/^[/\\]/, ""));
      existing = parent;
    }
  }
}
