/**
 * What the candidate may not change: the files a check's verdict rests on. Everything here is
 * decided from the pinned baseline, never from the candidate's copy: the baseline's package
 * scripts say which files they run, the baseline's tree says which files are tests.
 */
import { dirname, posix } from "node:path";

export type ProtectionPlan = {
  /** Baseline files put back exactly as they were (a deleted one comes back). */
  restore: string[];
  /** package.json files whose scripts and configuration keys come back from the baseline. */
  manifests: string[];
  /** Configuration the candidate added where the baseline had none: removed again. */
  removeIfAdded: (path: string) => boolean;
  /** oracle_paths that are not tracked regular files at the baseline. */
  missingOracles: string[];
  /** Why each restored path is protected, for the evidence. */
  reasons: Record<string, string>;
};

/** package.json keys that decide what runs and how tests are configured. */
export const PROTECTED_MANIFEST_KEYS = [
  "scripts",
  "workspaces",
  "type",
  "main",
  "module",
  "exports",
  "imports",
  "jest",
  "vitest",
  "mocha",
  "ava",
  "c8",
  "nyc",
  "eslintConfig",
  "prettier",
  "babel",
] as const;

const TEST_FOLDERS = new Set([
  "test",
  "tests",
  "__tests__",
  "spec",
  "specs",
  "__snapshots__",
  "__mocks__",
  "fixtures",
  "__fixtures__",
]);
const TEST_FILE = /(\.(test|spec)\.[cm]?[jt]sx?$)|(^test_.*\.py$)|(_test\.(py|go)$)|(^conftest\.py$)/;
const CONFIG_FILE =
  /^((vitest|vite|jest|playwright|cypress|ava|babel|rollup|webpack|eslint|prettier|stylelint)\.(config|workspace)\.[cm]?[jt]s(on)?|karma\.conf\.[cm]?js|\.mocharc(\.[a-z]+)?|\.c8rc(\.json)?|\.nycrc(\.[a-z]+)?|\.eslintrc(\.[a-z]+)?|\.prettierrc(\.[a-z]+)?|biome\.jsonc?|tsconfig(\.[\w-]+)?\.json|jsconfig\.json|\.babelrc(\.[a-z]+)?|pytest\.ini|tox\.ini|setup\.cfg|pnpm-workspace\.yaml|lerna\.json|nx\.json|turbo\.json|\.npmrc|\.yarnrc(\.yml)?)$/;

export function isTestSource(path: string): boolean {
  const parts = path.split("/");
  return parts.slice(0, -1).some((part) => TEST_FOLDERS.has(part)) || TEST_FILE.test(parts.at(-1) ?? "");
}

export function isConfigFile(path: string): boolean {
  return CONFIG_FILE.test(posix.basename(path));
}

/** The npm scripts a command line runs: `npm test`, `npm run x`, `yarn x`, `pnpm run x`. */
export function scriptsRunBy(command: string): string[] {
  const names: string[] = [];
  const pattern =
    /\b(?:npm|pnpm|yarn)\s+(?:(?:run|run-script)\s+([\w:.-]+)|(test|start|stop|restart)\b)|\byarn\s+([\w:.-]+)/g;
  for (const match of command.matchAll(pattern)) {
    const name = match[1] ?? match[2] ?? match[3];
    if (name && !["run", "install", "add", "ci", "exec", "dlx"].includes(name)) names.push(name);
  }
  return names;
}

/** Words of a command line that could name files: split on shell syntax, quotes and `=`. */
export function fileWords(command: string): string[] {
  return command
    .split(/[\s;&|()<>=,`]+/)
    .map((word) => word.replace(/^['"]+|['"]+$/g, ""))
    .filter((word) => word.length > 0 && !word.startsWith("-") && !word.startsWith("$"));
}

export type PlanInput = {
  /** Every regular file, executable or symbolic link tracked at the baseline, repository-relative. */
  baselineFiles: readonly string[];
  /** The baseline's package.json at a path, parsed (undefined when it is absent or invalid). */
  baselineManifest(path: string): Record<string, unknown> | undefined;
  /** The check's script and its cwd (repository-relative, "" for the root). */
  run: string;
  cwd: string;
  oraclePaths: readonly string[];
};

export function planProtection(input: PlanInput): ProtectionPlan {
  const files = new Set(input.baselineFiles);
  const reasons: Record<string, string> = {};
  const protect = (path: string, reason: string) => {
    if (files.has(path) && !(path in reasons)) reasons[path] = reason;
  };

  const manifests = input.baselineFiles.filter((path) => posix.basename(path) === "package.json");
  for (const path of input.baselineFiles) {
    if (isTestSource(path)) protect(path, "test source");
    else if (isConfigFile(path)) protect(path, "test or package configuration");
  }

  // Files named by the check and by the package scripts it runs, recursively through `npm run`.
  const seenScripts = new Set<string>();
  const followCommand = (command: string, dir: string, origin: string) => {
    for (const word of fileWords(command))
      protect(posix.normalize(posix.join(dir, word)), `named by ${origin}`);
    const manifestPath = nearestManifest(dir, files);
    if (manifestPath === undefined) return;
    const scripts = input.baselineManifest(manifestPath)?.scripts;
    if (scripts === null || typeof scripts !== "object") return;
    for (const name of scriptsRunBy(command)) {
      const key = `${manifestPath}#${name}`;
      const script = (scripts as Record<string, unknown>)[name];
      if (seenScripts.has(key) || typeof script !== "string") continue;
      seenScripts.add(key);
      followCommand(
        script,
        posix.dirname(manifestPath) === "." ? "" : posix.dirname(manifestPath),
        `npm script "${name}"`,
      );
    }
  };
  followCommand(input.run, input.cwd, "the check");
  const missingOracles: string[] = [];
  for (const oracle of input.oraclePaths) {
    const path = posix.normalize(oracle).replace(/\/$/, "");
    const inside = input.baselineFiles.filter((file) => file === path || file.startsWith(`${path}/`));
    if (inside.length === 0 || path.startsWith("../") || posix.isAbsolute(path)) missingOracles.push(oracle);
    for (const file of inside) protect(file, "oracle_paths");
  }

  return {
    restore: Object.keys(reasons).sort(),
    manifests,
    removeIfAdded: (path) => isConfigFile(path) && !files.has(path),
    missingOracles,
    reasons,
  };
}

/** The package.json of `dir` or of the closest folder above it, at the baseline. */
function nearestManifest(dir: string, files: ReadonlySet<string>): string | undefined {
  let current = dir === "" ? "." : dir;
  for (;;) {
    const candidate = current === "." ? "package.json" : `${current}/package.json`;
    if (files.has(candidate)) return candidate;
    if (current === ".") return undefined;
    current = dirname(current) || ".";
  }
}
