/**
 * `pi-quests test`'s engine: every chain of plays (plan.ts) in a folder of its own (a home, an
 * agent dir, a workspace: nothing of the user's is read or written), `jobs` at a time, each in
 * its own containment so that no process a play started outlives it, then the folders removed.
 * The reports come back in pack order, whatever order the chains end in.
 */
import { cp, mkdir, mkdtemp, readdir, realpath, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { delimiter, join } from "node:path";
import type { Play } from "../../verifier/play.ts";
import {
  type ChainSetting,
  type PlayedOutcome,
  playRequirements,
  runChain,
  runSequence,
} from "./chain-run.ts";
import { openPlayContainment, type PlayContainment } from "./containment.ts";
import { EXTENSION_FILES } from "./defaults.ts";
import { writePiShim } from "./pi-shim.ts";
import { type PlayChain, requirementsKey } from "./plan.ts";
import type { StepTimeouts } from "./play-steps.ts";
import type { PlayReport } from "./report.ts";
import { runFolderNames } from "./run-folder-names.ts";

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
  // Named after what each plays, so that a kept folder is found by its play's name.
  const names = runFolderNames(runs);
  try {
    const reports = await inPool(runs, options.jobs, (run, index) =>
      runOne(run, join(root, names[index] ?? String(index + 1)), options),
    );
    return { reports: reports.flat(), ...(options.keep ? { kept: root } : {}) };
  } finally {
    if (!options.keep) await rm(root, { recursive: true, force: true });
  }
}

/**
 * What one folder of its own plays: a chain that ends with the play it reports; the pack's
 * advised order as one sequence; or chains that require the same quests, sharing one run of
 * their requirements (`shareRequirements`).
 */
export type PlayRun =
  | PlayChain
  | { kind: "sequence"; plays: readonly Play[] }
  | { kind: "shared"; before: readonly Play[]; plays: readonly Play[] };

/**
 * Chains that require the same quests as one run each that plays the requirements once, then
 * each play from a copy of the folders as the requirements left them, restored in place (the same
 * paths, so Pi's sessions and pi-quests' records stay valid): what playing them again would give,
 * for one run of Pi instead of one a chain. A group is split in `parts` (the jobs), so the plays
 * still run side by side.
 */
export function shareRequirements(chains: readonly PlayChain[], parts: number): PlayRun[] {
  const groups = new Map<string, (PlayChain & { kind: "runnable" })[]>();
  const runs: PlayRun[] = [];
  for (const chain of chains) {
    if (chain.kind !== "runnable" || chain.before.length === 0) {
      runs.push(chain);
      continue;
    }
    const key = requirementsKey(chain.before);
    groups.set(key, [...(groups.get(key) ?? []), chain]);
  }
  for (const group of groups.values()) {
    if (group.length === 1) {
      runs.push(...group);
      continue;
    }
    const count = Math.min(parts, group.length);
    for (let part = 0; part < count; part++) {
      const plays = group.filter((_, index) => index % count === part).map((chain) => chain.play);
      runs.push({ kind: "shared", before: group[0]?.before ?? [], plays });
    }
  }
  return runs;
}

type Reported = PlayedOutcome & Pick<PlayReport, "containment">;

/** The reports of one run, in play order, each also given to `onPlay`. */
async function runOne(run: PlayRun, dir: string, options: RunnerOptions): Promise<PlayReport[]> {
  const reportOf = (play: Play, played: Reported, ms: number) => {
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
  const folders = await makeChainFolders(dir, options.piCli);
  if (run.kind === "runnable") {
    const played = await contained(options, folders, async (setting, ended) =>
      ended(run.play, await runChain(setting, run.before, run.play)),
    );
    return [reportOf(run.play, ...played.of(run.play))];
  }
  if (run.kind === "sequence") {
    const played = await contained(options, folders, (setting, ended) =>
      runSequence(setting, run.plays, ended),
    );
    return run.plays.map((play) => reportOf(play, ...played.of(play)));
  }
  return runShared(run, dir, folders, options, reportOf);
}

/** A `shared` run: the requirements once, then each play in the folders as they left them. */
async function runShared(
  run: Extract<PlayRun, { kind: "shared" }>,
  dir: string,
  folders: ChainFolders,
  options: RunnerOptions,
  reportOf: (play: Play, played: Reported, ms: number) => PlayReport,
): Promise<PlayReport[]> {
  let stopped: PlayedOutcome | undefined;
  const required = await contained(options, folders, async (setting) => {
    stopped = await playRequirements(setting, run.before);
  });
  const unplayed = stopped ?? required.problem;
  if (unplayed) return run.plays.map((play) => reportOf(play, unplayed, 0));
  const snapshot = `${dir}.required`;
  await cp(dir, snapshot, SNAPSHOT_COPY);
  const reports: PlayReport[] = [];
  for (const [index, play] of run.plays.entries()) {
    if (index > 0) {
      await rm(dir, { recursive: true, force: true });
      await cp(snapshot, dir, SNAPSHOT_COPY);
    }
    const played = await contained(options, folders, async (setting, ended) =>
      ended(play, await runChain(setting, [], play)),
    );
    reports.push(reportOf(play, ...played.of(play)));
  }
  if (!options.keep) await rm(snapshot, { recursive: true, force: true });
  return reports;
}

/** Links stay links, times stay: the folders as the requirements left them. */
const SNAPSHOT_COPY = { recursive: true, preserveTimestamps: true, verbatimSymlinks: true } as const;

/** What `contained` gives: each play's outcome and time, and what went wrong around them, if anything. */
type Contained = { of(play: Play): [Reported, number]; problem?: Reported };

/**
 * Runs `work` in the folders inside a containment of its own, closed after it: nothing a play
 * started outlives it. A play's outcome is an error when `work` threw, or when the containment
 * could not end what it started (`problem` says which).
 */
async function contained(
  options: RunnerOptions,
  folders: ChainFolders,
  work: (setting: ChainSetting, ended: (play: Play, played: PlayedOutcome) => void) => Promise<void>,
): Promise<Contained> {
  const containment = await openPlayContainment();
  const env = { ...playEnv(options, folders), ...containment.env };
  const outcomes = new Map<Play, { played: PlayedOutcome; ms: number }>();
  let since = Date.now();
  const ended = (play: Play, played: PlayedOutcome) => {
    outcomes.set(play, { played, ms: Date.now() - since });
    since = Date.now();
  };
  let failure: string | undefined;
  try {
    await work(chainSetting(options, folders, env, containment), ended);
  } catch (error) {
    failure = (error as Error).message.split("\n")[0] ?? "failed";
  }
  const closed = await containment.close();
  const problem: Reported | undefined = !closed.ok
    ? { outcome: "error", reason: closed.message, containment: containment.kind }
    : failure !== undefined
      ? { outcome: "error", reason: failure }
      : undefined;
  return {
    of(play) {
      const { played, ms } = outcomes.get(play) ?? {
        played: problem ?? { outcome: "error", reason: "not played" },
        ms: 0,
      };
      // Nothing a play started may outlive it: a run whose processes could not be ended is an error.
      if (!closed.ok) return [problem as Reported, ms];
      return [{ ...played, ...(failure === undefined ? { containment: containment.kind } : {}) }, ms];
    },
    ...(problem ? { problem } : {}),
  };
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
