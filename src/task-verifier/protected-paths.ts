/**
 * What the candidate may not change, and only that: the rule a quest author reads
 * (docs/quest-format.md, "What a command check protects"). It is decided from the pinned
 * baseline alone, never from the candidate's copy. Put back from the baseline before the check
 * runs:
 *
 *   1. every `oracle_paths` entry (a file, or every file of a folder);
 *   2. the files the check's `run` names, and the files named by the package scripts it runs
 *      (`npm test`, `npm run x`, npm's `pre`/`post` hooks, recursively);
 *   3. test files by the test runners' conventions (`isTestSource`);
 *   4. test, lint and package configuration (`isConfigFile`), and the files a test runner's
 *      configuration names (a vitest `setupFiles` entry, a jest setup file);
 *   5. the build files of the build tools the commands run (`make test` reads the Makefile and
 *      what it `include`s): they are the command's configuration;
 *   6. in every package.json, the scripts and test configuration keys (PROTECTED_MANIFEST_KEYS).
 *
 * Nothing else. Any other file a test imports or sources (a helper `lib/assert.sh`, `calc.sh`,
 * `src/x.js`), wherever it lives, is the candidate's: the verifier never guesses which loaded
 * file is the code under test. A quest that wants more protected says `editable`, and then only
 * editable paths come from the candidate at all (candidate-scope.ts). Inside `editable`, rules 1
 * to 3, the configuration files of 4, and 6 still hold; the setup files of 4 and the build files
 * of 5 do not (a quest that lets the learner write the Makefile means it). `pi-quests lint` names
 * the files a check's tests load outside this rule (loaded-files.ts).
 */
import { posix } from "node:path";
import { fileWords, scriptsRunBy, shellWords } from "./command-words.ts";

export { fileWords, scriptsRunBy, shellWords } from "./command-words.ts";

/** Which rule protects a file, for the evidence: the numbers of the list above. */
export type ProtectionRule = "oracle" | "named" | "test" | "configuration" | "setup" | "build";

/** Why a file is protected: its rule, and what names it (the check, an npm script, a config, a command). */
export type Protection = { rule: ProtectionRule; by?: string };

/** Why a file the candidate added is removed before the run. */
export type Removal = "added_test" | "added_configuration" | "added_package_json";

