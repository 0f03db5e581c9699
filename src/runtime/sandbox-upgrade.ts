/**
 * A sandbox upgrade: a folder pi-quests set up from one template (a returning learner's
 * `first-file`) gets a new template's files (`practice`) added on top, in one commit of
 * pi-quests' own, instead of being refused as "not empty". The one place pi-quests commits into
 * a learner's repository after set-up, so its rules are narrow (docs/security.md):
 *
 * 1. the recorded baseline is a commit pi-quests made: its author is pi-quests' identity and its
 *    message `Quest sandbox: ...`, and the folder is that repository's top;
 * 2. nothing the learner committed, changed or added since that baseline (tracked changes and
 *    untracked files) is, contains or lies inside a path of the new template, or is a test or
 *    configuration file (the task verifier's rules); no new template path is already there
 *    unless it is the baseline's, unchanged;
 * 3. then the template's files are copied in, only they are staged and committed (as pi-quests,
 *    `Quest sandbox: <new> (on top of <old>)`), and that commit is the new baseline: the
 *    learner's HEAD plus exactly the template's files, so later quests' oracles hold no test the
 *    learner made. A template whose files are already all there (one that moved) is recorded
 *    again with no commit.
 *
 * Otherwise nothing is written: the caller says what it says today ("needs an empty folder").
 */
import { copyFile, lstat, mkdir, readdir, readFile, realpath, rm, writeFile } from "node:fs/promises";
import { basename, dirname, join, posix, relative, sep } from "node:path";
import { createGitRunner } from "../probes/git-runner.ts";
import { isConfigFile, isTestSource } from "../task-verifier/protected-paths.ts";
import type { SandboxOutcome } from "./sandbox.ts";
import { SANDBOX_IDENTITY, sandboxCommitArgs } from "./sandbox-commit.ts";

/** The sandbox a workspace was set up from, as progress records it. */
export type SandboxRecord = { template: string; baseline: string };

export type UpgradeOptions = {
  template: string;
  workspace: string;
  questId: string;
  recorded: SandboxRecord;
  env?: Record<string, string | undefined>;
};

/** Why an upgrade was not made (nothing was written), or what went wrong while making it. */
type Refused = { ok: false; kind: "not_empty"; message: string };

type Git = (args: string[], okExitCodes?: readonly number[]) => Promise<{ stdout: string; exitCode: number }>;

export async function upgradeSandbox(options: UpgradeOptions): Promise<SandboxOutcome> {
  const { template, workspace, recorded } = options;
  const run = createGitRunner(options.env ? { env: options.env } : {});
  const git: Git = async (args, okExitCodes) => {
    const result = await run(args, { cwd: workspace, ...(okExitCodes ? { okExitCodes } : {}) });
    if (!result.ok) throw new Error(result.message);
    return { stdout: result.stdout.toString("utf8"), exitCode: result.exitCode };
  };
  let files: string[];
  try {
    files = await templateFiles(template);
    const refusal = await refusalOf(git, workspace, recorded.baseline, files);
    if (refusal) return refusal;
  } catch (error) {
    return refused(`the folder could not be read as a sandbox: ${firstLine(error)}`);
  }
  return addOnTop(git, options, files);
}

const refused = (message: string): Refused => ({ ok: false, kind: "not_empty", message });
const firstLine = (error: unknown) => (error as Error).message.split("\n")[0] ?? "";

/** Every file of the template, as a repository path (`/` separators), in a stable order. */
async function templateFiles(template: string): Promise<string[]> {
  const entries = await readdir(template, { recursive: true, withFileTypes: true });
  return entries
    .filter((entry) => entry.isFile())
    .map((entry) => relative(template, join(entry.parentPath, entry.name)).split(sep).join(posix.sep))
    .sort();
}

