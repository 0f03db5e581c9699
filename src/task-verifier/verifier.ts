/**
 * The isolated task verifier. A command check never runs in the learner's workspace: it runs in
 * a fresh detached worktree at the pinned baseline, with the candidate's changes applied as a
 * hash-checked patch and every test, oracle and script the verdict rests on put back from the
 * baseline. An agent that rewrites the test to `exit 0` does not pass.
 *
 * What runs is what the host pinned at construction: a request names a pinned check and the
 * folder the engine resolved for it, and carries no definition of its own.
 */
import { join, posix } from "node:path";
import { pinDrivers } from "../probes/git-runner.ts";
import { bashCheck } from "../probes/script-runner.ts";
import type { IsolatedRunRequest, ScriptOutcome } from "../verifier/probes.ts";
import { type BaselineFacts, baselineFacts } from "./baseline-facts.ts";
import { dependencyDrift } from "./dependencies.ts";
import { acquireWorkspaceLock } from "./lock.ts";
import { type OpenedWorkspace, openWorkspace } from "./open.ts";
import { pinnedRun } from "./pinned-checks.ts";
import { createRecovery } from "./recovery.ts";
import { runLocked } from "./run.ts";
import { noNpmMessage, prepareTools, toolsProblem, usesNpm } from "./tools.ts";
import type { TaskVerifier, TaskVerifierOptions, TaskVerifierProblem } from "./types.ts";
import { unavailable } from "./unavailable.ts";

export type {
  PinnedCheck,
  RecoveryReport,
  TaskVerifier,
  TaskVerifierOptions,
  TaskVerifierProblem,
} from "./types.ts";

export async function createTaskVerifier(
  options: TaskVerifierOptions,
): Promise<{ ok: true; verifier: TaskVerifier } | TaskVerifierProblem> {
  const opened = await openWorkspace(options);
  if (!opened.ok) return opened;
  // Host configuration is copied now: later changes to the caller's objects change nothing.
  const pinnedChecks = structuredClone(options.checks);
  const { workspace, repositoryRoot, baseline, dataDir, home, git } = opened;

  const prepared = await prepareTools(
    home,
    options.nodeExecutable ?? process.execPath,
    options.npmCliPath,
  ).catch((error: Error) => ({ ok: false as const, message: error.message }));
  const facts = baselineFacts(git, repositoryRoot, baseline);
  const lockPath = join(home, "verify.lock");
  const recovery = createRecovery({
    git,
    repositoryRoot,
    home,
    lockPath,
    ...(options.lock ? { lock: options.lock } : {}),
  });
  await recovery.atStart();
  const runScript = options.runScript ?? bashCheck();

  const run = async (request: IsolatedRunRequest): Promise<ScriptOutcome> => {
    if (!prepared.ok) return unavailable(prepared.message);
    const tools = options.piPackage ? { ...prepared.tools, piPackage: options.piPackage } : prepared.tools;
    const found = pinnedRun(pinnedChecks, request, { workspace, repositoryRoot });
    if (!found.ok) return unavailable(found.message);
    const content = found.pinned.check.run;
    if (usesNpm(content) && !tools.npmCli) {
      return unavailable(`the check runs npm, and ${noNpmMessage(tools.node)}`);
    }
    const gone = await toolsProblem(tools, usesNpm(content));
    if (gone) return unavailable(gone);

    const lock = await acquireWorkspaceLock(lockPath, options.lock);
    if (!lock.ok) return unavailable(lock.message);
    try {
      // A cleanup that failed earlier is retried first; while it still fails, nothing runs.
      if (recovery.due()) await recovery.recoverLocked();
      // A run that failed to clean up while this one waited for the lock stops this one too.
      const stopped = recovery.stopReason();
      if (stopped) return unavailable(stopped);
      const outcome = await runLocked({
        place: { workspace, repositoryRoot, baseline, dataDir, home },
        // Drivers are read once a run (the agent may have added one since the last): every git
        // call of this run makes them no-ops without reading the configuration again.
        git: await pinDrivers(git, repositoryRoot),
        pinned: found.pinned,
        cwd: found.cwd,
        tools,
        facts,
        recovery,
        runScript,
        ...(options.env ? { env: options.env } : {}),
        dependenciesChanged: () => dependenciesChanged(options, opened, facts),
        ...(request.signal ? { signal: request.signal } : {}),
      });
      const lost = lock.lost();
      if (lost) {
        return unavailable(
          `the workspace lock was lost during the verification (${lost}), so another verification may have run at the same time; the result is not used`,
          outcome.verification,
        );
      }
      return outcome;
    } finally {
      await lock.release();
    }
  };

  return {
    ok: true,
    verifier: { workspace, repositoryRoot, baseline, dataDir, run, recover: recovery.recover },
  };
}

/** What changed in node_modules since the pin (none pinned: nothing is compared). */
function dependenciesChanged(
  options: TaskVerifierOptions,
  opened: OpenedWorkspace,
  facts: BaselineFacts,
): string | undefined {
  if (!options.dependencies) return undefined;
  const linked = facts.manifestPaths().map((path) => posix.join(posix.dirname(path), "node_modules"));
  return dependencyDrift(options.dependencies, opened.workspace, linked);
}
