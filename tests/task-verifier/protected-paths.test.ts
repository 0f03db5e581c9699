/**
 * What the isolated task verifier puts back from the baseline before a command check runs, and
 * why. These are the pure rules of src/task-verifier/protected-paths.ts: everything is decided
 * from the pinned baseline's file list and manifests, never from the candidate's copy.
 */
import { describe, expect, it } from "vitest";
import {
  buildFilesOf,
  fileWords,
  isConfigFile,
  isTestSource,
  type PlanInput,
  PROTECTED_MANIFEST_KEYS,
  planProtection,
  scriptsRunBy,
  shellWords,
} from "../../src/task-verifier/protected-paths.ts";

describe("isTestSource: a test is any file in a test folder, or a file named like a test", () => {
  it.each([
    "test/add.js",
    "tests/unit/add.ts",
    "packages/core/__tests__/add.js",
    "spec/add_spec.rb",
    "specs/add.js",
    "src/__snapshots__/add.test.ts.snap",
    "src/__mocks__/fs.js",
    "fixtures/input.json",
    "tools/__fixtures__/deep/data.bin",
    "test/helpers/setup.sh",
  ])("a file inside a test folder, at any depth: %s", (path) => {
    expect(isTestSource(path)).toBe(true);
  });

  it.each([
    "src/add.test.ts",
    "src/add.spec.tsx",
    "lib/add.test.mjs",
    "lib/add.spec.cts",
    "add.test.js",
    "test_add.py",
    "pkg/add_test.py",
    "pkg/add_test.go",
    "conftest.py",
    // Any runner's file names: *.test.*, *.spec.*, *_test.*, *_spec.*, *.bats.
    "calc.test.sh",
    "lib/add_spec.rb",
    "pkg/add_test.rb",
    "checks/suite.bats",
  ])("a file named like a test, in any folder: %s", (path) => {
    expect(isTestSource(path)).toBe(true);
  });

  it.each([
    "src/add.js",
    "src/test.js",
    "src/testing/add.js",
    "src/latest/add.js",
    "src/attest.ts",
    "contest.py",
    "tests",
    "src/test",
    "docs/testing.md",
    "src/add.test.ts.bak",
  ])("not a test: %s", (path) => {
    expect(isTestSource(path)).toBe(false);
  });
});

describe("isConfigFile: test, build and package-manager configuration, by file name in any folder", () => {
  it.each([
    "vitest.config.ts",
    "vitest.config.mts",
    "vitest.workspace.ts",
    "vite.config.js",
    "jest.config.json",
    "jest.config.cjs",
    "playwright.config.ts",
    "karma.conf.js",
    ".mocharc",
    ".mocharc.json",
    ".mocharc.yml",
    ".c8rc.json",
    ".nycrc",
    ".eslintrc.cjs",
    "eslint.config.js",
    ".prettierrc",
    "biome.json",
    "biome.jsonc",
    "tsconfig.json",
    "tsconfig.build.json",
    "packages/core/tsconfig.base.json",
    "jsconfig.json",
    ".babelrc",
    "babel.config.json",
    "pytest.ini",
    "tox.ini",
    "setup.cfg",
    "pnpm-workspace.yaml",
    "lerna.json",
    "nx.json",
    "turbo.json",
    ".npmrc",
    "app/.npmrc",
    ".yarnrc",
    ".yarnrc.yml",
  ])("configuration: %s", (path) => {
    expect(isConfigFile(path)).toBe(true);
  });

  it.each([
    // package.json is not restored whole: its scripts and configuration keys are merged back.
    "package.json",
    "vitest.config.ts.bak",
    "my-vitest.config.ts",
    "src/config.ts",
    "README.md",
    ".env",
    // Not protected today: pytest settings in pyproject.toml are the candidate's.
    "pyproject.toml",
  ])("not configuration: %s", (path) => {
    expect(isConfigFile(path)).toBe(false);
  });
});

describe("PROTECTED_MANIFEST_KEYS: the package.json keys that come back from the baseline", () => {
  it("covers what decides which scripts run and how tests are configured, not dependencies", () => {
    expect(PROTECTED_MANIFEST_KEYS).toEqual(
      expect.arrayContaining([
        "scripts",
        "workspaces",
        "type",
        "exports",
        "imports",
        "jest",
        "vitest",
        "mocha",
      ]),
    );
    expect(PROTECTED_MANIFEST_KEYS).not.toContain("dependencies");
    expect(PROTECTED_MANIFEST_KEYS).not.toContain("devDependencies");
  });
});