export type ProtectionPlan = {
  /** Baseline files put back exactly as they were (a deleted one comes back). */
  restore: string[];
  /** package.json files whose scripts and configuration keys come back from the baseline. */
  manifests: string[];
  /** Whether a file the candidate added (the baseline has none there) is removed again. */
  removeIfAdded: (path: string) => boolean;
  /** Why such a file is removed; undefined when it stays. */
  removalOf: (path: string) => Removal | undefined;
  /** oracle_paths that are not tracked regular files at the baseline. */
  missingOracles: string[];
  /** Why each restored path is protected, for the evidence. */
  reasons: Record<string, Protection>;
  /**
   * Restored paths protected only because a command names them (not tests, configs or oracles):
   * their content comes back from the baseline, but the candidate's executable bit stays, so a
   * `chmod +x` the task asked for still counts.
   */
  keepCandidateMode: string[];
  /** The command lines the check runs: its `run` and the npm scripts it runs, each with its folder. */
  commands: Array<{ command: string; dir: string }>;
  /** Every baseline file those command lines name (whichever rule protects it first). */
  named: string[];
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
/** `x.test.js`, `x.spec.ts`, `x_test.go`, `x_spec.rb`, `test_x.py`, `conftest.py`, `x.bats`. */
const TEST_FILE =
  /^(.+\.(test|spec)\.[A-Za-z0-9]+|.+_(test|spec)\.[A-Za-z0-9]+|test_.+\.py|conftest\.py|.+\.bats)$/;
const CONFIG_FILE =
  /^((vitest|vite|jest|playwright|cypress|ava|babel|rollup|webpack|eslint|prettier|stylelint)\.(config|workspace)\.[cm]?[jt]s(on)?|karma\.conf\.[cm]?js|\.mocharc(\.[a-z]+)?|\.c8rc(\.json)?|\.nycrc(\.[a-z]+)?|\.eslintrc(\.[a-z]+)?|\.prettierrc(\.[a-z]+)?|biome\.jsonc?|tsconfig(\.[\w-]+)?\.json|jsconfig\.json|\.babelrc(\.[a-z]+)?|pytest\.ini|tox\.ini|setup\.cfg|pnpm-workspace\.yaml|lerna\.json|nx\.json|turbo\.json|\.npmrc|\.yarnrc(\.yml)?)$/;

/** A test by the runners' conventions: a file in a test folder at any depth, or named like a test. */
export function isTestSource(path: string): boolean {
  const parts = path.split("/");
  return parts.slice(0, -1).some((part) => TEST_FOLDERS.has(part)) || TEST_FILE.test(parts.at(-1) ?? "");
}

export function isConfigFile(path: string): boolean {
  return CONFIG_FILE.test(posix.basename(path));
}

/** Build tools a check's command may run, and the files each reads in its folder. */
export const BUILD_FILES: Record<string, readonly string[]> = {
  make: ["GNUmakefile", "makefile", "Makefile"],
  gmake: ["GNUmakefile", "makefile", "Makefile"],
  just: ["justfile", "Justfile", ".justfile"],
  rake: ["Rakefile", "rakefile", "Rakefile.rb", "rakefile.rb"],
  cmake: ["CMakeLists.txt"],
  ctest: ["CMakeLists.txt", "CTestTestfile.cmake"],
  ninja: ["build.ninja"],
  task: ["Taskfile.yml", "Taskfile.yaml"],
  mvn: ["pom.xml"],
  gradle: ["build.gradle", "build.gradle.kts", "settings.gradle", "settings.gradle.kts"],
  gradlew: ["build.gradle", "build.gradle.kts", "settings.gradle", "settings.gradle.kts"],
  cargo: ["Cargo.toml"],
  pytest: ["pytest.ini", "pyproject.toml", "setup.cfg", "tox.ini"],
  tox: ["tox.ini"],
  deno: ["deno.json", "deno.jsonc"],
};

/** The build files a command line's tools read (`make -C dir`, `make -f file` included). */
export function buildFilesOf(command: string, dir: string, files: ReadonlySet<string>): string[] {
  const found: string[] = [];
  for (const words of shellWords(command)) {
    words.forEach((word, index) => {
      const tool = posix.basename(word);
      // Own keys only: a word such as `constructor` names no build tool.
      const names = Object.hasOwn(BUILD_FILES, tool) ? BUILD_FILES[tool] : undefined;
      if (!names) return;
      const rest = words.slice(index + 1);
      let folder = dir;
      const explicit: string[] = [];
      rest.forEach((option, at) => {
        const value = rest[at + 1];
        if ((option === "-C" || option === "--directory") && value) folder = posix.join(dir, value);
        else if (option.startsWith("--directory=")) folder = posix.join(dir, option.slice(12));
        else if ((option === "-f" || option === "--file" || option === "--makefile") && value)
          explicit.push(value);
        else if (/^--(file|makefile)=/.test(option)) explicit.push(option.replace(/^--\w+=/, ""));
      });
      for (const name of [...names, ...explicit]) {
        const path = existing(posix.join(folder || ".", name), files);
        if (path !== undefined) found.push(path);
      }
    });
  }
  return found;
}

/** Test-runner configuration whose string literals may name a setup file. */
const RUNNER_CONFIG =
  /^((vitest|jest|playwright|cypress|ava)\.(config|workspace)\.[cm]?[jt]s(on)?|karma\.conf\.[cm]?js|\.mocharc(\.[a-z]+)?|pytest\.ini|tox\.ini|setup\.cfg)$/;
/** package.json keys that configure a test runner (their strings may name setup files). */
const RUNNER_MANIFEST_KEYS = ["jest", "vitest", "mocha", "ava", "c8", "nyc"];
const MAKE_FILE = /^(GNUmakefile|makefile|Makefile)$|\.mk$/;

/** Whether the rule reads a file's text (by its name): a test runner's configuration, a Makefile. */
export function readByTheRule(name: string): boolean {
  return RUNNER_CONFIG.test(name) || MAKE_FILE.test(name);
}

/** The files a Makefile `include`s (`include`, `-include`, `sinclude`), relative to its folder. */
export function makeIncludes(path: string, text: string, files: ReadonlySet<string>): string[] {
  if (!MAKE_FILE.test(posix.basename(path))) return [];
  const found: string[] = [];
  for (const match of text.matchAll(/^(?:-|s)?include[ \t]+(.+)$/gm))
    for (const word of (match[1] ?? "").trim().split(/\s+/)) {
      const included = existing(posix.join(posix.dirname(path), word), files);
      if (included !== undefined) found.push(included);
    }
  return found;
}

/**
 * The files a test runner's configuration names, each with the configuration that names it: a
 * string in a runner config, or in package.json's runner keys, that is exactly the name of a
 * baseline file (relative to the config's folder or the root; jest's `<rootDir>/` understood).
 */
export function setupFilesNamed(
  files: ReadonlySet<string>,
  content: (path: string) => string | undefined,
  manifest: (path: string) => Record<string, unknown> | undefined,
): Record<string, string> {
  const found: Record<string, string> = {};
  const add = (path: string, by: string) => {
    if (!(path in found)) found[path] = by;
  };
  for (const path of files) {
    const dir = posix.dirname(path);
    if (RUNNER_CONFIG.test(posix.basename(path))) {
      const text = content(path) ?? "";
      for (const match of text.matchAll(/(['"`])([^'"`\n]{1,300})\1|=[ \t]*([^\s#;'"]{1,300})/g))
        for (const named of namedBy(match[2] ?? match[3] ?? "", dir, files)) add(named, path);
    }
    if (posix.basename(path) === "package.json") {
      const parsed = manifest(path);
      for (const key of RUNNER_MANIFEST_KEYS)
        for (const text of stringsIn(parsed?.[key]))
          for (const named of namedBy(text, dir, files)) add(named, `"${key}" in ${path}`);
    }
  }
  return found;
}

/** A string from a config as the files it can name: relative to the config's folder, or the root. */
function namedBy(text: string, dir: string, files: ReadonlySet<string>): string[] {
  const cleaned = text.replace(/^<rootDir>\//, "").trim();
  if (cleaned === "" || cleaned.includes("*") || posix.isAbsolute(cleaned)) return [];
  // Exact names only: a folder (an alias to `./src`) must not pull in its index file.
  const tries = [posix.join(dir, cleaned), cleaned].map((path) => existing(path, files));
  return [...new Set(tries.filter((path): path is string => path !== undefined))];
}

/** Every string inside a JSON value (bounded by the value's size). */
function stringsIn(value: unknown): string[] {
  if (typeof value === "string") return [value];
  if (Array.isArray(value)) return value.flatMap(stringsIn);
  if (value !== null && typeof value === "object") return Object.values(value).flatMap(stringsIn);
  return [];
}

function existing(path: string, files: ReadonlySet<string>): string | undefined {
  const normalized = posix.normalize(path);
  return files.has(normalized) && !normalized.startsWith("../") ? normalized : undefined;
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
  /**
   * The baseline's bytes of a file as text, when the caller read them (bounded): a test
   * configuration's setup files and a Makefile's includes are read from them.
   */
  baselineContent?(path: string): string | undefined;
  /** With `editable`: the paths the candidate may change (see the rule above). */
  editable?(path: string): boolean;
};

export function planProtection(input: PlanInput): ProtectionPlan {
  const files = new Set(input.baselineFiles);
  const content = (path: string) => input.baselineContent?.(path);
  const editable = (path: string) => input.editable?.(path) ?? false;
  const reasons: Record<string, Protection> = {};
  const protect = (path: string, reason: Protection) => {
    if (files.has(path) && !(path in reasons)) reasons[path] = reason;
  };

  const manifests = input.baselineFiles.filter((path) => posix.basename(path) === "package.json");
  // 3 and 4: tests and configuration, wherever they are.
  for (const path of input.baselineFiles) {
    if (isTestSource(path)) protect(path, { rule: "test" });
    else if (isConfigFile(path)) protect(path, { rule: "configuration" });
  }

  // 2: files named by the check and by the package scripts it runs, recursively through `npm run`.
  const seenScripts = new Set<string>();
  const commands: Array<{ command: string; dir: string }> = [];
  const namedFiles = new Set<string>();
  const followCommand = (command: string, dir: string, by: string) => {
    commands.push({ command, dir });
    for (const word of fileWords(command)) {
      const path = posix.normalize(posix.join(dir, word));
      if (files.has(path)) namedFiles.add(path);
      protect(path, { rule: "named", by });
    }
    const manifestPath = nearestManifest(dir, files);
    if (manifestPath === undefined) return;
    const scripts = input.baselineManifest(manifestPath)?.scripts;
    if (scripts === null || typeof scripts !== "object") return;
    // npm runs `preX` and `postX` around `X`, so their files decide the verdict as well.
    for (const name of scriptsRunBy(command).flatMap((name) => [`pre${name}`, name, `post${name}`])) {
      const key = `${manifestPath}#${name}`;
      const script = (scripts as Record<string, unknown>)[name];
      if (seenScripts.has(key) || typeof script !== "string") continue;
      seenScripts.add(key);
      const folder = posix.dirname(manifestPath) === "." ? "" : posix.dirname(manifestPath);
      followCommand(script, folder, `npm script "${name}"`);
    }
  };
  followCommand(input.run, input.cwd, "the check");
  const named = Object.keys(reasons).filter((path) => reasons[path]?.rule === "named");

  // 1: oracles.
  const missingOracles: string[] = [];
  const oracles = new Set<string>();
  for (const oracle of input.oraclePaths) {
    const path = posix.normalize(oracle).replace(/\/$/, "");
    const inside = input.baselineFiles.filter((file) => file === path || file.startsWith(`${path}/`));
    if (inside.length === 0 || path.startsWith("../") || posix.isAbsolute(path)) missingOracles.push(oracle);
    for (const file of inside) {
      oracles.add(file);
      protect(file, { rule: "oracle" });
    }
  }

  // 5: build files of the tools the commands run, and what they include.
  const builds: Array<{ path: string; by: string }> = commands.flatMap(({ command, dir }) =>
    buildFilesOf(command, dir, files).map((path) => ({ path, by: command })),
  );
  const seenBuilds = new Set<string>();
  for (let next = builds.shift(); next !== undefined; next = builds.shift()) {
    if (seenBuilds.has(next.path) || editable(next.path)) continue;
    seenBuilds.add(next.path);
    protect(next.path, { rule: "build", by: next.by });
    const text = content(next.path);
    if (text !== undefined)
      for (const path of makeIncludes(next.path, text, files)) builds.push({ path, by: next.path });
  }
  // 4: the setup files a test configuration names.
  for (const [path, by] of Object.entries(setupFilesNamed(files, content, input.baselineManifest)))
    if (!editable(path)) protect(path, { rule: "setup", by });

  // npm runs the scripts of the nearest package.json: one the candidate adds in the check's
  // folder or above it (where the baseline has none) would take over `npm test`.
  const hijackingManifests = new Set<string>();
  const cwd = posix.normalize(input.cwd === "" ? "." : input.cwd).replace(/(.)\/+$/, "$1");
  for (let dir = cwd; ; dir = posix.dirname(dir)) {
    const path = dir === "." ? "package.json" : `${dir}/package.json`;
    if (files.has(path)) break;
    hijackingManifests.add(path);
    if (dir === "." || dir === "/" || dir.startsWith("..")) break;
  }
  // A test the candidate added (a new conftest.py, a *.test.js) would run beside the real ones.
  const removalOf = (path: string): Removal | undefined => {
    if (files.has(path)) return undefined;
    if (isConfigFile(path)) return "added_configuration";
    if (hijackingManifests.has(path)) return "added_package_json";
    if (isTestSource(path) && !editable(path)) return "added_test";
    return undefined;
  };

  return {
    restore: Object.keys(reasons).sort(),
    manifests,
    removeIfAdded: (path) => removalOf(path) !== undefined,
    removalOf,
    missingOracles,
    reasons,
    keepCandidateMode: named.filter((path) => !oracles.has(path)).sort(),
    commands,
    named: [...namedFiles].sort(),
  };
}

/** The package.json of `dir` or of the closest folder above it, at the baseline. */
function nearestManifest(dir: string, files: ReadonlySet<string>): string | undefined {
  let current = dir === "" ? "." : dir;
  for (;;) {
    const candidate = current === "." ? "package.json" : `${current}/package.json`;
    if (files.has(candidate)) return candidate;
    if (current === ".") return undefined;
    current = posix.dirname(current) || ".";
  }
}