/** Why rules 1 and 2 refuse the upgrade, or undefined when they allow it. Reads only. */
async function refusalOf(
  git: Git,
  workspace: string,
  baseline: string,
  files: readonly string[],
): Promise<Refused | undefined> {
  const top = (await git(["rev-parse", "--show-toplevel"])).stdout.trim();
  if ((await realpath(top)) !== (await realpath(workspace)))
    return refused(`the folder is inside another repository (${top})`);
  const commit = await git(["cat-file", "-e", `${baseline}^{commit}`], [0, 1, 128]);
  if (commit.exitCode !== 0) return refused(`the sandbox's commit ${baseline} is not in this repository`);
  const [name, email, subject] = (await git(["log", "-1", "--format=%an%x00%ae%x00%s", baseline])).stdout
    .trimEnd()
    .split("\0");
  if (
    name !== SANDBOX_IDENTITY.name ||
    email !== SANDBOX_IDENTITY.email ||
    !subject?.startsWith("Quest sandbox: ")
  )
    return refused(`the commit ${baseline} is not a sandbox pi-quests set up`);
  const changed = [
    ...splitZ((await git(["diff", "--name-only", "--no-renames", "-z", baseline, "--"])).stdout),
    ...splitZ((await git(["ls-files", "--others", "--exclude-standard", "-z"])).stdout),
  ];
  const overlap = changed.find((path) => files.some((file) => overlaps(path, file)));
  if (overlap)
    return refused(`${overlap} changed since the sandbox was set up, and the new files include it`);
  const protectedPath = changed.find((path) => isTestSource(path) || isConfigFile(path));
  if (protectedPath)
    return refused(`${protectedPath}, a test or configuration file, changed since the sandbox was set up`);
  const atBaseline = new Set(
    splitZ((await git(["ls-tree", "-r", "-z", "--name-only", baseline, "--", ...files])).stdout),
  );
  for (const file of files) {
    if (atBaseline.has(file)) continue;
    // Not the baseline's and not listed as changed: an ignored file, or a folder in its way.
    const inTheWay = await firstThere(workspace, file);
    if (inTheWay) return refused(`${inTheWay} is already there, and the new files include ${file}`);
  }
  return undefined;
}

const splitZ = (text: string) => text.split("\0").filter((path) => path !== "");

/** Whether one path is the other or lies inside it. */
const overlaps = (a: string, b: string) => a === b || a.startsWith(`${b}/`) || b.startsWith(`${a}/`);

/** The file, or the first of its folders that exists as something else than a folder. */
async function firstThere(workspace: string, file: string): Promise<string | undefined> {
  const parts = file.split("/");
  for (let i = 1; i <= parts.length; i++) {
    const path = parts.slice(0, i).join("/");
    const info = await lstat(join(workspace, path)).catch(() => undefined);
    if (!info) return undefined;
    if (i === parts.length || !info.isDirectory()) return path;
  }
  return undefined;
}

/** Rule 3: the files copied in, staged alone and committed; a failure puts the folder back. */
async function addOnTop(
  git: Git,
  options: UpgradeOptions,
  files: readonly string[],
): Promise<SandboxOutcome> {
  const { template, workspace, recorded } = options;
  const before = new Map<string, Buffer | undefined>();
  try {
    for (const file of files) {
      const target = join(workspace, file);
      before.set(file, await readFile(target).catch(() => undefined));
      await mkdir(dirname(target), { recursive: true });
      // As `cp` copies a template: the bytes and the mode.
      await copyFile(join(template, file), target);
    }
    await git(["add", "--", ...files]);
    const staged = await git(["diff", "--cached", "--quiet", "HEAD", "--", ...files], [0, 1]);
    // Every file already as the template has it (a template that moved): recorded again, no commit.
    if (staged.exitCode === 0) return { ok: true, baseline: recorded.baseline };
    const message = `Quest sandbox: ${basename(template)} (on top of ${basename(recorded.template)})`;
    await git(sandboxCommitArgs(message, files));
    const head = (await git(["rev-parse", "--verify", "HEAD^{commit}"])).stdout.trim();
    return { ok: true, baseline: head, upgraded: { from: basename(recorded.template), commit: message } };
  } catch (error) {
    await putBack(git, workspace, before);
    return {
      ok: false,
      kind: "failed",
      message: `could not add the practice files for "${options.questId}": ${firstLine(error)}`,
    };
  }
}

/** The files as they were before a failed upgrade; the index entries of those paths as HEAD has them. */
async function putBack(git: Git, workspace: string, before: ReadonlyMap<string, Buffer | undefined>) {
  for (const [file, bytes] of before) {
    const target = join(workspace, file);
    if (bytes === undefined) await rm(target, { force: true }).catch(() => undefined);
    else await writeFile(target, bytes).catch(() => undefined);
  }
  await git(["reset", "--quiet", "--", ...before.keys()]).catch(() => undefined);
}
