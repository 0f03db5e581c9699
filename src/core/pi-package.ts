/**
 * Pi's package folder, as a command check is told it: `PI_QUESTS_PI_PACKAGE` in the check's
 * environment names the folder of the `@earendil-works/pi-coding-agent` pi-quests runs with (a
 * quest about Pi's SDK imports Pi from it). Only a folder whose package.json names Pi's package
 * and whose entry is there counts: a guess that is wrong is no folder at all.
 */
import { existsSync, readFileSync, realpathSync, statSync } from "node:fs";
import { dirname, join } from "node:path";

/** The variable a command check reads Pi's package folder from. */
export const PI_PACKAGE_VARIABLE = "PI_QUESTS_PI_PACKAGE";

const PI_PACKAGE_NAME = "@earendil-works/pi-coding-agent";

/** The environment a check gets for Pi's package: the variable set when the folder is known. */
export function piPackageEnvironment(piPackage: string | undefined): Record<string, string> {
  return piPackage === undefined ? {} : { [PI_PACKAGE_VARIABLE]: piPackage };
}

/**
 * The real folder of Pi's package that `path` (the package folder, a file in it such as its
 * `dist/bundle/cli.js`, or a link to one) belongs to: the nearest folder at or above it with a
 * package.json, when that names Pi's package and its `main` file exists; otherwise undefined (a
 * file of another package is not Pi's, even inside Pi's node_modules).
 */
export function piPackageFolderOf(path: string): string | undefined {
  let dir: string;
  try {
    const real = realpathSync(path);
    dir = statSync(real).isDirectory() ? real : dirname(real);
  } catch {
    return undefined;
  }
  for (;;) {
    const manifest = readManifest(dir);
    if (manifest !== undefined) return isPiPackage(dir, manifest) ? dir : undefined;
    const parent = dirname(dir);
    if (parent === dir) return undefined;
    dir = parent;
  }
}

function readManifest(dir: string): unknown {
  try {
    return JSON.parse(readFileSync(join(dir, "package.json"), "utf8"));
  } catch {
    // No package.json here (or one that is not JSON: no package either).
    return existsSync(join(dir, "package.json")) ? null : undefined;
  }
}

function isPiPackage(dir: string, manifest: unknown): boolean {
  if (typeof manifest !== "object" || manifest === null) return false;
  const { name, main } = manifest as { name?: unknown; main?: unknown };
  return name === PI_PACKAGE_NAME && typeof main === "string" && existsSync(join(dir, main));
}

/** The version in the package.json of Pi's package folder `dir`; undefined when it cannot be read. */
export function piPackageVersion(dir: string): string | undefined {
  const manifest = readManifest(dir);
  const version =
    typeof manifest === "object" && manifest !== null
      ? (manifest as { version?: unknown }).version
      : undefined;
  return typeof version === "string" ? version : undefined;
}
