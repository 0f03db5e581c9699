/**
 * What the candidate may not change: the files a check's verdict rests on. Everything here is
 * decided from the pinned baseline, never from the candidate's copy: the baseline's package
 * scripts say which files they run, the baseline's tree says which files are tests.
 */
import { dirname, posix } from "node:path";
import { loadedFiles } from "./loaded-files.ts";

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
  /**
   * Restored paths protected only because a command names them (not tests, configs or oracles):
   * their content comes back from the baseline, but the candidate's executable bit stays, so a
   * `chmod +x` the task asked for still counts.
   */
  keepCandidateMode: string[];
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

/**
 * A command line as shell words, one list per simple command: quotes and backslashes are
 * removed the way the shell removes them, and `;`, `&`, `|`, `(`, `)`, `<`, `>`, a backtick or a
 * newline outside quotes ends a simple command. `alsoSplitOn` characters end a word too (outside
 * quotes), so `--config=a.js` can yield `a.js`. Expansions are not performed: `$X` stays `$X`.
 */
export function shellWords(command: string, alsoSplitOn = ""): string[][] {
  const commands: string[][] = [[]];
  let word = "";
  let inWord = false;
  let quote: "'" | '"' | undefined;
  const endWord = () => {
    if (inWord) commands[commands.length - 1]?.push(word);
    word = "";
    inWord = false;
  };
  for (let i = 0; i < command.length; i++) {
    const char = command.charAt(i);
    const next = command.charAt(i + 1);
    if (quote === "'") {
      if (char === "'") quote = undefined;
      else word += char;
    } else if (quote === '"') {
      if (char === '"') quote = undefined;
      else if (char === "\\" && '"\\$`\n'.includes(next) && next !== "") {
        if (next !== "\n") word += next;
        i++;
      } else word += char;
    } else if (char === "'" || char === '"') {
      quote = char;
      inWord = true;
    } else if (char === "\\") {
      if (next !== "\n" && next !== "") {
        word += next;
        inWord = true;
      }
      i++;
    } else if (";&|()<>`\n".includes(char)) {
      endWord();
      if ((commands[commands.length - 1] ?? []).length > 0) commands.push([]);
    } else if (/\s/.test(char) || alsoSplitOn.includes(char)) {
      endWord();
    } else {
      word += char;
      inWord = true;
    }
  }
  endWord();
  return commands.filter((words) => words.length > 0);
}

/** npm's names for the lifecycle scripts it runs without `run`. */
const NPM_LIFECYCLE: Record<string, string> = {
  test: "test",
  t: "test",
  tst: "test",
  start: "start",
  stop: "stop",
  restart: "restart",
};
const RUN_SUBCOMMANDS = new Set(["run", "run-script", "rum", "urn"]);
/** Subcommands that run no package script (a word after them is not a script name). */
const NOT_SCRIPTS = new Set([
  "install",
  "i",
  "add",
  "ci",
  "exec",
  "x",
  "dlx",
  "remove",
  "uninstall",
  "update",
  "upgrade",
  "link",
  "init",
  "create",
  "publish",
  "pack",
  "config",
  "set",
  "get",
  "why",
  "list",
  "ls",
  "outdated",
  "audit",
  "version",
  "help",
  "cache",
  "workspace",
  "workspaces",
]);

/**
 * The package scripts a command line runs by name: `npm test` (and `npm t`, `npm tst`),
 * `npm run x` / `npm run-script x` (options such as `--silent` may come first), `pnpm run x`,
 * `yarn x`, `pnpm x`, and Node's own `node --run x`. npm's `pre`/`post` hooks are not listed
 * here; planProtection adds them.
 */
