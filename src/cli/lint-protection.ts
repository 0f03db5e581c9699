/**
 * Lint's warning about what a command check leaves to the learner. Without `editable`, the
 * isolated verifier protects only what its rule names (src/task-verifier/protected-paths.ts):
 * every other file the check's tests load (a helper a test sources, the code under test) is the
 * learner's to change. An author who did not mean that should hear it before a learner does.
 *
 * Decided from the quest's sandbox template on disk, as the learner's repository will hold it
 * when the quest starts; a quest without a sandbox runs on a repository lint cannot see, so it
 * gets no warning. A warning never makes a quest invalid.
 */
import { type Dirent, lstatSync, readdirSync, readFileSync } from "node:fs";
import { join, posix } from "node:path";
import type { Diagnostic } from "../core/diagnostics.ts";
import { readYamlSource } from "../core/yaml-source.ts";
import { mayLoadFiles, type UnprotectedLoad, unprotectedLoads } from "../task-verifier/loaded-files.ts";
import { readByTheRule } from "../task-verifier/protected-paths.ts";
import { taskVerifierChecks } from "../verifier/checks/registry.ts";
import { readBounded } from "../verifier/loader.ts";
import type { Quest } from "../verifier/quest.ts";

/** How much of a template lint reads: files listed, bytes of one file read, bytes in all. */
const MAX_TEMPLATE_FILES = 20_000;
const MAX_FILE_BYTES = 256 * 1024;
const MAX_TOTAL_BYTES = 32 * 1024 * 1024;
/** How many files a warning names before "and N more". */
const SHOWN = 6;

type Template = {
  files: string[];
  texts: Map<string, string>;
  manifests: Map<string, Record<string, unknown> | undefined>;
};

/** The warnings for the quests of one lint path, located in their files. */
export async function protectionWarnings(quests: readonly Quest[]): Promise<Diagnostic[]> {
  const templates = new Map<string, Template>();
  const warnings: Diagnostic[] = [];
  for (const quest of quests) {
    if (quest.sandboxDir === undefined) continue;
    const problems: Array<{ path: PropertyKey[]; message: string }> = [];
    for (const check of taskVerifierChecks(quest.checks)) {
      // The quest's editable is the check's when it names none (the loader's withQuestDefaults).
      if (check.editable !== undefined) continue;
      const cwd = repositoryFolder(check.cwd);
      if (cwd === undefined) continue;
      let template = templates.get(quest.sandboxDir);
      if (!template) {
        template = readTemplate(quest.sandboxDir);
        templates.set(quest.sandboxDir, template);
      }
      const { texts, manifests } = template;
      const loads = unprotectedLoads({
        baselineFiles: template.files,
        baselineManifest: (path) => manifests.get(path),
        run: check.run,
        cwd,
        oraclePaths: check.oracle_paths,
        baselineContent: (path) => texts.get(path),
      });
      if (loads.length > 0)
        problems.push({ path: ["checks", quest.checks.indexOf(check), "run"], message: warningFor(loads) });
    }
    if (problems.length > 0) warnings.push(...(await locate(quest.source, problems)));
  }
  return warnings;
}

/** What the warning says: the files, what loads each, and the fix. */
export function warningFor(loads: readonly UnprotectedLoad[]): string {
  const shown = loads
    .slice(0, SHOWN)
    .map(({ path, loadedBy }) => `${path} (loaded by ${loadedBy})`)
    .join(", ");
  const more = loads.length > SHOWN ? ` and ${loads.length - SHOWN} more` : "";
  return (
    `without editable, the files this check's tests load are the learner's to change: ${shown}${more}; ` +
    "to protect them, give the quest `editable` listing what the learner may change"
  );
}

/** A check's `cwd` as a folder of the repository ("" the root); undefined when it names none there. */
export function repositoryFolder(cwd: string | undefined): string | undefined {
  const relative = (cwd ?? ".").replace(/^\{(workspace|sandbox)\}(\/|$)/, "");
  if (relative.startsWith("{") || posix.isAbsolute(relative)) return undefined;
  const folder = posix.normalize(relative === "" ? "." : relative).replace(/\/+$/, "");
  if (folder === ".." || folder.startsWith("../")) return undefined;
  return folder === "." ? "" : folder;
}

/** The template's files as a sandbox's first commit holds them, and the texts the analysis reads. */
function readTemplate(dir: string): Template {
  const template: Template = { files: [], texts: new Map(), manifests: new Map() };
  let total = 0;
  const visit = (folder: string) => {
    let entries: Dirent[];
    try {
      entries = readdirSync(join(dir, folder), { withFileTypes: true });
    } catch {
      return;
    }
    for (const entry of entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))) {
      if (template.files.length >= MAX_TEMPLATE_FILES) return;
      if (entry.name === ".git") continue;
      const path = folder === "" ? entry.name : `${folder}/${entry.name}`;
      if (entry.isDirectory()) {
        visit(path);
        continue;
      }
      if (!entry.isFile() && !entry.isSymbolicLink()) continue;
      template.files.push(path);
      // A link is copied as a link: its target is nothing the tests read through it here.
      if (!entry.isFile()) continue;
      const size = lstatSync(join(dir, path)).size;
      if (entry.name === "package.json") template.manifests.set(path, manifestAt(join(dir, path)));
      const read = mayLoadFiles(entry.name) || readByTheRule(entry.name);
      if (!read || size > MAX_FILE_BYTES || total + size > MAX_TOTAL_BYTES) continue;
      const bytes = readFileSync(join(dir, path));
      total += bytes.length;
      if (!bytes.includes(0)) template.texts.set(path, bytes.toString("utf8"));
    }
  };
  visit("");
  return template;
}

function manifestAt(file: string): Record<string, unknown> | undefined {
  try {
    const parsed = JSON.parse(readFileSync(file, "utf8"));
    return parsed !== null && typeof parsed === "object" && !Array.isArray(parsed) ? parsed : undefined;
  } catch {
    return undefined;
  }
}

/** The problems as diagnostics at their place in the quest file (the whole file if it cannot be read again). */
export async function locate(
  file: string,
  problems: ReadonlyArray<{ path: PropertyKey[]; message: string }>,
): Promise<Diagnostic[]> {
  const whole = problems.map(({ message }) => ({ file, line: 0, column: 0, message }));
  const read = await readBounded(file);
  if (!read.ok) return whole;
  const parsed = await readYamlSource(read.bytes.toString("utf8"), file);
  return parsed.ok ? parsed.source.diagnose(problems) : whole;
}
