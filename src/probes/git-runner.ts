/**
 * The one way pi-quests runs git. The learner's agent can write the repository's `.git` (config,
 * hooks, info/, refs, the index) and the environment of the shell pi-quests was started from;
 * nothing it writes there may run a program of its choosing, point git at other files, or change
 * what git reads. Every protective setting lives here, with the reason it is needed. Arguments
 * are arrays (never a shell) and output is raw bytes, since patches may hold any encoding.
 */
import { statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { runProgram } from "./run-program.ts";

export type GitCall = {
  cwd: string;
  input?: Buffer | string;
  /** Added after the protective environment: only for pi-quests' own values (GIT_INDEX_FILE...). */
  env?: Record<string, string>;
  okExitCodes?: readonly number[];
  timeoutMs?: number;
  /**
   * For a `config` read only: the user's global and system files count (is there a user.email?).
   * Reading a value runs no program; every other command ignores those files.
   */
  userConfig?: boolean;
  /** Driver settings already read for this operation (see pinDrivers), instead of reading them again. */
  pinnedDrivers?: readonly string[];
};

export type GitFailureKind = "no_folder" | "no_git" | "timeout" | "git";

export type GitResult =
  | { ok: true; stdout: Buffer; exitCode: number }
  | { ok: false; kind: GitFailureKind; message: string; stderr: string };

export type GitRunner = (args: readonly string[], call: GitCall) => Promise<GitResult>;

export type GitRunnerOptions = {
  gitBinary?: string;
  /** The environment to start from (default: this process's); GIT_* and program variables are dropped. */
  env?: Record<string, string | undefined>;
  timeoutMs?: number;
};

const DEFAULT_TIMEOUT_MS = 120_000;

/** What one git call may write (a patch of a large change is big, but not this big). */
const MAX_OUTPUT_BYTES = 512 * 1024 * 1024;

/** The variables that say where the user's and the system's config files are. */
const USER_CONFIG_VARIABLES = ["GIT_CONFIG_GLOBAL", "GIT_CONFIG_SYSTEM", "GIT_CONFIG_NOSYSTEM"];

/**
 * Variables of the learner's shell that are dropped besides every GIT_* one (GIT_DIR,
 * GIT_WORK_TREE, GIT_INDEX_FILE, GIT_OBJECT_DIRECTORY, GIT_COMMON_DIR, GIT_CONFIG_*,
 * GIT_EXTERNAL_DIFF, GIT_PAGER, GIT_SSH_COMMAND, GIT_ASKPASS...): each names a program git may run.
 */
const PROGRAM_VARIABLES = new Set(["EDITOR", "VISUAL", "PAGER", "SSH_ASKPASS", "PREFIX"]);

/**
 * Settings given with `-c`, which wins over every configuration file, included ones too
 * (`include.path`, `includeIf`): the repository's config cannot take any of them back.
 */
const PROTECTIVE_SETTINGS = [
  // Hooks (post-checkout during `worktree add`, pre-commit...) are the learner's programs.
  "core.hooksPath=/dev/null",
  // A file-system monitor is a program that answers "nothing changed": it may lie, and it runs.
  "core.fsmonitor=false",
  // The stat cache must be git's strict one: a weakened check hides same-size, same-mtime edits.
  "core.checkStat=default",
  "core.trustctime=true",
  "core.ignoreStat=false",
  // A cached list of untracked folders is index data pi-quests did not compute.
  "core.untrackedCache=false",
  // The shared part of a split index would be a second file the learner controls.
  "core.splitIndex=false",
  // A commit-graph file is a cache of parents: a crafted one would change commit counts.
  "core.commitGraph=false",
  // Sparse checkout marks entries skip-worktree, so git would stop looking at them on disk.
  "core.sparseCheckout=false",
  "core.sparseCheckoutCone=false",
  "index.sparse=false",
  // Bytes are compared as they are: no line-ending conversion, and no refusal over it.
  "core.autocrlf=false",
  "core.eol=lf",
  "core.safecrlf=false",
  // The executable bit and symbolic links count, as on the file system.
  "core.fileMode=true",
  "core.symlinks=true",
  // Paths come out as they are, and patches keep their a/ b/ prefixes and repository-wide paths.
  "core.quotePath=false",
  "diff.noprefix=false",
  "diff.mnemonicPrefix=false",
  "diff.relative=false",
  "color.ui=false",
  // Programs git might start for output, editing, network, passwords or signatures.
  "core.pager=cat",
  "core.editor=:",
  "sequence.editor=:",
  "core.askPass=",
  "core.sshCommand=false",
  "protocol.allow=never",
  "credential.helper=",
  "gpg.program=false",
  "commit.gpgSign=false",
  "tag.gpgSign=false",
  "log.showSignature=false",
  // GIT_GRAFT_FILE names an empty file; git would still advise about it on every call.
  "advice.graftFileDeprecated=false",
  // No background maintenance started by a command pi-quests runs.
  "gc.auto=0",
  "maintenance.auto=false",
  // The user's global excludes and attributes files are not the repository's committed rules.
  "core.excludesFile=/dev/null",
  "core.attributesFile=/dev/null",
].flatMap((setting) => ["-c", setting]);

/** An empty file for GIT_GRAFT_FILE and --shallow-file: `.git/info/grafts` and `.git/shallow` rewrite history. */
const EMPTY_FILE = join(tmpdir(), `pi-quests-empty-${process.getuid?.() ?? "user"}`);
let emptyFileReady = false;

function ensureEmptyFile(): void {
  // Rewritten to empty once a process: whoever wrote there before, it holds nothing now. At
  // once, not on a later turn of the event loop: git starts as soon as it is asked for (a
  // check asks for HEAD before it reads the quest, so that git runs meanwhile).
  if (emptyFileReady) return;
  writeFileSync(EMPTY_FILE, "", { mode: 0o600 });
  emptyFileReady = true;
}

/** Commands that never convert working-tree content, so no filter or diff driver can run. */
const DRIVER_FREE = new Set([
  "rev-parse",
  "rev-list",
  "ls-tree",
  "for-each-ref",
  "config",
  "worktree-list",
  "init",
  "ls-files",
  "check-attr",
  "count-objects",
]);

/** `cat-file` converts content only when asked to. */
const isDriverFree = (command: string, args: readonly string[]) =>
  DRIVER_FREE.has(command) ||
  (command === "cat-file" && !args.some((arg) => /^--(filters|textconv)/.test(arg)));

export function createGitRunner(options: GitRunnerOptions = {}): GitRunner {
  const binary = options.gitBinary ?? "git";
  const baseEnv: Record<string, string> = {};
  const startEnv = options.env ?? process.env;
  for (const [key, value] of Object.entries(startEnv)) {
    if (value === undefined || /^GIT_/i.test(key) || PROGRAM_VARIABLES.has(key.toUpperCase())) continue;
    baseEnv[key] = value;
  }
  const protectiveEnv: Record<string, string> = {
    ...baseEnv,
    // Neither /etc/gitconfig nor ~/.gitconfig (nor its XDG twin): only the repository's own, overridden.
    GIT_CONFIG_NOSYSTEM: "1",
    GIT_CONFIG_GLOBAL: "/dev/null",
    GIT_ATTR_NOSYSTEM: "1",
    // `git replace` refs and grafts make an object id read as other content or other parents.
    GIT_NO_REPLACE_OBJECTS: "1",
    GIT_GRAFT_FILE: EMPTY_FILE,
    // Reading must not refresh the learner's index on disk.
    GIT_OPTIONAL_LOCKS: "0",
    GIT_TERMINAL_PROMPT: "0",
    GIT_PAGER: "cat",
    GIT_EDITOR: ":",
    GIT_ADVICE: "0",
    // English messages, which callers recognize.
    LC_ALL: "C",
  };
  const timeoutDefault = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;

  const spawn = (args: readonly string[], call: GitCall, env: Record<string, string>) =>
    runProgram(binary, args, {
      cwd: call.cwd,
      env,
      ...(call.input === undefined ? {} : { input: call.input }),
      maxOutputBytes: MAX_OUTPUT_BYTES,
      timeoutMs: Math.max(1, Math.ceil(call.timeoutMs ?? timeoutDefault)),
    });

  return async (args, call) => {
    const okExitCodes = call.okExitCodes ?? [0];
    if (!isFolder(call.cwd)) {
      return { ok: false, kind: "no_folder", message: `The folder ${call.cwd} does not exist.`, stderr: "" };
    }
    ensureEmptyFile();
    const command = subcommand(args);
    const env: Record<string, string> = { ...protectiveEnv, ...call.env };
    if (call.userConfig === true && command === "config") {
      // Where the user's files are, as the given environment says.
      for (const name of USER_CONFIG_VARIABLES) {
        const value = startEnv[name];
        if (value === undefined) delete env[name];
        else env[name] = value;
      }
    }
    // core.worktree and core.bare are read from the repository's config file only (`-c` cannot
    // override them), so the repository is named explicitly: the `.git` found above the folder,
    // and the folder that holds it as the work tree. `git init` creates one and discovers nothing.
    const location = command === "init" ? undefined : findRepository(call.cwd);
    if (location) {
      env.GIT_DIR = location.gitDir;
      env.GIT_WORK_TREE = location.workTree;
    }
    const drivers = isDriverFree(command, args)
      ? []
      : (call.pinnedDrivers ?? (await neutralDriverSettings(spawn, call.cwd, env)));
    const full = [
      "--shallow-file",
      EMPTY_FILE,
      ...PROTECTIVE_SETTINGS,
      ...drivers,
      ...withDiffGuards(args, command),
    ];
    const result = await spawn(full, call, env);
    if (result.exitCode !== undefined && okExitCodes.includes(result.exitCode)) {
      return { ok: true, stdout: result.stdout, exitCode: result.exitCode };
    }
    const stderr = result.stderr.toString("utf8").trim();
    const named = `git ${args
      .filter((arg) => !arg.includes("="))
      .slice(0, 2)
      .join(" ")}`;
    if (result.timedOut) {
      return { ok: false, kind: "timeout", message: `${named} did not answer in time.`, stderr };
    }
    if (result.exitCode === undefined) {
      const why = result.failure ?? "it could not be started";
      return { ok: false, kind: "no_git", message: `git could not be started (${binary}): ${why}`, stderr };
    }
    const why = stderr || `exit code ${result.exitCode}`;
    return {
      ok: false,
      kind: "git",
      message: `${named} failed: ${why.split("\n").slice(-3).join(" ")}`,
      stderr,
    };
  };
}

/** Splits NUL-separated git output (`-z`) into paths. */
export function splitNul(output: Buffer): string[] {
  return output.toString("utf8").split("\0").filter(Boolean);
}

/** The git command in `args`, past any leading `-c name=value` pairs. */
function subcommand(args: readonly string[]): string {
  let at = 0;
  while (args[at] === "-c") at += 2;
  const name = args[at] ?? "";
  return name === "worktree" && args[at + 1] === "list" ? "worktree-list" : name;
}

/** `diff` never runs the repository's external diff program or textconv, whatever the caller passed. */
function withDiffGuards(args: readonly string[], command: string): readonly string[] {
  if (command !== "diff") return args;
  const at = args.indexOf("diff");
  return [...args.slice(0, at + 1), "--no-ext-diff", "--no-textconv", ...args.slice(at + 1)];
}

function isFolder(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}

/**
 * The repository git would discover from `cwd`: the nearest `.git` folder (holding HEAD) or
 * `.git` file (a linked worktree's `gitdir:` pointer), and the folder it is in.
 */
export function findRepository(cwd: string): { gitDir: string; workTree: string } | undefined {
  let folder = cwd;
  for (;;) {
    const candidate = join(folder, ".git");
    try {
      const found = statSync(candidate);
      if (found.isFile() || (found.isDirectory() && statSync(join(candidate, "HEAD")).isFile())) {
        return { gitDir: candidate, workTree: folder };
      }
    } catch {
      // Not here: look one folder up.
    }
    const parent = dirname(folder);
    if (parent === folder) return undefined;
    folder = parent;
  }
}

type Spawn = (
  args: readonly string[],
  call: GitCall,
  env: Record<string, string>,
) => Promise<{ exitCode: number | undefined; stdout: Buffer }>;

/**
 * `-c` settings that turn every filter and diff driver the repository's configuration names
 * (includes followed) into a no-op. Read before each call: the agent may add one at any time.
 * A smudge, clean or process filter, or a textconv, is a command git would run on checkout,
 * apply, status or diff.
 */
async function neutralDriverSettings(
  spawn: Spawn,
  cwd: string,
  env: Record<string, string>,
): Promise<string[]> {
  const listed = await spawn(
    ["config", "--includes", "--null", "--get-regexp", "^(filter|diff|merge)\\."],
    { cwd, okExitCodes: [0, 1], timeoutMs: 30_000 },
    env,
  );
  if (listed.exitCode !== 0) return [];
  return driverSettings(listed.stdout);
}

/** The `-c` settings for a `config --null --get-regexp` listing of filter, diff and merge keys. */
function driverSettings(listing: Buffer): string[] {
  const settings: string[] = [];
  const seen = new Set<string>();
  for (const entry of listing.toString("utf8").split("\0")) {
    const key = entry.split("\n")[0] ?? "";
    const match = /^(filter|diff|merge)\.(.+)\.[^.]+$/.exec(key);
    if (!match || seen.has(`${match[1]}.${match[2]}`)) continue;
    const [, kind, name] = match;
    seen.add(`${kind}.${name}`);
    if (kind === "filter") {
      settings.push(
        ...["-c", `filter.${name}.smudge=cat`, "-c", `filter.${name}.clean=cat`],
        ...["-c", `filter.${name}.process=`, "-c", `filter.${name}.required=false`],
      );
    } else if (kind === "diff") {
      settings.push("-c", `diff.${name}.textconv=cat`, "-c", `diff.${name}.command=`);
    } else {
      settings.push("-c", `merge.${name}.driver=`);
    }
  }
  return settings;
}

/**
 * The same runner with the repository's drivers read once, now, and neutralized in every call
 * after: for one operation (a fingerprint, one check), like a verification reads them once.
 */
export async function pinDrivers(
  git: GitRunner,
  cwd: string,
  timing: { timeoutMs?: number } = {},
): Promise<GitRunner> {
  const listed = await git(["config", "--includes", "--null", "--get-regexp", "^(filter|diff|merge)\\."], {
    cwd,
    okExitCodes: [0, 1],
    ...timing,
  });
  // Unreadable now: every call reads them itself, as without pinning.
  if (!listed.ok) return git;
  const settings = driverSettings(listed.stdout);
  return (args, call) => git(args, { pinnedDrivers: settings, ...call });
}

/** The same runner with extra `-c` options before every command. */
export function withOptions(git: GitRunner, options: readonly string[]): GitRunner {
  return options.length === 0 ? git : (args, call) => git([...options, ...args], call);
}

/** The same runner with extra environment (pi-quests' own values, e.g. a private index). */
export function withEnv(git: GitRunner, env: Record<string, string>): GitRunner {
  return (args, call) => git(args, { ...call, env: { ...env, ...call.env } });
}
