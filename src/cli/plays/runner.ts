/**
 * `pi-quests test`'s engine: every chain of plays (plan.ts) in a folder of its own (a home, an
 * agent dir, a workspace: nothing of the user's is read or written), `jobs` at a time, each in
 * its own containment so that no process a play started outlives it, then the folders removed.
 * The reports come back in pack order, whatever order the chains end in.
 */
import { mkdir, mkdtemp, readdir, realpath, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { delimiter, join } from "node:path";
import type { Play } from "../../verifier/play.ts";
import { type ChainSetting, type PlayedOutcome, runChain, runSequence } from "./chain-run.ts";
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
  runs: readonly PlayRun[],
  options: RunnerOptions,
): Promise<{ reports: PlayReport[]; kept?: string }> {
  const root = await realpath(await mkdtemp(join(tmpdir(), "pi-quests-test-")));
  try {
    const reports = await inPool(runs, options.jobs, (run, index) =>
      runOne(run, join(root, String(index + 1)), options),
    );
    return { reports: reports.flat(), ...(options.keep ? { kept: root } : {}) };
  } finally {
    if (!options.keep) await rm(root, { recursive: true, force: true });
  }
}

/** What one folder of its own plays: a chain that ends with the play it reports, or a sequence. */
export type PlayRun = PlayChain | { kind: "sequence"; plays: readonly Play[] };

/** The reports of one run, in play order, each also given to `onPlay`. */
async function runOne(run: PlayRun, dir: string, options: RunnerOptions): Promise<PlayReport[]> {
  const begin = Date.now();
  const reportOf = (play: Play, played: PlayedOutcome & Pick<PlayReport, "containment">, ms: number) => {
    const report: PlayReport = {
      quest: play.quest,
      play: play.name,
      expected: play.expected,
      ...played,
      ok: played.outcome === play.expected,
      durationMs: ms,
    };
    options.onPlay?.(report);
    return report;
  };
  if (run.kind === "unplayable") return [reportOf(run.play, { outcome: "error", reason: run.reason }, 0)];
  const plays = run.kind === "sequence" ? run.plays : [run.play];

  const folders = await makeChainFolders(dir, options.piCli);
  const containment = await openPlayContainment();
  const env = { ...playEnv(options, folders), ...containment.env };
  const setting = chainSetting(options, folders, env, containment);
  // A chain's time is the play's; in a sequence each play's own.
  const outcomes = new Map<Play, { played: PlayedOutcome; ms: number }>();
  let since = begin;
  const ended = (play: Play, played: PlayedOutcome) => {
    outcomes.set(play, { played, ms: Date.now() - since });
    since = Date.now();
  };
  let failure: string | undefined;
  try {
    if (run.kind === "sequence") await runSequence(setting, run.plays, ended);
    else ended(run.play, await runChain(setting, run.before, run.play));
  } catch (error) {
    failure = (error as Error).message.split("\n")[0] ?? "failed";
  }
  const closed = await containment.close();
  return plays.map((play) => {
    const { played, ms } = outcomes.get(play) ?? {
      played: { outcome: "error" as const, reason: failure ?? "not played" },
      ms: 0,
    };
    // Nothing a play started may outlive it: a run whose processes could not be ended is an error.
    if (!closed.ok)
      return reportOf(play, { outcome: "error", reason: closed.message, containment: containment.kind }, ms);
    return reportOf(
      play,
      { ...played, ...(failure === undefined ? { containment: containment.kind } : {}) },
      ms,
    );
  });
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
