/**
 * What a test really loads, decided from the baseline's bytes alone (pure, bounded). A verdict
 * rests on more than the test files: the helpers a test or a script imports or sources, the
 * build file a `make test` reads, the setup file a test config names. Rewriting any of them
 * (`module.exports = () => true`) would turn the test green without the work, so they are
 * protected too.
 *
 * The code under test is imported by the tests as well, and it must stay the candidate's: an
 * import found by reading a file is not protected when it lies in a source folder (`src`,
 * `lib`, `app`, ...) or has the name of the test's subject (`calc.py` for `test_calc.py`,
 * `add.js` for `add.test.js`). A quest whose code under test lives elsewhere says `editable`.
 */
import { posix } from "node:path";
import { isTestSource, shellWords } from "./protected-paths.ts";

/** How far the search goes: files read, and import specifiers taken from one file. */
export const MAX_FILES_FOLLOWED = 2000;
const MAX_SPECIFIERS_PER_FILE = 500;

const SOURCE_FOLDERS = new Set(["src", "lib", "app", "source", "sources", "pkg", "internal", "cmd"]);
const JS_EXTENSIONS = [".js", ".cjs", ".mjs", ".ts", ".cts", ".mts", ".jsx", ".tsx", ".json"];
const SCRIPT_EXTENSION = /\.(sh|bash|py|[cm]?[jt]sx?|rb|pl)$/;

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

/** Test-runner configuration whose string literals may name a setup file. */
const RUNNER_CONFIG =
  /^((vitest|jest|playwright|cypress|ava)\.(config|workspace)\.[cm]?[jt]s(on)?|karma\.conf\.[cm]?js|\.mocharc(\.[a-z]+)?|pytest\.ini|tox\.ini|setup\.cfg)$/;
/** package.json keys that configure a test runner (their strings may name setup files). */
const RUNNER_MANIFEST_KEYS = ["jest", "vitest", "mocha", "ava", "c8", "nyc"];

export type LoadedFilesInput = {
  /** Every file tracked at the baseline. */
  files: ReadonlySet<string>;
  /** The baseline's bytes of a file as text, when they were read (bounded). */
  content(path: string): string | undefined;
  /** Files already protected (tests, configs, files the check names): their imports are followed. */
  protectedFiles: readonly string[];
  /** The commands the check runs, with the folder each runs in (repository-relative, "" the root). */
  commands: ReadonlyArray<{ command: string; dir: string }>;
  /** The baseline's package.json files, parsed. */
  manifest(path: string): Record<string, unknown> | undefined;
};

/** Files to protect, each with why: loaded by a test or a script, a build file, a setup file. */
export function loadedFiles(input: LoadedFilesInput): Record<string, string> {
  const found: Record<string, string> = {};
  const queue: string[] = [];
  const add = (path: string | undefined, reason: string) => {
    if (path === undefined || !input.files.has(path) || path in found) return;
    found[path] = reason;
    queue.push(path);
  };

  for (const { command, dir } of input.commands) {
    for (const file of buildFilesOf(command, dir, input.files)) add(file, `build file of "${command}"`);
    for (const file of shellSources(command, dir, input.files)) add(file, `sourced by "${command}"`);
  }
  for (const path of input.files) {
    if (RUNNER_CONFIG.test(posix.basename(path))) {
      for (const named of namedFiles(input.content(path) ?? "", posix.dirname(path), input.files))
        add(named, `named by the test configuration ${path}`);
    }
    if (posix.basename(path) === "package.json") {
      const manifest = input.manifest(path);
      for (const key of RUNNER_MANIFEST_KEYS) {
        for (const text of stringsIn(manifest?.[key]))
          for (const named of candidatesFor(text, posix.dirname(path), input.files))
            add(named, `named by "${key}" in ${path}`);
      }
    }
  }

  // Follow imports from everything protected, transitively, within the bound.
  const followed = new Set<string>();
  const pending = [...input.protectedFiles, ...queue.splice(0)];
  while (pending.length > 0 && followed.size < MAX_FILES_FOLLOWED) {
    const from = pending.shift() as string;
    if (followed.has(from)) continue;
    followed.add(from);
    const text = input.content(from);
    if (text === undefined) continue;
    for (const target of referencesOf(from, text, input.files)) {
      if (isCodeUnderTest(target, from)) continue;
      add(target, `loaded by ${from}`);
    }
    pending.push(...queue.splice(0));
  }
  return found;
}

/** Whether an imported file is the code a test exercises (the candidate's to change). */
export function isCodeUnderTest(path: string, importedBy: string): boolean {
  if (isTestSource(path)) return false;
  if (
    path
      .split("/")
      .slice(0, -1)
      .some((folder) => SOURCE_FOLDERS.has(folder))
  )
    return true;
  const subject = testSubject(posix.basename(importedBy));
  return subject !== undefined && stem(posix.basename(path)) === subject;
}

/** `add` for add.test.js, `calc` for test_calc.py or calc_test.go. */
function testSubject(name: string): string | undefined {
  const match =
    /^(.+)\.(test|spec)\.[cm]?[jt]sx?$/.exec(name) ??
    /^test_(.+)\.py$/.exec(name) ??
    /^(.+)_test\.(py|go)$/.exec(name);
  return match?.[1];
}

const stem = (name: string) => name.replace(/\.[^.]*$/, "");

/** The build files a command line's tools read (`make -C dir`, `make -f file` included). */
export function buildFilesOf(command: string, dir: string, files: ReadonlySet<string>): string[] {
  const found: string[] = [];
  for (const words of shellWords(command)) {
    words.forEach((word, index) => {
      const tool = posix.basename(word);
      const names = BUILD_FILES[tool];
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
      const inFolder = (name: string) => posix.normalize(posix.join(folder || ".", name));
      for (const name of [...names, ...explicit]) {
        const path = inFolder(name);
        if (files.has(path)) found.push(path);
      }
    });
  }
  return found;
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

/** String literals in a config's text that name a baseline file (relative to it, or the root). */
function namedFiles(text: string, dir: string, files: ReadonlySet<string>): string[] {
  const found: string[] = [];
  for (const match of text.matchAll(/(['"`])([^'"`\n]{1,300})\1|=[ \t]*([^\s#;'"]{1,300})/g)) {
    for (const named of candidatesFor(match[2] ?? match[3] ?? "", dir, files)) found.push(named);
  }
  return found;
}

/** A string from a config as the files it can name: relative to the config's folder, or the root. */
function candidatesFor(text: string, dir: string, files: ReadonlySet<string>): string[] {
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