describe("shellWords: a command line as the shell would split it", () => {
  it("splits words on blanks and simple commands on ; & | ( ) < > ` and newlines", () => {
    expect(shellWords("a b; c|d && e (f) <g >h `i`\nj")).toEqual([
      ["a", "b"],
      ["c"],
      ["d"],
      ["e"],
      ["f"],
      ["g"],
      ["h"],
      ["i"],
      ["j"],
    ]);
  });

  it("removes quotes and backslashes the way the shell does, keeping quoted blanks in the word", () => {
    expect(shellWords(`node "scripts/run tests.js" 'it''s' a\\ b "say \\"hi\\"" 'no \\escape'`)).toEqual([
      ["node", "scripts/run tests.js", "its", "a b", 'say "hi"', "no \\escape"],
    ]);
  });

  it("keeps an empty quoted word, and operators inside quotes", () => {
    expect(shellWords(`echo "" "a;b|c"`)).toEqual([["echo", "", "a;b|c"]]);
  });

  it("splits on extra characters only outside quotes", () => {
    expect(shellWords(`--config=a.js --files="x=1,y.js"`, "=,")).toEqual([
      ["--config", "a.js", "--files", "x=1,y.js"],
    ]);
  });

  it("does not expand anything", () => {
    expect(shellWords("cat $HOME/x ~/y *.js")).toEqual([["cat", "$HOME/x", "~/y", "*.js"]]);
  });
});

describe("scriptsRunBy: the package scripts a command line runs by name", () => {
  it.each([
    ["npm test", ["test"]],
    ["npm t", ["test"]],
    ["npm tst", ["test"]],
    ["npm start", ["start"]],
    ["npm stop", ["stop"]],
    ["npm restart", ["restart"]],
    ["npm run build", ["build"]],
    ["npm run-script lint", ["lint"]],
    ["npm run --silent build", ["build"]],
    ["npm --silent run build -- --watch", ["build"]],
    ["npm --prefix app test", ["test"]],
    ["/usr/local/bin/npm test", ["test"]],
    ["pnpm run check", ["check"]],
    ["pnpm check", ["check"]],
    ["yarn build", ["build"]],
    ["yarn run build", ["build"]],
    ["node --run test", ["test"]],
    ["npm run test:unit", ["test:unit"]],
  ])("`%s` runs %j", (command, names) => {
    expect(scriptsRunBy(command)).toEqual(names);
  });

  it("finds every script of a compound command, in subshells and substitutions too", () => {
    expect(
      scriptsRunBy("npm run lint && npm test; (cd app && yarn build) | tee log; x=$(pnpm run ver)"),
    ).toEqual(["lint", "test", "build", "ver"]);
  });

  it.each([
    "npm install",
    "npm ci",
    "npm exec vitest",
    "npx vitest run",
    "yarn add left-pad",
    "pnpm dlx create-thing",
    "pnpm install --frozen-lockfile",
    "node test/add.test.js",
    'echo "npm test"',
    "bash scripts/check.sh",
  ])("`%s` runs no package script", (command) => {
    expect(scriptsRunBy(command)).toEqual([]);
  });
});

describe("fileWords: the words of a command line that could name files", () => {
  it("keeps paths and programs, drops options and expansions", () => {
    expect(fileWords(`node --test test/a.test.js -r ./setup.js $EXTRA "$QUOTED/x.js"`)).toEqual([
      "node",
      "test/a.test.js",
      "./setup.js",
    ]);
  });

  it("takes the value of an option written with =, and comma-separated lists", () => {
    expect(fileWords("mocha --config=.mocharc.json --spec=a.js,b.js")).toEqual([
      "mocha",
      ".mocharc.json",
      "a.js",
      "b.js",
    ]);
  });

  it("keeps a quoted or escaped name with spaces as one word", () => {
    expect(fileWords(`node "scripts/run tests.js" && bash 'test/all in one.sh' && sh x\\ y.sh`)).toEqual([
      "node",
      "scripts/run tests.js",
      "bash",
      "test/all in one.sh",
      "sh",
      "x y.sh",
    ]);
  });

  it("sees through redirections and pipes", () => {
    expect(fileWords("node gen.js<in.txt>out.txt|diff - expected/out.txt")).toEqual([
      "node",
      "gen.js",
      "in.txt",
      "out.txt",
      "diff",
      "expected/out.txt",
    ]);
  });
});

