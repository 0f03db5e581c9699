/**
 * Which `pi` a play runs: the Pi a runner starts, as Pi's entry script and its version. In order:
 *
 * 1. `PI_QUESTS_PI`: Pi's `cli.js`, or a link to it (the `pi` npm puts on PATH), or a folder of
 *    the package (`…/node_modules/@earendil-works/pi-coding-agent`);
 * 2. the `@earendil-works/pi-coding-agent` installed beside pi-quests, resolved from pi-quests'
 *    own module as Node would import it (a checkout's dev dependency, `npm i -D` of both in a
 *    project, or both installed with `npm i -g`: siblings in one node_modules);
 * 3. the `pi` on PATH, its link followed to the package it belongs to.
 *
 * The first one found is used, or refused: a Pi older than pi-quests supports (the range is
 * src/core/pi-versions.ts's), or a `PI_QUESTS_PI` that names no Pi. A newer Pi than tested runs;
 * the report names its version. The answer is always the package's
 * own `cli.js` (its package.json `bin.pi`), to be run with pi-quests' own Node
 * (`process.execPath`), never a `#!/usr/bin/env node` shim that could pick an older Node.
 */
import { readFileSync, realpathSync, statSync } from "node:fs";
import { delimiter, dirname, isAbsolute, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { piSupportOf, tooOldText, UPDATE_PI } from "../../core/pi-versions.ts";

export const PI_PACKAGE = "@earendil-works/pi-coding-agent";

export type PiBinary = {
  /** Pi's entry script, a real path. */
  cli: string;
  /** The package's version, from its package.json. */
  version: string;
  /** The package folder, a real path. */
  packageDir: string;
  /** How it was found. */
  source: "PI_QUESTS_PI" | "installed" | "PATH";
};

export type FoundPi = { ok: true; pi: PiBinary } | { ok: false; message: string };

export type FindPiOptions = {
  env: Record<string, string | undefined>;
  /** What a relative `PI_QUESTS_PI` is relative to. */
  cwd: string;
  /**
   * Resolves the Pi package's entry as pi-quests' own module would import it (a file: URL or a
   * path); throws when it is not installed. Default: `import.meta.resolve` from this module.
   */
  resolveInstalled?: () => string;
};

export function findPi(options: FindPiOptions): FoundPi {
  const named = options.env.PI_QUESTS_PI?.trim();
  if (named) {
    const path = resolve(options.cwd, named);
    const found = piAt(path, "PI_QUESTS_PI");
    if (!found) {
      return {
        ok: false,
        message: `PI_QUESTS_PI=${named} is not Pi: give the path of Pi's cli.js (in ${PI_PACKAGE}/dist/bundle/), a link to it, or the package's folder.`,
      };
    }
    return checked(found);
  }
  const installed = installedEntry(options.resolveInstalled ?? defaultResolve);
  const fromInstall = installed ? piAt(installed, "installed") : undefined;
  if (fromInstall) return checked(fromInstall);
  const onPath = findOnPath("pi", options.env.PATH);
  const fromPath = onPath ? piAt(onPath, "PATH") : undefined;
  if (fromPath) return checked(fromPath);
  const pathPi = onPath
    ? `the pi on PATH, ${onPath}, is not part of an installed ${PI_PACKAGE}`
    : "no pi on PATH";
  return {
    ok: false,
    message: `Pi was not found (no ${PI_PACKAGE} installed beside pi-quests, ${pathPi}): install it with npm install -g ${PI_PACKAGE}, or set PI_QUESTS_PI to Pi's cli.js.`,
  };
}

function checked(pi: PiBinary): FoundPi {
  if (piSupportOf(pi.version).kind !== "too-old") return { ok: true, pi };
  const then = `update it (${UPDATE_PI}), or set PI_QUESTS_PI to a newer Pi's cli.js.`;
  return { ok: false, message: tooOldText(`${pi.version} (${pi.cli})`, then) };
}

function defaultResolve(): string {
  return import.meta.resolve(PI_PACKAGE);
}

function installedEntry(resolveInstalled: () => string): string | undefined {
  try {
    const resolved = resolveInstalled();
    return resolved.startsWith("file:") ? fileURLToPath(resolved) : resolved;
  } catch {
    return undefined;
  }
}

/** The Pi that `path` (a file of the package, a link to one, or the package folder) belongs to. */
function piAt(path: string, source: PiBinary["source"]): PiBinary | undefined {
  let real: string;
  try {
    real = realpathSync(path);
  } catch {
    return undefined;
  }
  const packageDir = packageFolderOf(real);
  if (!packageDir) return undefined;
  const manifest = readManifest(packageDir);
  const bin =
    typeof manifest?.bin === "object" ? (manifest.bin as Record<string, unknown>).pi : manifest?.bin;
  if (typeof bin !== "string" || typeof manifest?.version !== "string") return undefined;
  let cli: string;
  try {
    cli = realpathSync(join(packageDir, bin));
  } catch {
    return undefined;
  }
  return { cli, version: manifest.version, packageDir, source };
}

/** The nearest folder at or above `path` whose package.json names Pi's package. */
function packageFolderOf(path: string): string | undefined {
  let dir = isDirectory(path) ? path : dirname(path);
  for (;;) {
    if (readManifest(dir)?.name === PI_PACKAGE) return dir;
    const parent = dirname(dir);
    if (parent === dir) return undefined;
    dir = parent;
  }
}

function readManifest(dir: string): Record<string, unknown> | undefined {
  try {
    const data = JSON.parse(readFileSync(join(dir, "package.json"), "utf8")) as unknown;
    return typeof data === "object" && data !== null ? (data as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}

/** The first `name` on `path` that is a file (executable or not: it is run with Node). */
function findOnPath(name: string, path: string | undefined): string | undefined {
  for (const dir of (path ?? "").split(delimiter)) {
    if (!isAbsolute(dir)) continue;
    const candidate = join(dir, name);
    try {
      if (statSync(candidate).isFile()) return candidate;
    } catch {
      // Not here.
    }
  }
  return undefined;
}
