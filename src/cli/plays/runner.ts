/**
 * `pi-quests test`'s engine: every chain of plays (plan.ts) in a folder of its own (a home, an
 * agent dir, a workspace: nothing of the user's is read or written), `jobs` at a time, each in
 * its own containment so that no process a play started outlives it, then the folders removed.
 * The reports come back in pack order, whatever order the chains end in.
 */
import { mkdir, mkdtemp, readdir, realpath, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { delimiter, join } from "node:path";
import { type ChainSetting, runChain } from "./chain-run.ts";
import { openPlayContainment, type PlayContainment } from "./containment.ts";
import { EXTENSION_FILES } from "./defaults.ts";
import { writePiShim } from "./pi-shim.ts";
import type { PlayChain } from "./plan.ts";
import type { StepTimeouts } from "./play-steps.ts";
import type { PlayReport } from "./report.ts";

/** A chain's own folders: a home, an agent dir, the workspace, and the `bin` of its `pi`. */
export type ChainFolders = { home: string; agentDir: string; workspace: string; bin: string };

export type RunnerOptions = {
  pack: string;
  piCli: string;
  extensions: readonly string[];
  /** Quests with a sandbox: a workspace without it needs an empty folder. */
  sandboxed: ReadonlySet<string>;
  /** The user's environment, from which only what a play needs is taken. */
  env: Record<string, string | undefined>;
  jobs: number;
  /** Keep the folders (their root is returned) instead of removing them. */
  keep: boolean;
  timeouts: StepTimeouts & { startMs: number };
  /** Called as each play ends, in the order they end. */
  onPlay?(report: PlayReport): void;
};

export async function runPlays(
  chains: readonly PlayChain[],
  options: RunnerOptions,
): Promise<{ reports: PlayReport[]; kept?: string }> {
  const root = await realpath(await mkdtemp(join(tmpdir(), "pi-quests-test-")));
  try {
    const reports = await inPool(chains, options.jobs, async (chain, index) => {
      const report = await runOne(chain, join(root, String(index + 1)), options);
      options.onPlay?.(report);
      return report;
    });
    return { reports, ...(options.keep ? { kept: root } : {}) };
  } finally {
    if (!options.keep) await rm(root, { recursive: true, force: true });
  }
}

async function runOne(chain: PlayChain, dir: string, options: RunnerOptions): Promise<PlayReport> {
  const { play } = chain;
  const begin = Date.now();
  const report = (
    played: Omit<PlayReport, "quest" | "play" | "expected" | "ok" | "durationMs">,
  ): PlayReport => ({
    quest: play.quest,
    play: play.name,
    expected: play.expected,
    ...played,
    ok: played.outcome === play.expected,
    durationMs: Date.now() - begin,
  });
  if (chain.kind === "unplayable") return report({ outcome: "error", reason: chain.reason });

  const folders = await makeChainFolders(dir, options.piCli);
  const containment = await openPlayContainment();
  const env = { ...playEnv(options, folders), ...containment.env };
  try {
    const played = await runChain(chainSetting(options, folders, env, containment), chain.before, play);
    const closed = await containment.close();
    if (!closed.ok)
      return report({ outcome: "error", reason: closed.message, containment: containment.kind });
    return report({ ...played, containment: containment.kind });
  } catch (error) {
    await containment.close();
    return report({ outcome: "error", reason: (error as Error).message.split("\n")[0] ?? "failed" });
  }
}

/** A home, an agent dir and a workspace under `dir`, made, and `bin/pi` running `piCli`. */
export async function makeChainFolders(dir: string, piCli: string): Promise<ChainFolders> {
  const folders = {
    home: join(dir, "home"),
    agentDir: join(dir, "agent"),
    workspace: join(dir, "workspace"),
    bin: join(dir, "bin"),
  };
  for (const folder of Object.values(folders)) await mkdir(folder, { recursive: true });
  await writePiShim(folders.bin, { node: process.execPath, piCli, scriptedModel: EXTENSION_FILES[0] });
  return folders;
}

/** What a chain in `folders` runs with, inside `containment`. */
export function chainSetting(
  options: Pick<RunnerOptions, "piCli" | "extensions" | "sandboxed" | "timeouts">,
  folders: ChainFolders,
  env: Record<string, string>,
  containment: PlayContainment,
): ChainSetting {
  return {
    piCli: options.piCli,
    extensions: options.extensions,
    workspace: folders.workspace,
    agentDir: folders.agentDir,
    env,
    containment,
    shell: async (script) => {
      const ran = await containment.run(script, {
        cwd: folders.workspace,
        env,
        timeoutMs: options.timeouts.stepMs,
      });
      return {
        exitCode: ran.timedOut ? null : ran.exitCode,
        output: ran.error ?? `${ran.stdout}${ran.stderr}`,
      };
    },
    needsSandbox: async (quest) =>
      options.sandboxed.has(quest) && (await readdir(folders.workspace)).length === 0,
    timeouts: options.timeouts,
  };
}

/**
 * What a play runs with: a home, agent dir and git of its own, the pack, no quest starting by
 * itself, the chain's `pi` (pi-shim.ts) first on PATH. The user's PATH (the tools a check runs),
 * TMPDIR (Pi's transform cache) and npm's location are kept; nothing else of the user's
 * environment (no keys) is passed on.
 */
export function playEnv(
  options: Pick<RunnerOptions, "env" | "pack">,
  { home, agentDir, bin }: { home: string; agentDir: string; bin: string },
): Record<string, string> {
  const from = options.env;
  const kept = (name: string) => (from[name] ? { [name]: from[name] } : {});
  const name = "Learner";
  const email = "learner@example.com";
  return {
    PATH: `${bin}${delimiter}${from.PATH ?? "/usr/bin:/bin"}`,
    ...kept("TMPDIR"),
    ...kept("LANG"),
    ...kept("PI_QUESTS_NPM_CLI"),
    HOME: home,
    XDG_CONFIG_HOME: join(home, ".config"),
    XDG_CACHE_HOME: join(home, ".cache"),
    XDG_DATA_HOME: join(home, ".local", "share"),
    XDG_STATE_HOME: join(home, ".local", "state"),
    PI_CODING_AGENT_DIR: agentDir,
    PI_QUESTS_PACK: options.pack,
    PI_QUESTS_START: "off",
    GIT_CONFIG_NOSYSTEM: "1",
    GIT_CONFIG_GLOBAL: join(home, ".gitconfig"),
    GIT_AUTHOR_NAME: name,
    GIT_AUTHOR_EMAIL: email,
    GIT_COMMITTER_NAME: name,
    GIT_COMMITTER_EMAIL: email,
  };
}

/** `work` for every item, at most `jobs` at once; results in the items' order. */
async function inPool<T, R>(
  items: readonly T[],
  jobs: number,
  work: (item: T, index: number) => Promise<R>,
): Promise<R[]> {
  const results: R[] = new Array(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const index = next++;
      results[index] = await work(items[index] as T, index);
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(jobs, items.length)) }, worker));
  return results;
}
