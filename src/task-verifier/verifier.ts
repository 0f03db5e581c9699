/**
 * The isolated task verifier (seeds 000 and 002). A command check never runs in the learner's
 * workspace: it runs in a fresh detached worktree at the pinned baseline, with the candidate's
 * changes applied as a hash-checked patch and every test, oracle and script the verdict rests
 * on put back from the baseline. An agent that rewrites the test to `exit 0` does not pass.
 */
import { createHash, randomBytes } from "node:crypto";
import { lstat, mkdir, realpath, writeFile } from "node:fs/promises";
import { isAbsolute, join, posix, relative, resolve, sep } from "node:path";
import { workspaceHome } from "../core/workspace-key.ts";
import { createGitRunner, type GitRunner, pinDrivers, splitNul } from "../probes/git-runner.ts";
import { withPrivateIndex } from "../probes/private-index.ts";
import { bashCheck, type CheckScript } from "../probes/script-runner.ts";
import type { CommandCheck, IsolationEvidence } from "../verifier/checks/command.ts";
import { isInside } from "../verifier/paths.ts";
import type { IsolatedScriptRequest, ScriptOutcome } from "../verifier/probes.ts";
import { readBaselineTexts } from "./baseline-content.ts";
import { captureCandidate } from "./candidate.ts";
import { editableScope } from "./candidate-scope.ts";
import { checkPath } from "./check-path.ts";
import { type DependencyPin, dependencyDrift } from "./dependencies.ts";
import { writeAtomically, writeJson } from "./evidence.ts";
import { changedGivenFiles, checkedOutIntact, compareGivenFiles, recordGivenFiles } from "./given-files.ts";
import { acquireWorkspaceLock, DEFAULT_STALE_MS, DEFAULT_WAIT_MS, type LockOptions } from "./lock.ts";
import { cleanupIncomplete, recordPendingRemoval, settlePendingRemovals } from "./pending-removal.ts";
import { applyCandidate, protect } from "./prepare.ts";
import { planProtection } from "./protected-paths.ts";
import { baselineListingOnce, fingerprintRun } from "./run-fingerprint.ts";
import { prepareTools, type Tools, toolEnvironment, toolsProblem, usesNpm } from "./tools.ts";
import {
  createWorktree,
  ensureRealFolder,
  RUN_VARIABLE,
  registeredWorktrees,
  removeWorktree,
  stopMarkedProcesses,
} from "./worktree.ts";

/** A few paths for a sentence: the first five, and how many more. */
const listSome = (paths: readonly string[]) =>
  paths.slice(0, 5).join(", ") + (paths.length > 5 ? ` and ${paths.length - 5} more` : "");

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
  /** The host's checks: when given, only these run, exactly as they were at construction. */
  checks?: readonly PinnedCheck[];
  gitBinary?: string;
  /** The environment git and the checks inherit (default: this process's). */
  env?: Record<string, string | undefined>;
  lock?: LockOptions;
  /** The seed-002 script runner (a test may inject one). */
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
  run(request: IsolatedScriptRequest): Promise<ScriptOutcome>;
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

const hex = (...parts: string[]) => createHash("sha256").update(JSON.stringify(parts)).digest("hex");

