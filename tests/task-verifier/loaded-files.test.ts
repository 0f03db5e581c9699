/**
 * What a check's tests really load, read from the baseline's bytes alone: relative imports and
 * sources, transitively and bounded. Nothing is protected for being loaded; `pi-quests lint`
 * names what a check without `editable` leaves to the learner (unprotectedLoads).
 */
import { describe, expect, it } from "vitest";
import {
  MAX_FILES_FOLLOWED,
  referencesOf,
  runsTestsItFinds,
  shellSources,
  unprotectedLoads,
} from "../../src/task-verifier/loaded-files.ts";

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

describe("unprotectedLoads: what the protected files load that the rule leaves to the candidate", () => {
  const scenario = (contents: Record<string, string>, run: string, oraclePaths: string[] = []) =>
    unprotectedLoads({
      baselineFiles: Object.keys(contents),
      baselineManifest: () => undefined,
      run,
      cwd: "",
      oraclePaths,
      baselineContent: (path) => contents[path],
    });

  it("a shell test that sources the code and a helper: both are named, with what loads them", () => {
    const contents = {
      "test/run.sh": '. ./calc.sh\nsource "$(dirname "$0")/../lib/assert.sh"\nassert_eq "$(add 2 3)" 5\n',
      "calc.sh": "add() { echo $(($1 - $2)); }\n",
      "lib/assert.sh": 'assert_eq() { [ "$1" = "$2" ] || exit 1; }\n',
      "README.md": "# calc\n",
    };
    expect(scenario(contents, "bash test/run.sh")).toEqual([
      { path: "calc.sh", loadedBy: "test/run.sh" },
      { path: "lib/assert.sh", loadedBy: "test/run.sh" },
    ]);
  });

  it("follows what loaded files load in turn, and leaves out what the rule protects", () => {
    const contents: Record<string, string> = {
      "test/add.test.js": 'require("../helpers/a.js"); require("../src/add.js"); require("./util.js");',
      "test/util.js": "",
      "helpers/a.js": 'require("./b.js");',
      "helpers/b.js": 'require("../expected/sum.json");',
      "src/add.js": 'require("../helpers/c.js");',
      "helpers/c.js": "",
      "expected/sum.json": "5",
      Makefile: "include rules.mk\ntest:\n\tbash scripts/check.sh\n",
      "rules.mk": "",
      "scripts/check.sh": "",
    };
    expect(scenario(contents, "make test", ["expected"])).toEqual([
      { path: "helpers/a.js", loadedBy: "test/add.test.js" },
      { path: "helpers/b.js", loadedBy: "helpers/a.js" },
      { path: "helpers/c.js", loadedBy: "src/add.js" },
      // A Makefile recipe's script is not the Makefile: the candidate's, and said so.
      { path: "scripts/check.sh", loadedBy: "Makefile" },
      { path: "src/add.js", loadedBy: "test/add.test.js" },
    ]);
  });

  it("a check whose tests load only protected files leaves nothing to say", () => {
    const contents = {
      "tools/check.mjs": 'import "./lib.mjs";',
      "tools/lib.mjs": "",
      "test/calc.test.js": 'require("./helper.js");',
      "test/helper.js": "",
    };
    expect(scenario(contents, "node tools/check.mjs", ["tools"])).toEqual([]);
  });

  it("tests the check does not run are not followed; those a runner finds, or a named script runs, are", () => {
    const project = {
      "test/calc.test.js": 'require("../src/calc.js");',
      "src/calc.js": "",
      "tools/check.mjs": 'spawnSync(process.execPath, ["--test", ...files]);',
      "hello.txt": "hello\n",
    };
    expect(scenario(project, "grep -qi hello hello.txt")).toEqual([]);
    const calc = [{ path: "src/calc.js", loadedBy: "test/calc.test.js" }];
    expect(scenario(project, "node --test")).toEqual(calc);
    expect(scenario(project, "node tools/check.mjs")).toEqual(calc);
    // A test the check names is followed whatever runs it.
    expect(scenario(project, "node test/calc.test.js")).toEqual(calc);
  });

  it("is bounded: an import chain longer than the bound is not followed to its end", () => {
    const count = MAX_FILES_FOLLOWED + 50;
    const name = (i: number) => `chain/m${i}.js`;
    const files = Array.from({ length: count }, (_, i) => name(i));
    const found = unprotectedLoads({
      baselineFiles: ["a.test.js", ...files],
      baselineManifest: () => undefined,
      run: "node a.test.js",
      cwd: "",
      oraclePaths: [],
      baselineContent: (path) =>
        path === "a.test.js"
          ? 'require("./chain/m0.js")'
          : `require("./m${Number(path.slice(7, -3)) + 1}.js")`,
    });
    expect(found.length).toBeLessThanOrEqual(MAX_FILES_FOLLOWED);
    expect(found.length).toBeGreaterThan(100);
  });
});

describe("runsTestsItFinds: a command that may run tests it does not name", () => {
  it.each([
    "npx vitest run",
    "node --test",
    "node --test --test-reporter=tap",
    "python3 -m pytest -q",
    "python -m unittest discover",
    "pytest",
    "go test ./...",
    "cargo test",
    "make test",
    "just check",
    "bats test",
    "/usr/bin/jest --ci",
  ])("`%s` does", (command) => {
    expect(runsTestsItFinds(command)).toBe(true);
  });

  it.each([
    "grep -qi hello hello.txt",
    "node tools/check.mjs",
    "bash test/run.sh",
    "echo test",
    "go build ./...",
    "echo constructor",
  ])("`%s` does not", (command) => {
    expect(runsTestsItFinds(command)).toBe(false);
  });
});
