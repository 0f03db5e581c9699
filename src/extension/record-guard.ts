/**
 * The guard in front of pi-quests' records: a tool call of the agent that reaches the data dir
 * (`{agent_dir}/quests`: receipts, events, progress, the seal key) is blocked before it runs.
 * File tools are judged by their path (resolved against the cwd, `~` expanded, the existing part
 * through realpath, so a symlink into the data dir is caught); bash by the names its command
 * text uses for the data dir. Bash text can always be obfuscated, so this is a first line only:
 * the seals (src/core/seal.ts) are what keep an altered record from counting. Pure: the caller
 * gives the file system's realpath.
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

export function guardToolCall(
  call: { toolName: string; input: unknown },
  context: GuardContext,
): GuardDecision {
  const dataDir = join(context.agentDir, "quests");
  const input = (call.input ?? {}) as Record<string, unknown>;
  if (call.toolName === "bash") {
    const command = typeof input.command === "string" ? input.command : "";
    const named = namedInCommand(command, dataDir, context);
    return named ? blocked(dataDir, `its command names ${named}`) : { block: false };
  }
  if (!FILE_TOOLS.has(call.toolName)) return { block: false };
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

/** The first name of the data dir the command uses, if any. */
function namedInCommand(command: string, dataDir: string, context: GuardContext): string | undefined {
  const forms = new Set<string>([dataDir, ...TELLTALE_NAMES]);
  for (const form of homeForms(dataDir, context.home)) forms.add(form);
  for (const form of forms) if (command.includes(form)) return form;
  // The agent dir by any of its names, and `quests` beside it (`cd ~/.pi/agent && cat quests/...`).
  const agentForms = [context.agentDir, ...homeForms(context.agentDir, context.home), ...AGENT_DIR_VARIABLES];
  if (/\bquests\b/.test(command)) for (const form of agentForms) if (command.includes(form)) return form;
  return undefined;
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