export async function createTaskVerifier(
  options: TaskVerifierOptions,
): Promise<{ ok: true; verifier: TaskVerifier } | TaskVerifierProblem> {
  const bad = (kind: TaskVerifierProblem["kind"], message: string): TaskVerifierProblem => ({
    ok: false,
    kind,
    message,
  });
  if (!isAbsolute(options.workspace))
    return bad("bad_options", `the workspace must be an absolute path (got ${options.workspace})`);
  if (!isAbsolute(options.dataDir))
    return bad("bad_options", `the data dir must be an absolute path (got ${options.dataDir})`);
  const workspace = await realpath(options.workspace).catch(() => undefined);
  if (!workspace) return bad("bad_options", `the workspace ${options.workspace} does not exist`);
  // Host configuration is copied now: later changes to the caller's objects change nothing.
  const pinnedChecks = options.checks ? structuredClone(options.checks) : undefined;

  const git = createGitRunner({
    ...(options.gitBinary ? { gitBinary: options.gitBinary } : {}),
    ...(options.env ? { env: options.env } : {}),
  });
  const top = await git(["rev-parse", "--show-toplevel"], { cwd: workspace });
  if (!top.ok)
    return bad(
      "not_git",
      `${workspace} is not in a git repository, so isolation: worktree cannot run (${top.message})`,
    );
  const repositoryRoot = await realpath(top.stdout.toString("utf8").trim());
  const revision = options.baseline ?? "HEAD";
  const pinned = await git(["rev-parse", "--verify", "--quiet", "--end-of-options", `${revision}^{commit}`], {
    cwd: repositoryRoot,
  });
  if (!pinned.ok)
    return bad("unknown_baseline", `the baseline ${revision} does not name a commit in ${repositoryRoot}`);
  const baseline = pinned.stdout.toString("utf8").trim();

  let dataDir: string;
  try {
    await mkdir(options.dataDir, { recursive: true });
    dataDir = await realpath(options.dataDir);
  } catch (error) {
    return bad("data_dir", `cannot use the data dir ${options.dataDir}: ${(error as Error).message}`);
  }
  if (isInside(dataDir, repositoryRoot) || isInside(repositoryRoot, dataDir)) {
    return bad(
      "bad_options",
      `the data dir ${dataDir} and the repository ${repositoryRoot} must not contain each other`,
    );
  }
  const home = workspaceHome(dataDir, workspace);
  const homeProblem = await ensureRealFolder(dataDir, join(home, "worktrees")).catch(
    (error: Error) => error.message,
  );
  const runsProblem =
    homeProblem ??
    (await ensureRealFolder(dataDir, join(home, "runs")).catch((error: Error) => error.message));
  if (runsProblem) return bad("data_dir", `cannot use the data dir ${dataDir}: ${runsProblem}`);
  try {
    await writeFile(join(home, "workspace.txt"), `${workspace}\n`);
  } catch (error) {
    return bad("data_dir", `cannot write to the data dir ${dataDir}: ${(error as Error).message}`);
  }

  const runScript = options.runScript ?? bashCheck();
  let tools: Tools | undefined;
  let toolsSetupProblem: string | undefined;
  const prepared = await prepareTools(
    home,
    options.nodeExecutable ?? process.execPath,
    options.npmCliPath,
  ).catch((error: Error) => ({ ok: false as const, message: error.message }));
  if (prepared.ok) tools = prepared.tools;
  else toolsSetupProblem = prepared.message;

  // The baseline never changes, so its file list and manifests are read once.
  let baselineFiles: string[] | undefined;
  /** The baseline's text of the files the planner follows; read at the first run that needs them. */
  let baselineTexts: Map<string, string> | undefined;
  const manifests = new Map<string, Record<string, unknown> | undefined>();
  const manifestBytes = new Map<string, Buffer>();
  const readBaselineTree = async (): Promise<{ ok: true } | { ok: false; message: string }> => {
    if (baselineFiles) return { ok: true };
    const tree = await git(["ls-tree", "-r", "-z", "--name-only", "--full-tree", baseline], {
      cwd: repositoryRoot,
    });
    if (!tree.ok) return tree;
    baselineFiles = splitNul(tree.stdout);
    for (const path of baselineFiles.filter((file) => posix.basename(file) === "package.json")) {
      const shown = await git(["show", `${baseline}:${path}`], { cwd: repositoryRoot });
      if (shown.ok) manifestBytes.set(path, shown.stdout);
      try {
        manifests.set(path, shown.ok ? JSON.parse(shown.stdout.toString("utf8")) : undefined);
      } catch {
        manifests.set(path, undefined);
      }
    }
    return { ok: true };
  };

  const baselineListing = baselineListingOnce(git, repositoryRoot, baseline);
  /** What changed in node_modules since the pin, checked before and after every run. */
  const dependenciesChanged = () => {
    if (!options.dependencies) return undefined;
    const linked = [...manifests.keys()].map((path) => posix.join(posix.dirname(path), "node_modules"));
    return dependencyDrift(options.dependencies, workspace, linked);
  };

  let halted: { worktree: string; message: string } | undefined;
  /** Set when construction could not recover (another process held the lock): the first run does. */
  let recoveryDeferred = false;
  const lockPath = join(home, "verify.lock");
  const runsFolder = `${join(home, "runs")}${sep}`;

  /** Recovery proper; the caller holds the workspace lock, so no run of any process is live. */
  const recoverLocked = async (): Promise<RecoveryReport> => {
    const report: RecoveryReport = { removed: [], failed: [] };
    recoveryDeferred = false;
    // What a crashed run left running: its check's processes still carry their run folder.
    const survivors = await stopMarkedProcesses((run) => run.startsWith(runsFolder));
    if (survivors.length > 0)
      report.failed.push({
        worktree: join(home, "worktrees"),
        message: `processes left by an earlier verification could not be stopped: ${survivors.join(", ")}`,
      });
    const registered = await registeredWorktrees(git, repositoryRoot);
    if (!registered.ok) {
      report.failed.push({ worktree: join(home, "worktrees"), message: registered.message });
    } else {
      for (const worktree of registered.paths.filter((path) =>
        path.startsWith(`${join(home, "worktrees")}${sep}`),
      )) {
        const removed = await removeWorktree(git, repositoryRoot, worktree);
        if (removed.ok) report.removed.push(worktree);
        else report.failed.push({ worktree, message: removed.message });
      }
      await git(["worktree", "prune"], { cwd: repositoryRoot });
      // Folders whose removal failed earlier, which git may have forgotten since.
      const still = await registeredWorktrees(git, repositoryRoot);
      const settled = await settlePendingRemovals(join(home, "worktrees"), (path) =>
        still.ok ? still.paths.includes(path) : true,
      );
      report.removed.push(...settled.removed);
      report.failed.push(...settled.failed);
    }
    // A leftover that cannot be cleaned up stops verification, as a failed cleanup does.
    const failed = report.failed[0];
    halted = failed ? { worktree: failed.worktree, message: failed.message } : undefined;
    return report;
  };

  const recover = async (): Promise<RecoveryReport> => {
    const lock = await acquireWorkspaceLock(lockPath, options.lock);
    if (!lock.ok)
      return { removed: [], failed: [{ worktree: join(home, "worktrees"), message: lock.message }] };
    try {
      return await recoverLocked();
    } finally {
      await lock.release();
    }
  };

  // A restart cleans up after a crash. The crashed holder's lock goes stale within staleMs, so
  // construction waits that long at most; a live holder (another session verifying right now)
  // keeps it fresh, and then the first run here recovers instead, under the lock.
  {
    const staleMs = options.lock?.staleMs ?? DEFAULT_STALE_MS;
    const waitMs = Math.min(options.lock?.waitMs ?? DEFAULT_WAIT_MS, staleMs + 1000);
    const lock = await acquireWorkspaceLock(lockPath, { ...options.lock, waitMs });
    if (lock.ok) {
      try {
        await recoverLocked();
      } finally {
        await lock.release();
      }
    } else recoveryDeferred = true;
  }

  const run = async (request: IsolatedScriptRequest): Promise<ScriptOutcome> => {
    const unavailable = (message: string, verification?: IsolationEvidence): ScriptOutcome => ({
      ok: false,
      kind: "unavailable",
      message,
      report: "",
      truncated: false,
      ...(verification ? { verification } : {}),
    });
    const stopped = () =>
      halted
        ? unavailable(
            `verification stopped: cleaning up ${halted.worktree} failed (${halted.message}); it is kept for inspection`,
          )
        : undefined;
    if (!tools) return unavailable(toolsSetupProblem ?? "the check's tools are not available");
    if (pinnedChecks) {
      const pinnedCheck = pinnedChecks.find(
        (entry) => entry.questId === request.questId && entry.check.id === request.checkId,
      );
      if (!pinnedCheck)
        return unavailable(
          `${request.questId}/${request.checkId} is not one of the checks pinned for this workspace`,
        );
      const same =
        pinnedCheck.check.run === request.content &&
        pinnedCheck.check.timeout_ms === request.timeoutMs &&
        JSON.stringify(pinnedCheck.check.oracle_paths) === JSON.stringify(request.oraclePaths) &&
        JSON.stringify(pinnedCheck.check.editable ?? null) === JSON.stringify(request.editable ?? null) &&
        resolve(workspace, pinnedCheck.check.cwd ?? ".") === resolve(request.cwd);
      if (!same)
        return unavailable(
          `${request.questId}/${request.checkId} differs from the definition pinned when the quest started; the pinned one is the one that counts`,
        );
    }
    const cwdInRepository = relative(repositoryRoot, resolve(request.cwd));
    if (cwdInRepository.startsWith("..") || isAbsolute(cwdInRepository)) {
      return unavailable(`the check's folder ${request.cwd} is outside the repository ${repositoryRoot}`);
    }
    if (usesNpm(request.content) && !tools.npmCli) {
      return unavailable(`the check runs npm, and there is no npm next to ${tools.node}`);
    }
    const gone = await toolsProblem(tools, usesNpm(request.content));
    if (gone) return unavailable(gone);

    const lock = await acquireWorkspaceLock(lockPath, options.lock);
    if (!lock.ok) return unavailable(lock.message);
    try {
      // A cleanup that failed earlier is retried first; while it still fails, nothing runs.
      if (recoveryDeferred || halted) await recoverLocked();
      // A run that failed to clean up while this one waited for the lock stops this one too.
      const refusedNow = stopped();
      if (refusedNow) return refusedNow;
      // Drivers are read once a run (the agent may have added one since the last): every git call
      // of this run makes them no-ops without reading the configuration again.
      const runGit = await pinDrivers(git, repositoryRoot);
      const outcome = await runLocked(
        runGit,
        request,
        cwdInRepository.split(sep).join("/"),
        tools,
        unavailable,
      );
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

  const runLocked = async (
    git: GitRunner,
    request: IsolatedScriptRequest,
    cwd: string,
    activeTools: Tools,
    unavailable: (message: string, verification?: IsolationEvidence) => ScriptOutcome,
  ): Promise<ScriptOutcome> => {
    const tree = await readBaselineTree();
    if (!tree.ok) return unavailable(tree.message);
    const drifted = dependenciesChanged();
    if (drifted) return unavailable(drifted);
    const scope = request.editable
      ? editableScope(request.editable, relative(repositoryRoot, workspace).split(sep).join("/"))
      : undefined;
    // The candidate compares the disk with the baseline through an index pi-quests built.
    const indexed = await withPrivateIndex(
      git,
      repositoryRoot,
      (own) => captureCandidate(own, repositoryRoot, baseline, scope),
      { driversPinned: true },
    );
    const captured = indexed.ok ? indexed.value : indexed;
    if (!captured.ok) return unavailable(`could not take the candidate's changes: ${captured.message}`);
    const { candidate } = captured;

    const runId = `${new Date().toISOString().replace(/[:.]/g, "-")}-${randomBytes(4).toString("hex")}`;
    const runDir = join(home, "runs", runId);
    const worktree = join(
      home,
      "worktrees",
      hex(workspace, request.questId, request.checkId, baseline, candidate.sha256).slice(0, 32),
    );
    const patchFile = join(runDir, "candidate.patch");
    try {
      await mkdir(runDir);
      await writeAtomically(patchFile, candidate.patch);
    } catch (error) {
      return unavailable(`cannot write evidence to ${runDir}: ${(error as Error).message}`);
    }
    const verification: IsolationEvidence = {
      runDir,
      baseline,
      head: candidate.head,
      patchSha256: candidate.sha256,
      patchBytes: candidate.patch.length,
      restored: [],
      manifestsMerged: [],
      removedConfigs: [],
      ...(candidate.leftOut ? { leftOut: candidate.leftOut } : {}),
      cleanup: { ok: true },
      generatedLeftOut: candidate.generatedLeftOut,
    };
    const searchPath = await checkPath(options.env?.PATH ?? process.env.PATH ?? "", {
      workspace,
      repositoryRoot,
      dataDir,
      env: options.env ?? process.env,
    });
    await writeJson(join(runDir, "provenance.json"), {
      ...verification,
      worktree,
      untracked: candidate.untracked,
    });

    /** A worktree that could not be removed is kept for inspection, and verification stops. */
    const keep = async (message: string) => {
      verification.cleanup = { ok: false, message, keptWorktree: worktree };
      halted = { worktree, message };
      await recordPendingRemoval(join(home, "worktrees"), worktree);
    };

    if (await lstat(worktree).catch(() => undefined)) {
      // Left by a run that died: only a registered worktree may be removed.
      const removed = await removeWorktree(git, repositoryRoot, worktree);
      if (!removed.ok)
        return unavailable(`a previous worktree is in the way: ${removed.message}`, verification);
    }
    const created = await createWorktree(git, repositoryRoot, worktree, baseline);
    if (!created.ok) {
      // git may have failed halfway, after registering the worktree: that one is ours to remove.
      const registered = await registeredWorktrees(git, repositoryRoot);
      if (!registered.ok || registered.paths.includes(worktree)) {
        const removed = registered.ok
          ? await removeWorktree(git, repositoryRoot, worktree)
          : { ok: false as const, message: registered.message };
        if (!removed.ok) await keep(removed.message);
      }
      return unavailable(`could not create the worktree: ${created.message}`, verification);
    }

    let outcome: ScriptOutcome;
    const startedAt = new Date().toISOString();
    try {
      outcome = await prepareAndRun();
    } finally {
      // The group is gone; a process that left it (setsid) still carries the run's mark.
      const survivors = await stopMarkedProcesses((run) => run === runDir);
      const removed =
        survivors.length > 0
          ? {
              ok: false as const,
              message: `processes of the check could not be stopped: ${survivors.join(", ")}`,
            }
          : await removeWorktree(git, repositoryRoot, worktree);
      if (!removed.ok) await keep(removed.message);
    }
    // Changed during the run (and perhaps put back): ctime still shows it.
    const driftedDuring = outcome.ok ? dependenciesChanged() : undefined;
    if (driftedDuring)
      outcome = {
        ...unavailable(driftedDuring, verification),
        report: outcome.report,
        truncated: outcome.truncated,
      };
    await writeAtomically(join(runDir, "output.log"), outcome.report);
    await writeJson(join(runDir, "run.json"), {
      executable: "bash",
      arguments: ["-c", request.content, `${request.questId}/${request.checkId}`],
      directory: join(worktree, cwd),
      node: activeTools.node,
      npm: activeTools.npmCli ?? null,
      path: { kept: searchPath.kept, dropped: searchPath.dropped },
      startedAt,
      endedAt: new Date().toISOString(),
      exitCode: outcome.ok ? outcome.exitCode : null,
      signal: outcome.ok ? (outcome.signal ?? null) : null,
      termination: outcome.ok ? (outcome.exitCode === null ? "signal" : "exit") : outcome.kind,
      ...(outcome.ok ? {} : { message: outcome.message }),
      outputFile: "output.log",
      outputTruncated: outcome.truncated,
      containment: outcome.containment ?? null,
      ...(outcome.containmentNote ? { containmentNote: outcome.containmentNote } : {}),
      cleanup: verification.cleanup,
    });
    await writeJson(join(runDir, "provenance.json"), {
      ...verification,
      worktree,
      untracked: candidate.untracked,
    });
    if (!verification.cleanup.ok) return cleanupIncomplete(outcome, verification);
    return { ...outcome, verification };

    async function prepareAndRun(): Promise<ScriptOutcome> {
      // What git checked out is what git recorded in the worktree's index as it wrote each file:
      // a file written over since (a background process that found the worktree) differs from it.
      // Recorded first, compared with git's record next: a write on either side of the record is
      // caught by one of the two. From here on, only the paths the verifier writes itself (the
      // patch, the restores) may differ when the check starts.
      const checkedOut = recordGivenFiles(worktree);
      const intact = await checkedOutIntact(git, worktree, baseline);
      if (!intact.ok) return unavailable(intact.message, verification);
      const applied = await applyCandidate(git, worktree, patchFile, candidate.sha256);
      if (!applied.ok)
        return unavailable(
          `the candidate's changes do not apply to the baseline: ${applied.message}`,
          verification,
        );
      // Before anything is restored: exactly the files the candidate gave the run.
      const listing = await baselineListing();
      verification.fingerprint = listing.ok
        ? await fingerprintRun(worktree, listing.listing, candidate.paths, {
            repository: repositoryRoot,
            paths: candidate.leftOut ?? [],
          })
        : { ok: false, reason: `cannot list the baseline's files: ${listing.message}` };
      if (!baselineTexts) {
        const texts = await readBaselineTexts(git, repositoryRoot, baseline);
        if (!texts.ok)
          return unavailable(
            `could not restore the protected files: reading what the baseline's tests load failed (${texts.message})`,
            verification,
          );
        baselineTexts = texts.texts;
      }
      const texts = baselineTexts;
      const plan = planProtection({
        baselineFiles: baselineFiles ?? [],
        baselineManifest: (path) => manifests.get(path),
        run: request.content,
        cwd,
        oraclePaths: request.oraclePaths,
        baselineContent: (path) => texts.get(path),
        ...(scope ? { editable: scope } : {}),
      });
      if (plan.missingOracles.length > 0) {
        return unavailable(
          `oracle_paths must be files tracked at the baseline: ${plan.missingOracles.join(", ")}`,
          verification,
        );
      }
      const prepared = await protect(git, worktree, repositoryRoot, baseline, plan, (path) =>
        manifestBytes.get(path),
      );
      if (!prepared.ok)
        return unavailable(`could not restore the protected files: ${prepared.message}`, verification);
      verification.restored = prepared.value.restored;
      verification.manifestsMerged = prepared.value.manifestsMerged;
      verification.removedConfigs = prepared.value.removedConfigs;
      const written = new Set([
        ...candidate.paths,
        ...prepared.value.restored,
        ...prepared.value.manifestsMerged,
        ...prepared.value.removedConfigs,
      ]);
      // One record serves both comparisons: what changed since the checkout, and (after the run)
      // what changed while the check ran; no write can fall between two records.
      const given = recordGivenFiles(worktree);
      const tampered = compareGivenFiles(checkedOut, given).filter((path) => !written.has(path));
      if (tampered.length > 0)
        return unavailable(
          `files of the verifier's worktree changed after git checked them out and before the check ran (${listSome(tampered)}), and pi-quests did not change them; the check did not run on them`,
          verification,
        );
      const ran = await runScript({
        script: `${request.questId}/${request.checkId}`,
        content: request.content,
        cwd: join(worktree, cwd),
        timeoutMs: request.timeoutMs,
        ...(request.signal ? { signal: request.signal } : {}),
        env: {
          ...toolEnvironment(activeTools, searchPath.path),
          [RUN_VARIABLE]: runDir,
        },
      });
      const touched = changedGivenFiles(worktree, given);
      if (touched.length === 0) return ran;
      return {
        ...unavailable(
          `files pi-quests gave the check changed while it ran (${listSome(touched)}), by the check itself or by another process; the run may have judged other files than the candidate's, so its result is not used`,
          verification,
        ),
        report: ran.report,
        truncated: ran.truncated,
      };
    }
  };

  return {
    ok: true,
    verifier: { workspace, repositoryRoot, baseline, dataDir, run, recover },
  };
}
