/**
 * Where a quest's oracles come from. The isolated task verifier starts its worktree from the
 * oracle commit and restores tests, package scripts and other protected files from it. For a
 * sandbox quest that is the template's own commit, made when the sandbox was set up, so a
 * commit made during an earlier quest on the same sandbox (a test rewritten to `exit 0`) is
 * never an oracle. Without a sandbox it is the progress baseline, HEAD at activation.
 */
import { isFullObjectId } from "../core/object-id.ts";

export type OraclePin = { ok: true; commit: string | undefined } | { ok: false; message: string };

/** The commit the task verifier pins: the oracle baseline when given, else the progress baseline. */
export function oraclePin(options: { baseline?: string; oracleBaseline?: string }): OraclePin {
  const { oracleBaseline } = options;
  if (oracleBaseline === undefined) return { ok: true, commit: options.baseline };
  if (!isFullObjectId(oracleBaseline))
    return {
      ok: false,
      message: `the sandbox template's commit is recorded as "${oracleBaseline}", which is not a full commit id, so the quest's own tests cannot be found; not run`,
    };
  return { ok: true, commit: oracleBaseline };
}

/** Why command checks cannot run when the oracle commit is gone from the repository. */
export function oracleMissingMessage(oracleBaseline: string): string {
  return (
    `the sandbox template's commit ${oracleBaseline}, where this quest's tests come from, is no longer ` +
    "in this repository (its history was rewritten or garbage-collected), so command checks cannot run " +
    "against the quest's own tests; not run. Start the quest again in a new empty folder."
  );
}
