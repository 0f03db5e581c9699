/**
 * Whether a checkout of pi-quests used as a Pi package is set up. A clone installed with
 * `pi install /path/to/clone` runs the TypeScript sources, and they import their libraries (zod,
 * yaml, re2js, ...) from the clone's node_modules. Pi installs nothing for a local path, and a
 * fresh clone has no node_modules, so without the setup command the extension's first import of
 * the engine failed as "Cannot find module 'zod'". This says instead which command to run, before
 * anything that needs a library is imported. The README's "Use it in Pi" gives the same command.
 *
 * The built package (what npm installs: dist/, the libraries inlined) is never asked: only the
 * sources import from node_modules.
 */
import { existsSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { packageRoot } from "../core/package-root.ts";

/** What installs a checkout's libraries, run in the checkout (README.md, "Use it in Pi"). */
export const SETUP_COMMAND = "npm ci";

/**
 * Undefined when the extension whose entry is `entryUrl` (its `import.meta.url`) can load its
 * libraries; otherwise the sentence for the learner, with the one command that sets it up.
 */
export function missingSetup(entryUrl: string): string | undefined {
  // The bundle (dist/, JavaScript) carries its libraries inlined: only the sources need node_modules.
  if (!entryUrl.endsWith(".ts")) return undefined;
  const root = packageRoot(dirname(fileURLToPath(entryUrl)));
  const declared = declaredPackages(root);
  const missing = declared.filter((name) => !existsSync(join(root, "node_modules", name, "package.json")));
  if (missing.length === 0) return undefined;
  return `pi-quests is not set up in ${root}: ${missing.length} of the ${declared.length} libraries its package.json names are not in node_modules. Run this once, then start Pi again: cd ${shellWord(root)} && ${SETUP_COMMAND}`;
}

/**
 * Every package the checkout's package.json names. All of them, not only the ones the extension
 * imports: that list would drift from the code, and the setup command installs them all. A
 * package folder under node_modules, not Node's resolution from above: a library some folder
 * above the clone happens to hold is not the locked version.
 */
function declaredPackages(root: string): string[] {
  const manifest = JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as {
    dependencies?: Record<string, string>;
    devDependencies?: Record<string, string>;
  };
  return [...Object.keys(manifest.dependencies ?? {}), ...Object.keys(manifest.devDependencies ?? {})];
}

/** `path` as one word for a POSIX shell: as it is when it needs no quoting, else single-quoted. */
function shellWord(path: string): string {
  return /^[\w@%+=:,./-]+$/.test(path) ? path : `'${path.replaceAll("'", `'\\''`)}'`;
}
