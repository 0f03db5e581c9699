/**
 * Opening the isolated task verifier: the workspace and its repository found, the baseline pinned
 * to a full object id, and the data dir's folders for this workspace made (never through a link,
 * never inside the repository).
 */
import { mkdir, realpath, writeFile } from "node:fs/promises";
import { isAbsolute, join } from "node:path";
import { isInside } from "../core/paths.ts";
import { workspaceHome } from "../core/workspace-key.ts";
import { createGitRunner, type GitRunner } from "../probes/git-runner.ts";
import type { TaskVerifierOptions, TaskVerifierProblem } from "./types.ts";
import { ensureRealFolder } from "./worktree.ts";

export type OpenedWorkspace = {
  ok: true;
  /** The workspace's real path. */
  workspace: string;
  repositoryRoot: string;
  /** The pinned baseline, a full object id. */
  baseline: string;
  /** The data dir's real path. */
  dataDir: string;
  /** This workspace's folder in the data dir. */
  home: string;
  git: GitRunner;
};

const bad = (kind: TaskVerifierProblem["kind"], message: string): TaskVerifierProblem => ({
  ok: false,
  kind,
  message,
});

export async function openWorkspace(
  options: TaskVerifierOptions,
): Promise<OpenedWorkspace | TaskVerifierProblem> {
  if (!isAbsolute(options.workspace))
    return bad("bad_options", `the workspace must be an absolute path (got ${options.workspace})`);
  if (!isAbsolute(options.dataDir))
    return bad("bad_options", `the data dir must be an absolute path (got ${options.dataDir})`);
  const workspace = await realpath(options.workspace).catch(() => undefined);
  if (!workspace) return bad("bad_options", `the workspace ${options.workspace} does not exist`);

  const git = createGitRunner({
    ...(options.gitBinary ? { gitBinary: options.gitBinary } : {}),
    ...(options.env ? { env: options.env } : {}),
  });
  const repository = await pinRepository(git, workspace, options.baseline ?? "HEAD");
  if (!repository.ok) return repository;
  const { repositoryRoot, baseline } = repository;

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
  const homeProblem = await makeHome(dataDir, home, workspace);
  if (homeProblem) return homeProblem;
  return { ok: true, workspace, repositoryRoot, baseline, dataDir, home, git };
}

/** The repository holding the workspace, and the baseline revision as a full object id. */
async function pinRepository(
  git: GitRunner,
  workspace: string,
  revision: string,
): Promise<{ ok: true; repositoryRoot: string; baseline: string } | TaskVerifierProblem> {
  const top = await git(["rev-parse", "--show-toplevel"], { cwd: workspace });
  if (!top.ok)
    return bad(
      "not_git",
      `${workspace} is not in a git repository, so isolation: worktree cannot run (${top.message})`,
    );
  const repositoryRoot = await realpath(top.stdout.toString("utf8").trim());
  const pinned = await git(["rev-parse", "--verify", "--quiet", "--end-of-options", `${revision}^{commit}`], {
    cwd: repositoryRoot,
  });
  if (!pinned.ok)
    return bad("unknown_baseline", `the baseline ${revision} does not name a commit in ${repositoryRoot}`);
  return { ok: true, repositoryRoot, baseline: pinned.stdout.toString("utf8").trim() };
}

/** The workspace's folders in the data dir (worktrees, runs) and the note saying whose they are. */
async function makeHome(
  dataDir: string,
  home: string,
  workspace: string,
): Promise<TaskVerifierProblem | undefined> {
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
  return undefined;
}
