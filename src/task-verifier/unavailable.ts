/** The outcome of a run the verifier refused or could not count, and how it names paths in it. */
import type { IsolationEvidence } from "../verifier/checks/command.ts";
import type { ScriptOutcome } from "../verifier/probes.ts";

export function unavailable(message: string, verification?: IsolationEvidence): ScriptOutcome {
  return {
    ok: false,
    kind: "unavailable",
    message,
    report: "",
    truncated: false,
    ...(verification ? { verification } : {}),
  };
}

/** A few paths for a sentence: the first five, and how many more. */
export const listSome = (paths: readonly string[]) =>
  paths.slice(0, 5).join(", ") + (paths.length > 5 ? ` and ${paths.length - 5} more` : "");
