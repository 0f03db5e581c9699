/**
 * The task verifier's test harness: real repositories, a data dir outside them, and the three
 * things every test checks afterwards: the learner's workspace is byte-identical, git lists no
 * leftover worktree, and no process of ours is still running.
 */
import { createHash } from "node:crypto";
import { lstatSync, mkdtempSync, readdirSync, readFileSync, readlinkSync, realpathSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { expect } from "vitest";
import {
  createTaskVerifier,
  type TaskVerifier,
  type TaskVerifierOptions,
} from "../../src/task-verifier/index.ts";
import type { IsolatedScriptRequest, ScriptOutcome } from "../../src/verifier/probes.ts";
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

export async function verifierFor(
  workspace: string,
  options: Partial<TaskVerifierOptions> = {},
): Promise<{ verifier: TaskVerifier; dataDir: string }> {
  const dataDir = options.dataDir ?? dataDirOutside();
  const made = await createTaskVerifier({ workspace, dataDir, npmCliPath: NPM_CLI, ...options });
  if (!made.ok) throw new Error(`the verifier did not start: ${made.message}`);
  return { verifier: made.verifier, dataDir };
}

/** A request as the engine makes it for a `command` check. */
export function request(
  workspace: string,
  content: string,
  extra: Partial<IsolatedScriptRequest> = {},
): IsolatedScriptRequest {
  return {
    script: "q/c",
    content,
    cwd: workspace,
    timeoutMs: 30_000,
    oraclePaths: [],
    questId: "q",
    checkId: "c",
    ...extra,
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