/** A baseline for planProtection: its files, and its package.json files by path. */
function plan(
  files: string[],
  manifests: Record<string, { scripts?: Record<string, string> }>,
  check: Partial<Pick<PlanInput, "run" | "cwd" | "oraclePaths">> = {},
) {
  return planProtection({
    baselineFiles: [...files, ...Object.keys(manifests)],
    baselineManifest: (path) => manifests[path],
    run: check.run ?? "true",
    cwd: check.cwd ?? "",
    oraclePaths: check.oraclePaths ?? [],
  });
}

describe("planProtection: what a check's verdict rests on", () => {
  const project = ["src/add.js", "test/add.test.js", "src/add.spec.ts", "vitest.config.ts", "README.md"];

  it("restores every baseline test source and config, whatever the check runs; sources stay the candidate's", () => {
    const result = plan(project, {});
    expect(result.restore).toEqual(["src/add.spec.ts", "test/add.test.js", "vitest.config.ts"]);
    expect(result.reasons).toEqual({
      "src/add.spec.ts": { rule: "test" },
      "test/add.test.js": { rule: "test" },
      "vitest.config.ts": { rule: "configuration" },
    });
    expect(result.keepCandidateMode).toEqual([]);
  });

  it("lists every baseline package.json for its scripts and configuration keys to be merged back", () => {
    const result = plan(project, { "package.json": {}, "packages/a/package.json": {} });
    expect(result.manifests).toEqual(["package.json", "packages/a/package.json"]);
    expect(result.restore).not.toContain("package.json");
  });

  it("restores the files the check names, relative to its folder, and only ones tracked at the baseline", () => {
    const files = ["scripts/check.sh", "app/bin/run.js", "src/add.js"];
    expect(plan(files, {}, { run: "bash ./scripts/check.sh && bash scripts/missing.sh" }).restore).toEqual([
      "scripts/check.sh",
    ]);
    const inApp = plan(files, {}, { run: "node bin/run.js ../scripts/check.sh", cwd: "app" });
    expect(inApp.reasons).toEqual({
      "app/bin/run.js": { rule: "named", by: "the check" },
      "scripts/check.sh": { rule: "named", by: "the check" },
    });
  });

  it("follows the package scripts the check runs, recursively through `npm run`", () => {
    const result = plan(["scripts/check.sh", "scripts/lint.js", "scripts/unused.js"], {
      "package.json": {
        scripts: {
          test: "npm run check && npm run lint",
          check: "bash scripts/check.sh",
          lint: "node scripts/lint.js",
          other: "node scripts/unused.js",
        },
      },
    });
    expect(result.reasons).toEqual({});
    const followed = plan(
      ["scripts/check.sh", "scripts/lint.js", "scripts/unused.js"],
      {
        "package.json": {
          scripts: {
            test: "npm run check && npm run lint",
            check: "bash scripts/check.sh",
            lint: "node scripts/lint.js",
            other: "node scripts/unused.js",
          },
        },
      },
      { run: "npm test" },
    );
    expect(followed.reasons).toEqual({
      "scripts/check.sh": { rule: "named", by: 'npm script "check"' },
      "scripts/lint.js": { rule: "named", by: 'npm script "lint"' },
    });
  });

  it("follows npm's pre and post hooks of every script it follows", () => {
    const result = plan(
      ["scripts/setup.js", "scripts/report.js"],
      {
        "package.json": {
          scripts: {
            pretest: "node scripts/setup.js",
            test: "node -e 0",
            posttest: "node scripts/report.js",
          },
        },
      },
      { run: "npm t" },
    );
    expect(result.restore).toEqual(["scripts/report.js", "scripts/setup.js"]);
  });

  it("reads the scripts of the nearest baseline package.json, and their files from its folder", () => {
    const result = plan(
      ["packages/a/scripts/build.js", "scripts/build.js"],
      {
        "package.json": { scripts: { build: "node scripts/build.js" } },
        "packages/a/package.json": { scripts: { build: "node scripts/build.js" } },
      },
      { run: "npm run build", cwd: "packages/a/src" },
    );
    expect(result.restore).toEqual(["packages/a/scripts/build.js"]);
  });

  it("stops on scripts that run each other", () => {
    const result = plan(
      ["a.sh", "b.sh"],
      {
        "package.json": { scripts: { a: "npm run b && bash a.sh", b: "npm run a && bash b.sh" } },
      },
      { run: "npm run a" },
    );
    expect(result.restore).toEqual(["a.sh", "b.sh"]);
  });

  it("keeps the candidate's executable bit only on files protected because a command names them", () => {
    const result = plan(
      ["scripts/hello.sh", "test/run.sh", "expected/out.txt", "tsconfig.json"],
      {},
      {
        run: "./scripts/hello.sh && ./test/run.sh && cat tsconfig.json expected/out.txt",
        oraclePaths: ["expected/out.txt"],
      },
    );
    expect(result.restore).toEqual(["expected/out.txt", "scripts/hello.sh", "test/run.sh", "tsconfig.json"]);
    expect(result.keepCandidateMode).toEqual(["scripts/hello.sh"]);
  });

  it("protects oracle files, and every file of an oracle folder", () => {
    const files = ["expected/a.txt", "expected/deep/b.txt", "expectations.txt"];
    expect(plan(files, {}, { oraclePaths: ["expected/a.txt"] }).restore).toEqual(["expected/a.txt"]);
    const folder = plan(files, {}, { oraclePaths: ["expected/"] });
    expect(folder.restore).toEqual(["expected/a.txt", "expected/deep/b.txt"]);
    expect(folder.reasons["expected/a.txt"]).toEqual({ rule: "oracle" });
    expect(folder.missingOracles).toEqual([]);
  });

  it("reports oracle paths that are not tracked at the baseline, outside the repository or absolute", () => {
    const result = plan(
      ["expected/a.txt"],
      {},
      {
        oraclePaths: [
          "expected/new.txt",
          "../expected/a.txt",
          "x/../../expected/a.txt",
          "/etc/passwd",
          "expected/a.txt",
        ],
      },
    );
    expect(result.missingOracles).toEqual([
      "expected/new.txt",
      "../expected/a.txt",
      "x/../../expected/a.txt",
      "/etc/passwd",
    ]);
    expect(result.restore).toEqual(["expected/a.txt"]);
  });

  it("removes configuration the candidate added, and keeps the candidate's other new files", () => {
    const result = plan(["vitest.config.ts", "src/add.js"], {});
    expect(result.removeIfAdded(".mocharc.json")).toBe(true);
    expect(result.removeIfAdded("src/.npmrc")).toBe(true);
    expect(result.removeIfAdded("jest.config.js")).toBe(true);
    // One the baseline has is restored instead.
    expect(result.removeIfAdded("vitest.config.ts")).toBe(false);
    expect(result.removeIfAdded("src/new-module.js")).toBe(false);
    // A test the candidate added would run beside the baseline's: removed too.
    expect(result.removeIfAdded("test/new.test.js")).toBe(true);
    expect(result.removeIfAdded("conftest.py")).toBe(true);
    expect(result.removeIfAdded("src/new.test.js")).toBe(true);
  });

  it("removes a package.json the candidate added in the check's folder or above it, not elsewhere", () => {
    const inApp = plan(["app/src/index.js"], { "package.json": {} }, { cwd: "app/src" });
    expect(inApp.removeIfAdded("app/src/package.json")).toBe(true);
    expect(inApp.removeIfAdded("app/package.json")).toBe(true);
    expect(inApp.removeIfAdded("package.json")).toBe(false);
    expect(inApp.removeIfAdded("packages/new/package.json")).toBe(false);
    expect(plan([], { "package.json": {} }, { cwd: "app/" }).removeIfAdded("app/package.json")).toBe(true);
    // With no package.json at the baseline at all, one added at the root would take over too.
    expect(plan(["src/index.js"], {}).removeIfAdded("package.json")).toBe(true);
  });
});

