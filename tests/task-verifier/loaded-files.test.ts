/**
 * What a test really loads, planned from the baseline's bytes alone: relative imports and
 * sources (transitively, bounded), build files of the commands, setup files a test config
 * names; the code under test is not protected by these rules.
 */
import { describe, expect, it } from "vitest";
import {
  buildFilesOf,
  isCodeUnderTest,
  loadedFiles,
  MAX_FILES_FOLLOWED,
  referencesOf,
  shellSources,
} from "../../src/task-verifier/loaded-files.ts";
import { planProtection } from "../../src/task-verifier/protected-paths.ts";

const set = (...paths: string[]) => new Set(paths);

describe("referencesOf: the files a file loads by a relative path", () => {
  const files = set(
    "test/helper.js",
    "test/util/index.ts",
    "lib/a.ts",
    "setup.mjs",
    "data.json",
    "pkg/__init__.py",
    "pkg/mod.py",
    "tests/helpers.py",
    "tests/sib.py",
    "scripts/lib.sh",
    "scripts/more.sh",
    "build/rules.mk",
    "scripts/run.py",
  );

  it("JavaScript and TypeScript: require, import, import(), export from, side-effect import, mocks", () => {
    const text = [
      'const h = require("./helper.js");',
      'import { x } from "./util";',
      'export * from "../lib/a.js";',
      'import "../setup.mjs";',
      'const d = await import("../data.json");',
      'vi.mock("./helper");',
      'require("fs"); import y from "vitest";',
      'require("./missing.js");',
    ].join("\n");
    expect(referencesOf("test/a.test.ts", text, files).sort()).toEqual([
      "data.json",
      "lib/a.ts",
      "setup.mjs",
      "test/helper.js",
      "test/util/index.ts",
    ]);
  });

  it("Python: import and from-import of a module next to the file, packages and relative dots", () => {
    const text =
      "import helpers, os\nfrom sib import thing\nfrom . import sib\nfrom ..pkg import mod\nfrom pkg.mod import f\n";
    expect(referencesOf("tests/test_x.py", text, files).sort()).toEqual([
      "pkg/__init__.py",
      "pkg/mod.py",
      "tests/helpers.py",
      "tests/sib.py",
    ]);
  });

  it('shell: source and . next to the script, through $(dirname "$0") and $DIR', () => {
    const text =
      '#!/bin/bash\nsource "$(dirname "$0")/lib.sh"\n. "$DIR/more.sh" # comment\nsource "$UNKNOWN"\n';
    expect(referencesOf("scripts/check", text, files).sort()).toEqual(["scripts/lib.sh", "scripts/more.sh"]);
    expect(shellSources("source scripts/lib.sh && run", "", files)).toEqual(["scripts/lib.sh"]);
  });

  it("Makefile: include, and the scripts its recipes run", () => {
    const text = "include build/rules.mk\ntest:\n\t@python3 scripts/run.py --fast\n\techo $(CC)\n";
    expect(referencesOf("Makefile", text, files).sort()).toEqual(["build/rules.mk", "scripts/run.py"]);
  });

  it("never leaves the repository", () => {
    expect(referencesOf("a.test.js", 'require("../../etc/passwd")', set("etc/passwd"))).toEqual([]);
  });
});

describe("buildFilesOf: the build files a command's tools read", () => {
  const files = set(
    "Makefile",
    "sub/GNUmakefile",
    "other.mk",
    "justfile",
    "CMakeLists.txt",
    "Rakefile",
    "pyproject.toml",
  );
  it.each([
    ["make test", "", ["Makefile"]],
    ["make -C sub test", "", ["sub/GNUmakefile"]],
    ["make --directory=sub", "", ["sub/GNUmakefile"]],
    ["make -f other.mk test", "", ["Makefile", "other.mk"]],
    ["/usr/bin/make check", "", ["Makefile"]],
    ["just test", "", ["justfile"]],
    ["cmake -S . -B out && ctest", "", ["CMakeLists.txt", "CMakeLists.txt"]],
    ["rake spec", "", ["Rakefile"]],
    ["python3 -m pytest -q", "", ["pyproject.toml"]],
    ["pytest -q", "", ["pyproject.toml"]],
    // Any word naming the tool counts: protecting a build file too often costs nothing.
    ["echo make", "", ["Makefile"]],
    ["node test.js", "", []],
  ])("%s", (command, dir, expected) => {
    expect(buildFilesOf(command, dir, files)).toEqual(expected);
  });
});

describe("isCodeUnderTest: what a test imports but the candidate may change", () => {
  it.each([
    ["src/add.js", "test/add.test.js", true],
    ["lib/deep/x.ts", "test/x.test.ts", true],
    ["calc.py", "test_calc.py", true],
    ["calc.py", "calc_test.py", true],
    ["add.js", "add.test.js", true],
    ["helpers/expect.js", "test/add.test.js", false],
    ["helpers.py", "test_calc.py", false],
    ["src/__mocks__/fs.js", "test/a.test.js", false],
    ["scripts/assert.sh", "scripts/check.sh", false],
  ])("%s imported by %s: %s", (path, importedBy, expected) => {
    expect(isCodeUnderTest(path, importedBy)).toBe(expected);
  });
});

