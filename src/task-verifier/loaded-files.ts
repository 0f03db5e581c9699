/**
 * What a check's tests really load, read from the baseline's bytes (pure, bounded): the files a
 * protected file (a test, a script the check runs, a build file) imports, sources or runs by a
 * relative path, transitively. None of it is protected for being loaded (protected-paths.ts has
 * the rule, and a loaded file is the candidate's unless the rule names it); `pi-quests lint` uses
 * this to tell an author which files a check without `editable` leaves to the learner.
 */
import { posix } from "node:path";
import { shellWords } from "./command-words.ts";
import { BUILD_FILES, type PlanInput, planProtection } from "./protected-paths.ts";

/** How far the search goes: files read, and import specifiers taken from one file. */
export const MAX_FILES_FOLLOWED = 2000;
const MAX_SPECIFIERS_PER_FILE = 500;

const JS_EXTENSIONS = [".js", ".cjs", ".mjs", ".ts", ".cts", ".mts", ".jsx", ".tsx", ".json"];
const SCRIPT_EXTENSION = /\.(sh|bash|py|[cm]?[jt]sx?|rb|pl)$/;

/** Files that can import, source or include others: the ones whose text is worth reading here. */
const MAY_LOAD = /(\.([cm]?[jt]sx?|vue|svelte|py|sh|bash|mk)$)|^(GNUmakefile|makefile|Makefile)$|^[^.]+$/;

/** Whether a file, by its name, may load others (a script without an extension included). */
export function mayLoadFiles(name: string): boolean {
  return MAY_LOAD.test(name);
}

/** A file a check's tests load that the protection rule leaves to the candidate. */
export type UnprotectedLoad = { path: string; loadedBy: string };

/** Programs that find and run test files themselves (their tests are not named on the command line). */
const TEST_RUNNERS = new Set([
  "vitest",
  "jest",
  "mocha",
  "ava",
  "tap",
  "tape",
  "pytest",
  "py.test",
  "bats",
  "rspec",
  "phpunit",
  "tox",
  "nox",
  "ctest",
]);

/**
 * Whether a command line may run tests it does not name: a test runner (`vitest`, `pytest`,
 * `python -m pytest`, `node --test`, `go test`, `cargo test`...) or a build tool, whose recipes
 * are the author's to read.
 */
export function runsTestsItFinds(command: string): boolean {
  return shellWords(command).some((words) =>
    words.some((word, index) => {
      const tool = posix.basename(word);
      const rest = words.slice(index + 1);
      if (TEST_RUNNERS.has(tool) || Object.hasOwn(BUILD_FILES, tool)) return true;
      if (/^(node|bun|deno)$/.test(tool)) return rest.includes("--test") || rest[0] === "test";
      if (/^python[\d.]*$/.test(tool)) return rest.includes("pytest") || rest.includes("unittest");
      return /^(go|cargo|dotnet|mvn|gradlew?|swift|zig)$/.test(tool) && rest.includes("test");
    }),
  );
}

/** A script's text that runs a test runner (`node --test`, `vitest`, `pytest`...) on files it finds. */
const RUNS_A_RUNNER = /--test\b|\b(vitest|jest|mocha|pytest|unittest|bats)\b/;

/**
 * The files a check (without `editable`) loads through what the rule protects, directly or
 * through other loaded files, that the rule does not protect: each with the first file found
 * loading it. What is followed: the files the check and its npm scripts name, its oracles, build
 * and setup files, and, when the check may run tests it finds itself (a command such as
 * `node --test`, `make test`, or a script it names that runs a test runner), every test and
 * configuration file too. Bounded: at most MAX_FILES_FOLLOWED files are read.
 */
export function unprotectedLoads(input: Omit<PlanInput, "editable">): UnprotectedLoad[] {
  const files = new Set(input.baselineFiles);
  const plan = planProtection(input);
  const findsTests =
    plan.commands.some(({ command }) => runsTestsItFinds(command)) ||
    plan.named.some((path) => RUNS_A_RUNNER.test(input.baselineContent?.(path) ?? ""));
  const found: UnprotectedLoad[] = [];
  // What the rule protects is followed, never listed.
  const seen = new Set<string>(plan.restore);
  const pending = plan.restore.filter((path) => {
    const rule = plan.reasons[path]?.rule;
    return findsTests || plan.named.includes(path) || (rule !== "test" && rule !== "configuration");
  });
  const followed = new Set<string>();
  while (pending.length > 0 && followed.size < MAX_FILES_FOLLOWED) {
    const from = pending.shift() as string;
    if (followed.has(from)) continue;
    followed.add(from);
    const text = input.baselineContent?.(from);
    if (text === undefined) continue;
    for (const target of referencesOf(from, text, files)) {
      if (seen.has(target)) continue;
      seen.add(target);
      found.push({ path: target, loadedBy: from });
      pending.push(target);
    }
  }
  return found.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}

/**
 * Files a file refers to by a relative path, resolved against the baseline's files: JavaScript
 * and TypeScript `require`, `import`, `import()`, `export ... from` (and `jest.mock`-style
 * calls); shell `source` and `.`; Python `import` and `from ... import` of a module next to it;
 * Makefile `include` and the scripts its recipes run.
 */
