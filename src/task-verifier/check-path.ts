/**
 * The PATH a check runs with. The learner's user (and so the agent) can write the workspace,
 * the home folder, the agent dir and the temp folders: a `node` or `grep` placed in a PATH
 * folder there would answer for the real one. Only folders outside all of them are kept (the
 * pinned Node's folder and the verifier's shims are put first by toolEnvironment); relative
 * entries, `.` and empty ones (the current folder, i.e. the candidate's files) are dropped.
 */
import { realpath } from "node:fs/promises";
import { homedir, tmpdir } from "node:os";
import { isAbsolute, resolve } from "node:path";
import { isInside } from "../core/paths.ts";

export type CheckPath = {
  /** The PATH entries kept, in order, joined by `:`. */
  path: string;
  kept: string[];
  dropped: Array<{ entry: string; why: string }>;
};

export type WritableFolders = {
  workspace: string;
  repositoryRoot: string;
  dataDir: string;
  env: Record<string, string | undefined>;
};

/** The folders the learner's user can write and a check's PATH must not reach into, each with its name. */
export function writableFolders({
  workspace,
  repositoryRoot,
  dataDir,
  env,
}: WritableFolders): Array<[string, string]> {
  const named: Array<[string, string | undefined]> = [
    ["the workspace", workspace],
    ["the repository", repositoryRoot],
    ["the home folder", env.HOME],
    ["the home folder", homedir()],
    ["the agent dir", env.PI_CODING_AGENT_DIR],
    ["pi-quests' data dir", dataDir],
    ["a temp folder", env.TMPDIR],
    ["a temp folder", tmpdir()],
    ["a temp folder", "/tmp"],
    ["a temp folder", "/var/tmp"],
    ["a temp folder", "/dev/shm"],
  ];
  // A home (or temp) of `/` would hold every folder: it names nothing useful to leave out.
  return named.flatMap(([why, folder]) =>
    folder && isAbsolute(folder) && resolve(folder) !== "/"
      ? [[why, resolve(folder)] as [string, string]]
      : [],
  );
}

export async function checkPath(basePath: string, folders: WritableFolders): Promise<CheckPath> {
  const writable = writableFolders(folders);
  // Their real paths too: a temp folder reached through a link (macOS /tmp) is still one.
  for (const [why, folder] of [...writable]) {
    const real = await realpath(folder).catch(() => undefined);
    if (real && real !== folder && real !== "/") writable.push([why, real]);
  }
  const kept: string[] = [];
  const dropped: CheckPath["dropped"] = [];
  for (const entry of basePath.split(":")) {
    if (!entry || !isAbsolute(entry)) {
      dropped.push({ entry, why: "not an absolute folder (it would mean the check's own folder)" });
      continue;
    }
    const real = await realpath(entry).catch(() => resolve(entry));
    const inside = writable.find(([, folder]) =>
      [resolve(entry), real].some((path) => isInside(path, folder)),
    );
    if (inside) dropped.push({ entry, why: `inside ${inside[0]} ${inside[1]}` });
    else if (!kept.includes(entry)) kept.push(entry);
  }
  return { path: kept.join(":"), kept, dropped };
}
