/**
 * pi-quests' own package folder, found from one of its modules: the nearest folder at or above
 * the module's whose package.json is named pi-quests. The same answer from the TypeScript
 * sources of a checkout (src/core/…) and from the bundle of an installed package (dist/chunks/…),
 * where a module's depth below the root is not the one its source file had.
 */
import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";

export const PACKAGE_NAME = "pi-quests";

/** The package folder above `moduleDir` (a module's `import.meta.dirname`). Throws when none is. */
export function packageRoot(moduleDir: string): string {
  for (let dir = moduleDir; ; dir = dirname(dir)) {
    if (manifestName(dir) === PACKAGE_NAME) return dir;
    if (dirname(dir) === dir) {
      throw new Error(
        `no package.json named ${PACKAGE_NAME} at or above ${moduleDir}: pi-quests' files were moved out of their package; reinstall pi-quests`,
      );
    }
  }
}

/** The `version` of the package.json in `root`. */
export function packageVersion(root: string): string {
  const manifest = JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as { version?: unknown };
  if (typeof manifest.version !== "string") throw new Error(`${join(root, "package.json")} has no version`);
  return manifest.version;
}

function manifestName(dir: string): unknown {
  try {
    return (JSON.parse(readFileSync(join(dir, "package.json"), "utf8")) as { name?: unknown }).name;
  } catch {
    // No package.json here, or one that is not JSON: not pi-quests' either way.
    return undefined;
  }
}