export function referencesOf(from: string, text: string, files: ReadonlySet<string>): string[] {
  const dir = posix.dirname(from);
  const name = posix.basename(from);
  const found: string[] = [];
  const take = (paths: Array<string | undefined>) => {
    for (const path of paths)
      if (path !== undefined && found.length < MAX_SPECIFIERS_PER_FILE) found.push(path);
  };

  if (/\.[cm]?[jt]sx?$/.test(name) || name.endsWith(".vue") || name.endsWith(".svelte")) {
    const specifiers =
      /\b(?:require|import|mock|requireActual|importActual|doMock)\s*\(\s*(['"`])(\.{1,2}\/[^'"`]*)\1|\b(?:from|import)\s*(['"])(\.{1,2}\/[^'"]*)\3/g;
    for (const match of text.matchAll(specifiers))
      take([resolveModule(dir, match[2] ?? match[4] ?? "", files)]);
  } else if (name.endsWith(".py")) {
    for (const match of text.matchAll(/^[ \t]*from[ \t]+(\.*)([\w.]*)[ \t]+import[ \t]+\(?([\w, \t]+)/gm)) {
      const [, dots = "", module = "", names = ""] = match;
      const base = dots.length > 1 ? posix.join(dir, ...Array(dots.length - 1).fill("..")) : dir;
      if (module) take(pythonModule(base, module, files, dots === ""));
      else for (const item of names.split(",")) take(pythonModule(base, item.trim(), files, false));
    }
    for (const match of text.matchAll(/^[ \t]*import[ \t]+([\w., \t]+)/gm)) {
      for (const item of (match[1] ?? "").split(","))
        take(pythonModule(dir, (item.trim().split(/\s+/)[0] ?? "").trim(), files, true));
    }
  } else if (/^(GNUmakefile|makefile|Makefile)$|\.mk$/.test(name)) {
    for (const match of text.matchAll(/^-?include[ \t]+(.+)$/gm))
      for (const word of (match[1] ?? "").trim().split(/\s+/)) take([existing(posix.join(dir, word), files)]);
    for (const match of text.matchAll(/^\t(.+)$/gm))
      for (const words of shellWords((match[1] ?? "").replace(/^[@+-]+/, "")))
        for (const word of words)
          if (SCRIPT_EXTENSION.test(word) && !word.includes("$"))
            take([existing(posix.join(dir, word), files)]);
  }
  // Shell: in .sh files, and in any file that starts with a shell's #! line.
  if (/\.(sh|bash)$/.test(name) || /^#!.*\b(ba|z|da)?sh\b/.test(text)) take(shellSources(text, dir, files));
  return [...new Set(found)];
}

/**
 * Files a shell script (or a check's `run`) reads with `source` or `.`, relative to the
 * script's folder or the folder it runs in. `source "$(dirname "$0")/lib.sh"` and
 * `. "$DIR/lib.sh"` name the file next to the script.
 */
export function shellSources(text: string, dir: string, files: ReadonlySet<string>): string[] {
  const found: string[] = [];
  for (const line of text.split("\n")) {
    for (const words of shellWords(line.replace(/(^|\s)#.*$/, ""))) {
      const [first, target] = words;
      if ((first !== "source" && first !== ".") || target === undefined) continue;
      const relativeTarget = target.replace(/^.*[)}]\//, "").replace(/^\$\w+\//, "");
      if (relativeTarget.includes("$")) continue;
      for (const path of [posix.join(dir || ".", relativeTarget), relativeTarget]) {
        const file = existing(path, files);
        if (file !== undefined && !found.includes(file)) found.push(file);
      }
    }
  }
  return found;
}

function existing(path: string, files: ReadonlySet<string>): string | undefined {
  const normalized = posix.normalize(path);
  return files.has(normalized) && !normalized.startsWith("../") ? normalized : undefined;
}

/** Node's and bundlers' resolution of a relative specifier, among the baseline's files. */
function resolveModule(dir: string, specifier: string, files: ReadonlySet<string>): string | undefined {
  const base = posix.normalize(posix.join(dir, specifier.replace(/[?#].*$/, "")));
  if (base.startsWith("../")) return undefined;
  const stripped = base.replace(/\.[cm]?js$/, "");
  const tries = [
    base,
    ...JS_EXTENSIONS.map((ext) => `${base}${ext}`),
    ...JS_EXTENSIONS.map((ext) => `${stripped}${ext}`),
    ...JS_EXTENSIONS.map((ext) => `${base}/index${ext}`),
  ];
  return tries.find((path) => files.has(path));
}

/** `a.b` as `a/b.py` or `a/b/__init__.py` from `base` (and from the root for an absolute import). */
function pythonModule(base: string, module: string, files: ReadonlySet<string>, alsoRoot: boolean): string[] {
  if (!/^[\w.]+$/.test(module)) return [];
  const path = module.split(".").join("/");
  const bases = alsoRoot && base !== "." ? [base, "."] : [base];
  return bases.flatMap((folder) =>
    [`${path}.py`, `${path}/__init__.py`].flatMap((tail) => existing(posix.join(folder, tail), files) ?? []),
  );
}
