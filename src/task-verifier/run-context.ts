/** What one run of a pinned check works with, handed from step to step. */
import type { GitRunner } from "../probes/git-runner.ts";
import type { CheckScript } from "../probes/script-runner.ts";
import type { BaselineFacts } from "./baseline-facts.ts";
import type { CandidateScope } from "./candidate-scope.ts";
import type { Recovery } from "./recovery.ts";
import type { Tools } from "./tools.ts";
import type { PinnedCheck } from "./types.ts";

export type VerifierPlace = {
  /** The workspace's real path. */
  workspace: string;
  repositoryRoot: string;
  /** The pinned baseline, a full object id. */
  baseline: string;
  dataDir: string;
  /** This workspace's folder in the data dir. */
  home: string;
};

export type RunContext = {
  place: VerifierPlace;
  /** The run's git: drivers read once for the run and made no-ops in every call. */
  git: GitRunner;
  pinned: PinnedCheck;
  /** The check's folder in the repository, with `/` separators. */
  cwd: string;
  /** With `editable`: the paths whose changes the run takes. */
  scope?: CandidateScope;
  tools: Tools;
  facts: BaselineFacts;
  recovery: Recovery;
  runScript: CheckScript;
  /** The environment the checks inherit (default: this process's). */
  env?: Record<string, string | undefined>;
  /** What changed in node_modules since the pin; checked before and after every run. */
  dependenciesChanged(): string | undefined;
  signal?: AbortSignal;
};

/** The check's name in evidence and in the script runner: quest id and check id. */
export const runName = (ctx: RunContext) => `${ctx.pinned.questId}/${ctx.pinned.check.id}`;