export function scriptsRunBy(command: string): string[] {
  const names: string[] = [];
  for (const words of shellWords(command)) {
    for (let i = 0; i < words.length; i++) {
      const tool = posix.basename(words[i] ?? "");
      if (tool === "node") {
        const at = words.indexOf("--run", i + 1);
        const name = words[at + 1];
        if (at > i && name !== undefined) names.push(name);
        const inline = words.slice(i + 1).find((word) => word.startsWith("--run="));
        if (inline) names.push(inline.slice("--run=".length));
        break;
      }
      if (tool !== "npm" && tool !== "pnpm" && tool !== "yarn") continue;
      // The first word after the tool that is not an option says what it does. An unknown word
      // after npm is most likely an option's value (`npm --prefix app test`): look further.
      for (let j = i + 1; j < words.length; j++) {
        const word = words[j] ?? "";
        if (word.startsWith("-")) continue;
        if (RUN_SUBCOMMANDS.has(word)) {
          const name = words.slice(j + 1).find((next) => !next.startsWith("-"));
          if (name !== undefined) names.push(name);
          break;
        }
        const lifecycle = NPM_LIFECYCLE[word];
        if (lifecycle !== undefined) {
          names.push(lifecycle);
          break;
        }
        if (NOT_SCRIPTS.has(word)) break;
        if (tool !== "npm") {
          names.push(word);
          break;
        }
      }
      break;
    }
  }
  return names;
}

/**
 * Words of a command line that could name files: shell words (quotes removed, so a quoted name
 * with spaces stays one word), also split on `=` and `,` outside quotes; options and `$`
 * expansions are left out.
 */
export function fileWords(command: string): string[] {
  return shellWords(command, "=,")
    .flat()
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
  /**
   * The baseline's bytes of a file as text, when the caller read them (bounded): the imports,
   * sources and includes found in them are protected too (src/task-verifier/loaded-files.ts).
   */
  baselineContent?(path: string): string | undefined;
  /**
   * With `editable`: the paths the candidate may change. The quest says what the work is, so
   * what the tests load is not protected inside it (it is the work), and a test added there stays.
   */
  editable?(path: string): boolean;
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
  const commands: Array<{ command: string; dir: string }> = [];
  const followCommand = (command: string, dir: string, origin: string) => {
    commands.push({ command, dir });
    for (const word of fileWords(command))
      protect(posix.normalize(posix.join(dir, word)), `named by ${origin}`);
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
      followCommand(
        script,
        posix.dirname(manifestPath) === "." ? "" : posix.dirname(manifestPath),
        `npm script "${name}"`,
      );
    }
  };
  followCommand(input.run, input.cwd, "the check");
  const named = Object.keys(reasons).filter((path) => reasons[path]?.startsWith("named by "));
  const missingOracles: string[] = [];
  const oracles = new Set<string>();
  for (const oracle of input.oraclePaths) {
    const path = posix.normalize(oracle).replace(/\/$/, "");
    const inside = input.baselineFiles.filter((file) => file === path || file.startsWith(`${path}/`));
    if (inside.length === 0 || path.startsWith("../") || posix.isAbsolute(path)) missingOracles.push(oracle);
    for (const file of inside) {
      oracles.add(file);
      protect(file, "oracle_paths");
    }
  }

  // What the tests and scripts load, the build files the commands read, the setup files configs name.
  const loaded = loadedFiles({
    files,
    content: (path) => input.baselineContent?.(path),
    protectedFiles: Object.keys(reasons),
    commands,
    manifest: (path) => input.baselineManifest(path),
  });
  for (const [path, reason] of Object.entries(loaded)) if (!input.editable?.(path)) protect(path, reason);

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

  return {
    restore: Object.keys(reasons).sort(),
    manifests,
    // A test the candidate added (a new conftest.py, a *.test.js) would run beside the real ones.
    removeIfAdded: (path) =>
      !files.has(path) &&
      (isConfigFile(path) ||
        hijackingManifests.has(path) ||
        (isTestSource(path) && !(input.editable?.(path) ?? false))),
    missingOracles,
    reasons,
    keepCandidateMode: named.filter((path) => !oracles.has(path)).sort(),
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
