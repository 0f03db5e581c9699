/**
 * The task verifier's test harness: real repositories, a data dir outside them, and the three
 * things every test checks afterwards: the learner's workspace is byte-identical, git lists no
 * leftover worktree, and no process of ours is still running.
 */
import { createHash } from "node:crypto";
import { lstatSync, mkdtempSync, readdirSync, readFileSync, readlinkSync, realpathSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative, resolve } from "node:path";
import { expect } from "vitest";
import { createNodeProbes } from "../../src/probes/index.ts";
import {
  createTaskVerifier,
  type PinnedCheck,
  type TaskVerifier,
  type TaskVerifierOptions,
} from "../../src/task-verifier/index.ts";
import type { Check } from "../../src/verifier/checks/registry.ts";
import { evaluateQuest } from "../../src/verifier/evaluate.ts";
import type { IsolatedRunRequest, ScriptOutcome } from "../../src/verifier/probes.ts";
import type { QuestResult } from "../../src/verifier/results.ts";
import { git, makeWorkspace } from "./workspace.ts";

/** npm's entry point on this machine: the one running the tests, else the system's. */
export const NPM_CLI = process.env.npm_execpath?.endsWith("npm-cli.js")
  ? process.env.npm_execpath
  : "/usr/lib/node_modules/npm/bin/npm-cli.js";

/** A committed repository holding `files`; returns its real path. */
export function makeRepo(files: Record<string, string | Buffer>): string {
  const dir = realpathSync(makeWorkspace(files));
  git(dir, "init", "-q", "-b", "main");
  git(dir, "add", "-A");
  git(dir, "commit", "-q", "--allow-empty", "-m", "baseline");
  return dir;
}

export function dataDirOutside(): string {
  return realpathSync(mkdtempSync(join(tmpdir(), "pi-quests-data-")));
}

/**
 * A command check as a test gives it: the definition the host pins (its script, folder, timeout,
 * oracle paths, editable) and the identity the engine's request names it by.
 */
export type TestCheck = {
  questId: string;
  checkId: string;
  content: string;
  /** Absolute, as the engine resolves it; pinned relative to the workspace, as a quest writes it. */
  cwd: string;
  timeoutMs: number;
  oraclePaths: string[];
  editable?: string[];
  signal?: AbortSignal;
};

/** A check as the engine would read it from a quest, check q/c by default. */
export function request(workspace: string, content: string, extra: Partial<TestCheck> = {}): TestCheck {
  return {
    content,
    cwd: workspace,
    timeoutMs: 30_000,
    oraclePaths: [],
    questId: "q",
    checkId: "c",
    ...extra,
  };
}

/** What the host pins for `test`. */
export function pinnedCheck(workspace: string, test: TestCheck): PinnedCheck {
  const folder = relative(workspace, test.cwd);
  return {
    questId: test.questId,
    check: {
      id: test.checkId,
      type: "command",
      run: test.content,
      ...(folder ? { cwd: folder } : {}),
      timeout_ms: test.timeoutMs,
      exit_code: 0,
      oracle_paths: test.oraclePaths,
      isolation: "worktree",
      ...(test.editable ? { editable: test.editable } : {}),
    },
  };
}

/** The request the engine sends for `test`: the pinned identity and the resolved folder. */
export function requestFor(test: TestCheck): IsolatedRunRequest {
  return {
    questId: test.questId,
    checkId: test.checkId,
    cwd: test.cwd,
    ...(test.signal ? { signal: test.signal } : {}),
  };
}

/** Whether `pinned` is the definition `test` describes. */
function describes(workspace: string, pinned: PinnedCheck, test: TestCheck): boolean {
  return (
    pinned.check.run === test.content &&
    pinned.check.timeout_ms === test.timeoutMs &&
    JSON.stringify(pinned.check.oracle_paths) === JSON.stringify(test.oraclePaths) &&
    JSON.stringify(pinned.check.editable ?? null) === JSON.stringify(test.editable ?? null) &&
    resolve(workspace, pinned.check.cwd ?? ".") === resolve(test.cwd)
  );
}

export type TestVerifier = Omit<TaskVerifier, "run"> & {
  /** Runs a check the test pinned, by its identity (a test that runs one it did not pin fails). */
  run(test: TestCheck): Promise<ScriptOutcome>;
  /** The verifier's own run, as the engine calls it. */
  runRequest: TaskVerifier["run"];
};

/**
 * A task verifier for `workspace`, pinned to `options.checks` and to the checks in `pin` (which
 * `request` builds); its `run` takes those checks and sends the engine's request for them.
 */
