/**
 * A quest's sandbox: its template folder copied into the learner's empty folder, made a git
 * repository, and the copy committed as the baseline. A folder that is not empty is never
 * touched (the caller tells the learner how to get an empty one), but for one case: the folder is a
 * sandbox pi-quests set up from another template, and the new template's files can be added on
 * top without touching anything the learner did (`upgradeSandbox`, sandbox-upgrade.ts).
 */
import { cp, readdir, rm } from "node:fs/promises";
import { basename, join } from "node:path";
import { createGitRunner } from "../probes/git-runner.ts";
import { sandboxCommitArgs } from "./sandbox-commit.ts";
import { type SandboxRecord, upgradeSandbox } from "./sandbox-upgrade.ts";

export type SandboxOutcome =
  | {
      ok: true;
      baseline: string;
      /**
       * Set when the files were added on top of another template's sandbox: that template's
       * name and the message of pi-quests' commit.
       */
      upgraded?: { from: string; commit: string };
      /** Set when the template was copied into the empty folder: that folder, and the template's top-level entries, sorted. */
      copied?: { into: string; entries: string[] };
    }
  | { ok: false; kind: "not_empty" | "failed"; message: string };

export { type SandboxRecord, upgradeSandbox };

export async function prepareSandbox(options: {
  template: string;
  workspace: string;
  questId: string;
  env?: Record<string, string | undefined>;
  /** The sandbox this folder was set up from, as progress records it. */
  recorded?: SandboxRecord;
}): Promise<SandboxOutcome> {
  const { template, workspace, questId } = options;
  const entries = await readdir(workspace);
  if (entries.length > 0 && options.recorded && options.recorded.template !== template) {
    const upgraded = await upgradeSandbox({ ...options, recorded: options.recorded });
    if (upgraded.ok || upgraded.kind === "failed") return upgraded;
  }
  if (entries.length > 0) {
    const shown = entries.slice(0, 3).join(", ") + (entries.length > 3 ? ", …" : "");
    return {
      ok: false,
      kind: "not_empty",
      message:
        `"${questId}" sets up a practice folder, and this folder is not empty (${shown}), so nothing was ` +
        "copied or changed.",
    };
  }
  const run = createGitRunner(options.env ? { env: options.env } : {});
  const git = async (args: string[], call: { userConfig?: boolean } = {}) => {
    const result = await run(args, { cwd: workspace, ...call });
    if (!result.ok) throw new Error(result.message);
    return { stdout: result.stdout.toString("utf8") };
  };
  const copied: string[] = [];
  try {
    for (const entry of await readdir(template)) {
      copied.push(entry);
      await cp(join(template, entry), join(workspace, entry), {
        recursive: true,
        errorOnExist: true,
        force: false,
      });
    }
    await git(["init", "--quiet"]);
    // The learner's commits need an author; a machine without one gets a local placeholder.
    // Only this question reads the user's own configuration: it runs no program.
    const email = await git(["config", "user.email"], { userConfig: true }).then(
      (run) => run.stdout.trim(),
      () => "",
    );
    if (email === "") {
      await git(["config", "user.name", "Pi Quests learner"]);
      await git(["config", "user.email", "learner@pi-quests.localhost"]);
    }
    await git(["add", "--all"]);
    await git(sandboxCommitArgs(`Quest sandbox: ${basename(template)}`));
    const head = await git(["rev-parse", "--verify", "HEAD^{commit}"]);
    return {
      ok: true,
      baseline: head.stdout.trim(),
      copied: { into: workspace, entries: [...copied].sort() },
    };
  } catch (error) {
    // The folder was empty: leave it empty again, so the learner can simply retry.
    for (const entry of [...copied, ".git"])
      await rm(join(workspace, entry), { recursive: true, force: true });
    return {
      ok: false,
      kind: "failed",
      message: `could not set up the practice folder for "${questId}": ${(error as Error).message.split("\n")[0]}`,
    };
  }
}
