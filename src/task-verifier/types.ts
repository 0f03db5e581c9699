/** What the isolated task verifier is given and what it answers with. */

import type { CheckScript } from "../probes/script-runner.ts";
import type { CommandCheck } from "../verifier/checks/command.ts";
import type { IsolatedRunRequest, ScriptOutcome } from "../verifier/probes.ts";
import type { DependencyPin } from "./dependencies.ts";
import type { LockOptions } from "./lock.ts";

export type PinnedCheck = { questId: string; check: CommandCheck };

export type TaskVerifierOptions = {
  /** The learner's workspace, absolute. */
  workspace: string;
  /** Where worktrees, locks and evidence go; absolute and outside the workspace. */
  dataDir: string;
  /**
   * The oracle commit to pin (default HEAD): the worktree starts from it and protected files come
   * back from it (a sandbox quest gives its template's commit). Resolved once, at construction,
   * to a full object id.
   */
  baseline?: string;
  /** The exact Node the checks run with (default: this process's). */
  nodeExecutable?: string;
  /** npm's entry point, when it is not in Node's own installation layout. */
  npmCliPath?: string;
  /** Pi's package folder, when the host knows it: given to each check as PI_QUESTS_PI_PACKAGE. */
  piPackage?: string;
  /**
   * The host's checks: only these run, exactly as they were at construction. A request names
   * one of them; its definition is never sent again.
   */
  checks: readonly PinnedCheck[];
  gitBinary?: string;
  /** The environment git and the checks inherit (default: this process's). */
  env?: Record<string, string | undefined>;
  lock?: LockOptions;
  /** The script runner (a test may inject one). */
  runScript?: CheckScript;
  /** node_modules as they were when the quest was activated (pinDependencies): a run on changed ones is pending. */
  dependencies?: DependencyPin;
};

export type RecoveryReport = { removed: string[]; failed: Array<{ worktree: string; message: string }> };

export type TaskVerifier = {
  readonly workspace: string;
  readonly repositoryRoot: string;
  /** The pinned baseline: a full object id that no later commit can move. */
  readonly baseline: string;
  readonly dataDir: string;
  run(request: IsolatedRunRequest): Promise<ScriptOutcome>;
  /**
   * Removes worktrees a crashed or failed run left behind (only git-registered ones) and stops
   * processes such a run left running; waits for the workspace lock, so never a live run's.
   */
  recover(): Promise<RecoveryReport>;
};

export type TaskVerifierProblem = {
  ok: false;
  kind: "not_git" | "unknown_baseline" | "bad_options" | "data_dir";
  message: string;
};
