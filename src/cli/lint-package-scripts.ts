/**
 * Lint's warning about a command check that runs a package script (`npm test`, `npm run hello`)
 * the learner's work cannot change. The isolated verifier restores package.json's `scripts` from
 * the baseline before it runs a check (the sandbox's template: docs/quest-format.md, "What a
 * command check protects"), so a script the learner adds or changes never runs there, even when
 * `editable` lists package.json: `npm run hello` fails with "Missing script" however well the
 * learner wrote it. An author who meant the learner's script to run should hear it from lint.
 *
 * Warned: a script the sandbox's package.json does not have (the check can never pass), and a
 * script of a package.json that `editable` lists (the learner's change to it is not what runs).
 * A quest without a sandbox is warned only in the second case: lint cannot see its baseline.
 */
import { readFileSync } from "node:fs";
import { join, posix } from "node:path";
import type { Diagnostic } from "../core/diagnostics.ts";
import { globMatcher } from "../core/glob.ts";
import { scriptsRunBy } from "../task-verifier/command-words.ts";
import { taskVerifierChecks } from "../verifier/checks/registry.ts";
import type { Quest } from "../verifier/quest.ts";
import { locate, repositoryFolder } from "./lint-protection.ts";

/** A package.json of the baseline, as lint finds it: where it is and its scripts (none when unreadable). */
type Manifest = { path: string; scripts: Record<string, unknown> } | undefined;

/** The warnings for the quests of one lint path, located at each check's `run`. */
export async function packageScriptWarnings(quests: readonly Quest[]): Promise<Diagnostic[]> {
  const warnings: Diagnostic[] = [];
  for (const quest of quests) {
    const problems: Array<{ path: PropertyKey[]; message: string }> = [];
    for (const check of taskVerifierChecks(quest.checks)) {
      const folder = repositoryFolder(check.cwd);
      if (folder === undefined) continue;
      const manifest = quest.sandboxDir === undefined ? undefined : nearestManifest(quest.sandboxDir, folder);
      const editable = check.editable === undefined ? undefined : globMatcher(check.editable);
      for (const script of new Set(scriptsRunBy(check.run))) {
        const message = scriptWarning(script, {
          sandboxed: quest.sandboxDir !== undefined,
          manifest,
          folder,
          editable,
        });
        if (message) problems.push({ path: ["checks", quest.checks.indexOf(check), "run"], message });
      }
    }
    if (problems.length > 0) warnings.push(...(await locate(quest.source, problems)));
  }
  return warnings;
}

type ScriptContext = {
  sandboxed: boolean;
  manifest: Manifest;
  /** The check's folder in the repository ("" the root). */
  folder: string;
  /** Whether a path is the learner's to change, when the check has an `editable`. */
  editable: ((path: string) => boolean) | undefined;
};

const RESTORED =
  "the verifier restores package.json's scripts from the sandbox before every run, so a learner's change to them never runs";

/** What lint says about one script the check runs, or nothing. */
export function scriptWarning(script: string, context: ScriptContext): string | undefined {
  const { sandboxed, manifest, folder, editable } = context;
  if (sandboxed) {
    const where = manifest?.path ?? posix.join(folder || ".", "package.json");
    if (!manifest || !Object.hasOwn(manifest.scripts, script))
      return (
        `runs the package script "${script}", which the sandbox's ${where} does not have: ${RESTORED}, ` +
        `so this check can never pass; add "${script}" to the sandbox's package.json, or put the command itself in run ` +
        `(to check a script the learner writes, read it with a json_path check on package.json, path $.scripts["${script}"])`
      );
  }
  const manifestPath = manifest?.path ?? posix.join(folder || ".", "package.json");
  if (editable?.(manifestPath))
    return (
      `runs the package script "${script}" of ${manifestPath}, which editable lists, but ${RESTORED}: ` +
      `what runs is the ${sandboxed ? "sandbox's" : "baseline's"} "${script}"; ` +
      `to check a script the learner writes, read it with a json_path check on package.json (path $.scripts["${script}"]) and put the command it should run in run`
    );
  return undefined;
}

/** The package.json npm would use for a script run in `folder`: the nearest one at or above it. */
function nearestManifest(templateDir: string, folder: string): Manifest {
  let current = folder;
  for (;;) {
    const path = current === "" ? "package.json" : `${current}/package.json`;
    const read = readScripts(join(templateDir, path));
    if (read !== "absent") return read === "unreadable" ? { path, scripts: {} } : { path, scripts: read };
    if (current === "") return undefined;
    const parent = posix.dirname(current);
    current = parent === "." ? "" : parent;
  }
}

function readScripts(file: string): Record<string, unknown> | "absent" | "unreadable" {
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch {
    return "absent";
  }
  try {
    const scripts = (JSON.parse(text) as { scripts?: unknown } | null)?.scripts;
    return typeof scripts === "object" && scripts !== null && !Array.isArray(scripts)
      ? (scripts as Record<string, unknown>)
      : {};
  } catch {
    return "unreadable";
  }
}