export async function verifierFor(
  workspace: string,
  options: Partial<TaskVerifierOptions> & { pin?: readonly TestCheck[] } = {},
): Promise<{ verifier: TestVerifier; dataDir: string }> {
  const { pin = [], ...rest } = options;
  const checks = [...(rest.checks ?? []), ...pin.map((test) => pinnedCheck(workspace, test))];
  const names = checks.map((entry) => `${entry.questId}/${entry.check.id}`);
  const twice = names.find((name, index) => names.indexOf(name) !== index);
  if (twice) throw new Error(`the test pins two checks as ${twice}`);
  // As the verifier does: what the test changes afterwards is not what was pinned.
  const pinned = structuredClone(checks);
  const dataDir = rest.dataDir ?? dataDirOutside();
  const made = await createTaskVerifier({ workspace, dataDir, npmCliPath: NPM_CLI, ...rest, checks });
  if (!made.ok) throw new Error(`the verifier did not start: ${made.message}`);
  const real = made.verifier;
  const run = (test: TestCheck): Promise<ScriptOutcome> => {
    const entry = pinned.find((each) => each.questId === test.questId && each.check.id === test.checkId);
    if (!entry || !describes(workspace, entry, test))
      throw new Error(`the test runs ${test.questId}/${test.checkId} as it did not pin it: ${test.content}`);
    return real.run(requestFor(test));
  };
  return {
    verifier: {
      workspace: real.workspace,
      repositoryRoot: real.repositoryRoot,
      baseline: real.baseline,
      dataDir: real.dataDir,
      recover: real.recover,
      run,
      runRequest: real.run,
    },
    dataDir,
  };
}

export function finished(outcome: ScriptOutcome) {
  if (!outcome.ok) throw new Error(`expected a finished run, got ${outcome.kind}: ${outcome.message}`);
  return outcome;
}

/**
 * Every file of the workspace, .git included (index, HEAD, refs, objects), as path, mode and
 * content hash. Only .git/worktrees is left out: git keeps its record of our worktrees there.
 */
export function snapshot(workspace: string): Record<string, string> {
  const entries: Record<string, string> = {};
  const walk = (dir: string) => {
    for (const name of readdirSync(dir)) {
      const path = join(dir, name);
      const key = relative(workspace, path);
      if (key === join(".git", "worktrees")) continue;
      const info = lstatSync(path);
      if (info.isDirectory()) walk(path);
      else if (info.isSymbolicLink()) entries[key] = `link ${readlinkSync(path)}`;
      else
        entries[key] =
          `${info.mode.toString(8)} ${createHash("sha256").update(readFileSync(path)).digest("hex")}`;
    }
  };
  walk(workspace);
  return entries;
}

/** git lists no worktree but the workspace itself. */
export function expectNoLeftoverWorktrees(workspace: string): void {
  const listed = git(workspace, "worktree", "list", "--porcelain")
    .split("\n")
    .filter((line) => line.startsWith("worktree "));
  expect(listed).toEqual([`worktree ${workspace}`]);
}

/** Processes (not zombies) whose command line or folder mentions `marker`, e.g. a data dir. */
export function processesMentioning(marker: string): number[] {
  const found: number[] = [];
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry) || Number(entry) === process.pid) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, "utf8");
      if (stat.slice(stat.lastIndexOf(")") + 2).startsWith("Z")) continue;
      const cmdline = readFileSync(`/proc/${entry}/cmdline`, "utf8");
      const cwd = readlinkSync(`/proc/${entry}/cwd`);
      if (cmdline.includes(marker) || cwd.startsWith(marker)) found.push(Number(entry));
    } catch {
      // The process ended while we looked.
    }
  }
  return found;
}

/** The after-every-test checks: workspace unchanged, no leftover worktree, no stray process. */
export function expectCleanAfter(workspace: string, before: Record<string, string>, dataDir: string): void {
  expect(snapshot(workspace)).toEqual(before);
  expectNoLeftoverWorktrees(workspace);
  expect(processesMentioning(dataDir)).toEqual([]);
}

/** Quest `q` with `checks`, evaluated by the engine with the real probes and this verifier's run. */
export function evaluateThrough(
  run: TaskVerifier["run"],
  checks: Check[],
  { workspace, dataDir }: { workspace: string; dataDir: string },
): Promise<QuestResult> {
  return evaluateQuest(
    { id: "q", checks },
    {
      probes: createNodeProbes({ runIsolated: run }),
      events: [],
      paths: { workspace, agentDir: dataDir, home: dataDir },
      questId: "q",
    },
  );
}
