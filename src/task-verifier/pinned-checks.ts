/**
 * Which pinned check a request names. The host pinned its checks when the quest started; a
 * request carries only the identity and the folder the engine resolved, so what runs is always
 * the pinned definition, whatever the quest file says by now.
 */
import { realpathSync } from "node:fs";
import { isAbsolute, relative, resolve, sep } from "node:path";
import type { IsolatedRunRequest } from "../verifier/probes.ts";
import type { PinnedCheck } from "./types.ts";

export type PinnedRun =
  | {
      ok: true;
      pinned: PinnedCheck;
      /** The check's folder in the repository, with `/` separators. */
      cwd: string;
    }
  | { ok: false; message: string };

export function pinnedRun(
  checks: readonly PinnedCheck[],
  request: IsolatedRunRequest,
  place: { workspace: string; repositoryRoot: string },
): PinnedRun {
  const name = `${request.questId}/${request.checkId}`;
  const pinned = checks.find(
    (entry) => entry.questId === request.questId && entry.check.id === request.checkId,
  );
  if (!pinned) return { ok: false, message: `${name} is not one of the checks pinned for this workspace` };
  const folder = pinnedFolder(place.workspace, pinned.check.cwd);
  if (real(folder) !== real(request.cwd))
    return {
      ok: false,
      message: `${name} runs in ${folder}, the folder pinned when the quest started, not in ${request.cwd}`,
    };
  const cwdInRepository = relative(place.repositoryRoot, folder);
  if (cwdInRepository.startsWith("..") || isAbsolute(cwdInRepository))
    return {
      ok: false,
      message: `the check's folder ${request.cwd} is outside the repository ${place.repositoryRoot}`,
    };
  return { ok: true, pinned, cwd: cwdInRepository.split(sep).join("/") };
}

/**
 * The pinned check's folder, as the engine resolves it: relative to the quest workspace, where
 * `{workspace}` and `{sandbox}` (a sandbox quest's workspace is its sandbox) name that workspace.
 * Other templates name folders outside the repository, which the caller refuses.
 */
function pinnedFolder(workspace: string, cwd: string | undefined): string {
  return resolve(workspace, (cwd ?? ".").replace(/^\{(workspace|sandbox)\}(?=\/|$)/, "."));
}

/** The same folder reached through a link (a workspace opened by a linked path) compares equal. */
function real(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return resolve(path);
  }
}