describe("buildFilesOf: the build files a command's tools read", () => {
  const files = new Set([
    "Makefile",
    "sub/GNUmakefile",
    "other.mk",
    "justfile",
    "CMakeLists.txt",
    "Rakefile",
    "pyproject.toml",
  ]);
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
    // A word that is a key of every object is no build tool (it once threw).
    ["echo constructor toString __proto__", "", []],
  ])("%s", (command, dir, expected) => {
    expect(buildFilesOf(command, dir, files)).toEqual(expected);
  });
});

/** planProtection over a baseline given as its files' texts. */
function planOver(
  contents: Record<string, string>,
  run: string,
  extra: Partial<Pick<PlanInput, "oraclePaths" | "editable" | "baselineManifest">> = {},
) {
  return planProtection({
    baselineFiles: Object.keys(contents),
    baselineManifest: extra.baselineManifest ?? (() => undefined),
    run,
    cwd: "",
    oraclePaths: extra.oraclePaths ?? [],
    baselineContent: (path) => contents[path],
    ...(extra.editable ? { editable: extra.editable } : {}),
  });
}

describe("the rule without editable: only what the quest names and what is test infrastructure", () => {
  it("the issue's pack: test/run.sh sources ./calc.sh and lib/assert.sh; only the test is protected", () => {
    const result = planOver(
      {
        "test/run.sh": '. ./calc.sh\n. lib/assert.sh\nassert_eq "$(add 2 3)" 5\n',
        "calc.sh": "add() { echo $(($1 - $2)); }\n",
        "lib/assert.sh": 'assert_eq() { [ "$1" = "$2" ] || { echo FAIL; exit 1; }; }\n',
      },
      "bash test/run.sh",
    );
    expect(result.restore).toEqual(["test/run.sh"]);
    expect(result.reasons).toEqual({ "test/run.sh": { rule: "test" } });
  });

  it.each([
    ["helpers/expect-equal.js", "test/add.test.js", 'require("../helpers/expect-equal.js")'],
    ["src/add.js", "test/add.test.js", 'require("../src/add.js")'],
    ["math.js", "checks.test.js", 'require("./math.js")'],
    ["calc.py", "test_calc.py", "import calc"],
    ["helpers.py", "test_calc.py", "import helpers"],
    ["scripts/assert.sh", "scripts/check.sh", "source scripts/assert.sh"],
  ])(
    "%s, loaded by %s, is the candidate's: no guess at which loaded file is the code under test",
    (loaded, test, text) => {
      const result = planOver({ [test]: text, [loaded]: "" }, `bash ${test}`);
      expect(result.restore).toEqual([test]);
      expect(result.restore).not.toContain(loaded);
    },
  );

  it("the build file a command runs, and what it includes, are protected; the scripts its recipes run are not", () => {
    const result = planOver(
      {
        Makefile: "include build/rules.mk\n-include local.mk\ntest:\n\tbash scripts/check.sh\n",
        "build/rules.mk": "",
        "local.mk": "",
        "scripts/check.sh": "",
      },
      "make -s test",
    );
    expect(result.reasons).toEqual({
      Makefile: { rule: "build", by: "make -s test" },
      "build/rules.mk": { rule: "build", by: "Makefile" },
      "local.mk": { rule: "build", by: "Makefile" },
    });
    // Only a build file of a tool the command runs: no Makefile rule for `npm test`.
    expect(planOver({ Makefile: "", "package.json": "{}" }, "node x.js").restore).toEqual([]);
  });

  it("the setup files a test configuration or package.json's runner keys name, exactly as written", () => {
    const result = planOver(
      {
        "vitest.config.ts":
          'export default { test: { setupFiles: ["./setup/globals.ts"], alias: { "@": "./src" } } }',
        "pytest.ini": "[pytest]\naddopts = -p plugins.checks\n",
        "setup/globals.ts": "",
        "src/index.ts": "",
        "jest.setup.js": "",
        "package.json": "",
      },
      "npm test",
      {
        baselineManifest: () => ({
          jest: { setupFilesAfterEach: ["<rootDir>/jest.setup.js"] },
          main: "src/index.ts",
        }),
      },
    );
    expect(result.reasons).toEqual({
      "jest.setup.js": { rule: "setup", by: '"jest" in package.json' },
      "pytest.ini": { rule: "configuration" },
      "setup/globals.ts": { rule: "setup", by: "vitest.config.ts" },
      "vitest.config.ts": { rule: "configuration" },
    });
  });

  it("with editable, a build or setup file the quest lets the learner write is the work; tests, configs and named files stay protected", () => {
    const contents = {
      Makefile: "test:\n\tbash test/run.sh\n",
      "test/run.sh": "",
      "vitest.config.ts": 'export default { test: { setupFiles: ["./setup.js"] } }',
      "setup.js": "",
      "tools/check.mjs": "",
    };
    const everything = () => true;
    expect(planOver(contents, "make test && node tools/check.mjs").restore).toEqual([
      "Makefile",
      "setup.js",
      "test/run.sh",
      "tools/check.mjs",
      "vitest.config.ts",
    ]);
    expect(planOver(contents, "make test && node tools/check.mjs", { editable: everything }).restore).toEqual(
      ["test/run.sh", "tools/check.mjs", "vitest.config.ts"],
    );
  });

  it("says why a file the candidate added is removed", () => {
    const result = planOver({ "src/add.js": "" }, "true", { editable: (path) => path.startsWith("tests/") });
    expect(result.removalOf("conftest.py")).toBe("added_test");
    expect(result.removalOf("jest.config.js")).toBe("added_configuration");
    expect(result.removalOf("package.json")).toBe("added_package_json");
    expect(result.removalOf("tests/test_new.py")).toBeUndefined();
    expect(result.removalOf("src/new.js")).toBeUndefined();
    // One the baseline has is restored instead, never removed.
    expect(result.removalOf("src/add.js")).toBeUndefined();
  });
});