describe("loadedFiles", () => {
  it("follows imports transitively from the protected files, skipping the code under test", () => {
    const contents: Record<string, string> = {
      "test/add.test.js": 'require("../helpers/a.js"); require("../src/add.js");',
      "helpers/a.js": 'require("./b.js");',
      "helpers/b.js": 'require("../src/add.js");',
      "src/add.js": 'require("../helpers/c.js");',
    };
    const files = set(...Object.keys(contents), "helpers/c.js");
    const found = loadedFiles({
      files,
      content: (path) => contents[path],
      protectedFiles: ["test/add.test.js"],
      commands: [],
      manifest: () => undefined,
    });
    expect(found).toEqual({
      "helpers/a.js": "loaded by test/add.test.js",
      "helpers/b.js": "loaded by helpers/a.js",
    });
  });

  it("setup files a test config or package.json's jest key names, exactly as written", () => {
    const contents: Record<string, string> = {
      "vitest.config.ts":
        'export default { test: { setupFiles: ["./setup/globals.ts"], alias: { "@": "./src" } } }',
      "pytest.ini": "[pytest]\naddopts = -p plugins.checks\n",
    };
    const files = set(
      ...Object.keys(contents),
      "setup/globals.ts",
      "src/index.ts",
      "jest.setup.js",
      "package.json",
    );
    const found = loadedFiles({
      files,
      content: (path) => contents[path],
      protectedFiles: [],
      commands: [],
      manifest: () => ({ jest: { setupFilesAfterEach: ["<rootDir>/jest.setup.js"] }, main: "src/index.ts" }),
    });
    expect(found).toEqual({
      "setup/globals.ts": "named by the test configuration vitest.config.ts",
      "jest.setup.js": 'named by "jest" in package.json',
    });
  });

  it("is bounded: an import chain longer than the bound is not followed to its end", () => {
    const count = MAX_FILES_FOLLOWED + 50;
    const name = (i: number) => `chain/m${i}.js`;
    const files = set(...Array.from({ length: count }, (_, i) => name(i)));
    const found = loadedFiles({
      files,
      content: (path) => `require("./m${Number(path.slice(7, -3)) + 1}.js")`,
      protectedFiles: [name(0)],
      commands: [],
      manifest: () => undefined,
    });
    expect(Object.keys(found).length).toBeLessThanOrEqual(MAX_FILES_FOLLOWED);
    expect(Object.keys(found).length).toBeGreaterThan(100);
  });
});

describe("planProtection with the baseline's content", () => {
  it("restores the helper, the Makefile and the sourced script; keeps the code under test the candidate's", () => {
    const contents: Record<string, string> = {
      "test/add.test.js": 'require("../helpers/eq.js"); require("../src/add.js");',
      Makefile: "test:\n\tbash scripts/check.sh\n",
      "scripts/check.sh": "source scripts/assert.sh\n",
    };
    const result = planProtection({
      baselineFiles: [...Object.keys(contents), "helpers/eq.js", "src/add.js", "scripts/assert.sh"],
      baselineManifest: () => undefined,
      run: "make test",
      cwd: "",
      oraclePaths: [],
      baselineContent: (path) => contents[path],
    });
    expect(result.restore).toEqual([
      "Makefile",
      "helpers/eq.js",
      "scripts/assert.sh",
      "scripts/check.sh",
      "test/add.test.js",
    ]);
    expect(result.reasons).toMatchObject({
      Makefile: 'build file of "make test"',
      "helpers/eq.js": "loaded by test/add.test.js",
      "scripts/check.sh": "loaded by Makefile",
      "scripts/assert.sh": "loaded by scripts/check.sh",
    });
  });

  it("an added test is removed unless editable lets the candidate add it", () => {
    const result = planProtection({
      baselineFiles: ["src/add.js"],
      baselineManifest: () => undefined,
      run: "true",
      cwd: "",
      oraclePaths: [],
      editable: (path) => path.startsWith("tests/"),
    });
    expect(result.removeIfAdded("conftest.py")).toBe(true);
    expect(result.removeIfAdded("tests/test_new.py")).toBe(false);
  });

  it("with editable, what the tests load is not protected inside it: the quest said that is the work", () => {
    const contents: Record<string, string> = { "add.test.js": 'require("./math.js"); require("./eq.js");' };
    const input = {
      baselineFiles: ["add.test.js", "math.js", "eq.js"],
      baselineManifest: () => undefined,
      run: "node add.test.js",
      cwd: "",
      oraclePaths: [],
      baselineContent: (path: string) => contents[path],
    };
    expect(planProtection(input).restore).toEqual(["add.test.js", "eq.js", "math.js"]);
    expect(planProtection({ ...input, editable: (path) => path === "math.js" }).restore).toEqual([
      "add.test.js",
      "eq.js",
    ]);
  });
});
