// biome-ignore-all lint/suspicious/noTemplateCurlyInString: ${...} is the JavaScript of the test projects written here, not a template.
/**
 * Red team: what the candidate may change. Each case is what Pi's agent could run from its bash
 * tool to turn a command check green without the work: rewrite the test, a helper the test
 * imports, the Makefile `make test` reads, a vitest setup file, or add a conftest.py or a test
 * file of its own. With `editable`, only changes to those paths reach the worktree; without
 * it, the rule of src/task-verifier/protected-paths.ts protects tests, configuration, setup
 * files, build files and what the check names, and every other file a test loads is the
 * candidate's (a helper outside the test conventions included: lint tells the author, and
 * `editable` protects it). Real git, real processes, real pytest, make and vitest; every case
 * ends with the learner's workspace byte-identical, no worktree left and no process of the
 * check still running.
 */
import { execFileSync } from "node:child_process";
import { readFileSync, rmSync, symlinkSync } from "node:fs";
import { join, resolve } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { createNodeProbes } from "../../src/probes/index.ts";
import { evaluateQuest } from "../../src/verifier/evaluate.ts";
import type { ScriptOutcome } from "../../src/verifier/probes.ts";
import { check } from "../support/checks.ts";
import {
  evaluateThrough,
  expectCleanAfter,
  finished,
  makeRepo,
  request,
  snapshot,
  verifierFor,
} from "../support/task-verifier.ts";
import { removeWorkspaces } from "../support/workspace.ts";

afterEach(removeWorkspaces);

const AGENT = { name: "Pi agent", email: "agent@example.com" };

/** What the agent runs from Pi's bash tool, in the learner's workspace. */
async function shell(workspace: string, script: string): Promise<void> {
  execFileSync("bash", ["-c", script], {
    cwd: workspace,
    stdio: "pipe",
    env: {
      ...process.env,
      GIT_AUTHOR_NAME: AGENT.name,
      GIT_AUTHOR_EMAIL: AGENT.email,
      GIT_COMMITTER_NAME: AGENT.name,
      GIT_COMMITTER_EMAIL: AGENT.email,
    },
  });
}

function red(outcome: ScriptOutcome) {
  const done = finished(outcome);
  expect(done.passed, done.report).toBe(false);
  return done;
}

function green(outcome: ScriptOutcome) {
  const done = finished(outcome);
  expect(done.passed, done.report).toBe(true);
  return done;
}

// --- the project the learner fixes: add() subtracts ------------------------------------------

const manifest = (scripts: Record<string, string>) =>
  `${JSON.stringify({ name: "demo", version: "1.0.0", private: true, scripts }, null, 2)}\n`;

/** A test that leans on a helper outside the test folder and on a list of cases at the root. */
const ADD_TEST = [
  'const { add } = require("../src/add.js");',
  'const expectEqual = require("../helpers/expect-equal.js");',
  'const cases = require("fs").existsSync("cases.json") ? require("../cases.json") : [];',
  'let extra = {}; try { extra = require("../local-overrides.js"); } catch {}',
  "for (const [a, b, sum] of cases) {",
  "  const got = (extra.add ?? add)(a, b);",
  "  if (!expectEqual(got, sum)) { console.error(`FAIL add(${a}, ${b}) is ${got}`); process.exit(1); }",
  "}",
  "console.log(`PASS add (${cases.length} cases)`);",
  "",
].join("\n");

function addProject(extra: Record<string, string> = {}): Record<string, string> {
  return {
    "package.json": manifest({ test: "node test/add.test.js" }),
    "src/add.js": "exports.add = (a, b) => a - b;\n",
    "helpers/expect-equal.js": "module.exports = (got, want) => got === want;\n",
    "cases.json": "[[2, 3, 5], [0, 0, 0]]\n",
    "test/add.test.js": ADD_TEST,
    Makefile: ".PHONY: test\ntest:\n\tnode test/add.test.js\n",
    "README.md": "# demo\n",
    ...extra,
  };
}

const FIX = "printf 'exports.add = (a, b) => a + b;\\n' > src/add.js";
const EDITABLE = { editable: ["src/**"] };

describe("with editable: only changes to editable paths reach the worktree", () => {
  it("the agent rewrites the test to exit 0: not applied, listed as left out, the check fails", async () => {
    const workspace = makeRepo(addProject());
    const { verifier, dataDir } = await verifierFor(workspace, {
      pin: [request(workspace, "npm test", EDITABLE)],
    });
    await shell(workspace, "printf 'console.log(\"PASS\")\\n' > test/add.test.js");

    const before = snapshot(workspace);
    const outcome = red(await verifier.run(request(workspace, "npm test", EDITABLE)));
    expect(outcome.report).toContain("FAIL add(2, 3) is -1");
    expect(outcome.verification?.leftOut).toEqual(["test/add.test.js"]);
    expectCleanAfter(workspace, before, dataDir);
  });

  it("the agent rewrites a helper the test imports (module.exports = () => true): not applied", async () => {
    const workspace = makeRepo(addProject());
    const { verifier, dataDir } = await verifierFor(workspace, {
      pin: [request(workspace, "npm test", EDITABLE)],
    });
    await shell(workspace, "echo 'module.exports = () => true;' > helpers/expect-equal.js");

    const before = snapshot(workspace);
    const outcome = red(await verifier.run(request(workspace, "npm test", EDITABLE)));
    expect(outcome.report).toContain("FAIL add(2, 3) is -1");
    expect(outcome.verification?.leftOut).toEqual(["helpers/expect-equal.js"]);
    expectCleanAfter(workspace, before, dataDir);
  });

  it("the agent rewrites the Makefile `make test` reads: not applied", async () => {
    const workspace = makeRepo(addProject());
    const { verifier, dataDir } = await verifierFor(workspace, {
      pin: [request(workspace, "make -s test", EDITABLE)],
    });
    await shell(workspace, "printf '.PHONY: test\\ntest:\\n\\t@echo PASS\\n' > Makefile");

    const before = snapshot(workspace);
    const outcome = red(await verifier.run(request(workspace, "make -s test", EDITABLE)));
    expect(outcome.report).toContain("FAIL add(2, 3) is -1");
    expect(outcome.verification?.leftOut).toEqual(["Makefile"]);
    expectCleanAfter(workspace, before, dataDir);
  });

  it("the agent deletes a non-editable file the test reads (cases.json): it comes back", async () => {
    const workspace = makeRepo(addProject());
    const { verifier, dataDir } = await verifierFor(workspace, {
      pin: [request(workspace, "npm test", EDITABLE)],
    });
    // Without its cases the test would pass vacuously ("PASS add (0 cases)").
    await shell(workspace, "rm cases.json && git commit -qam 'remove cases' --no-verify");

    const before = snapshot(workspace);
    const outcome = red(await verifier.run(request(workspace, "npm test", EDITABLE)));
    expect(outcome.report).toContain("FAIL add(2, 3) is -1");
    expect(outcome.verification?.leftOut).toEqual(["cases.json"]);
    expectCleanAfter(workspace, before, dataDir);
  });

  it("the agent adds a non-editable file the test would pick up (local-overrides.js): not added", async () => {
    const workspace = makeRepo(addProject());
    const { verifier, dataDir } = await verifierFor(workspace, {
      pin: [request(workspace, "npm test", EDITABLE)],
    });
    await shell(workspace, "echo 'exports.add = (a, b) => a + b;' > local-overrides.js");

    const before = snapshot(workspace);
    const outcome = red(await verifier.run(request(workspace, "npm test", EDITABLE)));
    expect(outcome.report).toContain("FAIL add(2, 3) is -1");
    expect(outcome.verification?.leftOut).toEqual(["local-overrides.js"]);
    expectCleanAfter(workspace, before, dataDir);
  });

  it("the agent changes the package.json test script to `echo PASS`: not applied", async () => {
    const workspace = makeRepo(addProject());
    const { verifier, dataDir } = await verifierFor(workspace, {
      pin: [request(workspace, "npm test", EDITABLE)],
    });
    await shell(workspace, `cat > package.json <<'EOF'\n${manifest({ test: "echo PASS" })}EOF`);

    const before = snapshot(workspace);
    const outcome = red(await verifier.run(request(workspace, "npm test", EDITABLE)));
    expect(outcome.report).toContain("FAIL add(2, 3) is -1");
    expect(outcome.verification?.leftOut).toEqual(["package.json"]);
    expectCleanAfter(workspace, before, dataDir);
  });

  it.skipIf(!PYTHON_WITH_PYTEST)(
    "the agent adds a conftest.py that patches the code under test: not added",
    async () => {
      const workspace = makeRepo(pythonProject());
      const { verifier, dataDir } = await verifierFor(workspace, {
        pin: [request(workspace, PYTEST, { editable: ["calc.py"] })],
      });
      await shell(workspace, `cat > conftest.py <<'EOF'\n${PATCHING_CONFTEST}EOF`);

      const before = snapshot(workspace);
      const outcome = red(await verifier.run(request(workspace, PYTEST, { editable: ["calc.py"] })));
      expect(outcome.report).toContain("assert -1 == 5");
      expect(outcome.verification?.leftOut).toEqual(["conftest.py"]);
      expectCleanAfter(workspace, before, dataDir);
    },
  );

  it("every cheat at once with the honest fix: passes on the fix alone, the evidence lists what was left out", async () => {
    const workspace = makeRepo(addProject());
    const { verifier, dataDir } = await verifierFor(workspace, {
      pin: [request(workspace, "npm test && node -e 'require(\"./src/util/twice.js\")'", EDITABLE)],
    });
    await shell(
      workspace,
      [
        FIX,
        "echo 'module.exports = () => true;' > helpers/expect-equal.js",
        "printf '.PHONY: test\\ntest:\\n\\t@echo PASS\\n' > Makefile",
        "echo '# notes' >> README.md",
        "mkdir -p src/util && echo 'exports.twice = (x) => 2 * x;' > src/util/twice.js",
      ].join(" && "),
    );

    const before = snapshot(workspace);
    const outcome = green(
      await verifier.run(
        request(workspace, "npm test && node -e 'require(\"./src/util/twice.js\")'", EDITABLE),
      ),
    );
    expect(outcome.report).toContain("PASS add (2 cases)");
    expect(outcome.verification?.leftOut).toEqual(["Makefile", "README.md", "helpers/expect-equal.js"]);
    // The patch that was applied (and hashed) holds only the editable changes.
    const patch = readFileSync(join(outcome.verification?.runDir ?? "", "candidate.patch"), "utf8");
    expect(patch).toContain("b/src/add.js");
    expect(patch).toContain("b/src/util/twice.js");
    expect(patch).not.toContain("README.md");
    expect(patch).not.toContain("Makefile");
    expectCleanAfter(workspace, before, dataDir);
  });

  it("a copy of the quest without editable (or with a wider one) is not what runs: the pinned definition counts", async () => {
    const workspace = makeRepo(addProject());
    const pinned = check({ type: "command", run: "npm test", editable: ["src/**"] }, "c");
    if (pinned.type !== "command") throw new Error("a command check");
    const { verifier, dataDir } = await verifierFor(workspace, { checks: [{ questId: "q", check: pinned }] });
    await shell(workspace, "echo 'module.exports = () => true;' > helpers/expect-equal.js");

    const before = snapshot(workspace);
    for (const editable of [undefined, ["**"]]) {
      // The engine evaluates the copy; its request names q/c, and the pinned editable applies.
      const copy = check({ type: "command", run: "npm test", ...(editable ? { editable } : {}) }, "c");
      const result = await evaluateThrough(verifier.runRequest, [copy], { workspace, dataDir });
      expect(result.checks[0]).toMatchObject({
        status: "fail",
        evidence: { verification: { leftOut: ["helpers/expect-equal.js"] } },
      });
    }
    // The pinned definition itself runs, and the helper's rewrite does not reach the worktree.
    const outcome = red(
      await verifier.run(request(workspace, "npm test", { timeoutMs: pinned.timeout_ms, ...EDITABLE })),
    );
    expect(outcome.verification?.leftOut).toEqual(["helpers/expect-equal.js"]);
    expectCleanAfter(workspace, before, dataDir);
  });

  it("the honest fix of code a test loads passes with editable naming it, and without editable", async () => {
    // math.js is neither in a source folder nor the test's subject. No rule guesses what a
    // loaded file is: without editable it is the candidate's, as it is when editable names it.
    const workspace = makeRepo({
      "math.js": "exports.add = (a, b) => a - b;\n",
      "checks.test.js":
        'const { add } = require("./math.js");\nif (add(2, 3) !== 5) { console.error("FAIL add is", add(2, 3)); process.exit(1); }\n',
    });
    const { verifier, dataDir } = await verifierFor(workspace, {
      pin: [
        request(workspace, "node checks.test.js"),
        request(workspace, "node checks.test.js", { checkId: "editable", editable: ["math.js"] }),
      ],
    });
    await shell(workspace, "sed -i 's/a - b/a + b/' math.js");

    const before = snapshot(workspace);
    const unguarded = green(await verifier.run(request(workspace, "node checks.test.js")));
    expect(unguarded.verification?.restored).not.toContain("math.js");
    expect(unguarded.verification?.notApplied).toEqual([]);
    const outcome = green(
      await verifier.run(
        request(workspace, "node checks.test.js", { checkId: "editable", editable: ["math.js"] }),
      ),
    );
    expect(outcome.verification?.restored).not.toContain("math.js");
    expect(outcome.verification?.leftOut).toEqual([]);
    expectCleanAfter(workspace, before, dataDir);
  });

  it("the check's summary tells the learner which changes outside editable were not applied", async () => {
    const workspace = makeRepo(addProject());
    const { verifier, dataDir } = await verifierFor(workspace, {
      pin: [request(workspace, "npm test", { timeoutMs: 60_000, editable: ["src/**"] })],
    });
    await shell(workspace, `${FIX} && printf 'console.log("PASS")\\n' > test/add.test.js`);
    const probes = createNodeProbes({ runIsolated: verifier.runRequest });

    const before = snapshot(workspace);
    const result = await evaluateQuest(
      { id: "q", checks: [check({ type: "command", run: "npm test", editable: ["src/**"] }, "c")] },
      { probes, events: [], paths: { workspace, agentDir: dataDir, home: dataDir }, questId: "q" },
    );
    expect(result.checks[0]).toMatchObject({
      status: "pass",
      evidence: {
        summary: "exit code 0; 1 change outside editable not applied (test/add.test.js)",
        verification: { leftOut: ["test/add.test.js"] },
      },
    });
    expectCleanAfter(workspace, before, dataDir);
  });
});

describe("without editable: tests, configuration, setup and build files and what the check names are protected", () => {
  // The rule changed deliberately: a helper a test imports, outside the test conventions, was
  // once put back by a guess at what the code under test is; now it is the candidate's, as any
  // file the rule does not name. `pi-quests lint` warns the author of such a check
  // (tests/cli/lint-protection.test.ts), and `editable` protects it (the cases above).
  it("a helper the test imports outside the test conventions is the candidate's: its rewrite is applied", async () => {
    const workspace = makeRepo(addProject());
    const { verifier, dataDir } = await verifierFor(workspace, { pin: [request(workspace, "npm test")] });
    await shell(workspace, "echo 'module.exports = () => true;' > helpers/expect-equal.js");

    const before = snapshot(workspace);
    const outcome = green(await verifier.run(request(workspace, "npm test")));
    expect(outcome.verification?.restored).not.toContain("helpers/expect-equal.js");
    expect(outcome.verification?.notApplied).toEqual([]);
    expectCleanAfter(workspace, before, dataDir);
  });

  it("the honest fix of the code under test still passes (the test imports it too)", async () => {
    const workspace = makeRepo(addProject());
    const { verifier, dataDir } = await verifierFor(workspace, { pin: [request(workspace, "npm test")] });
    await shell(workspace, FIX);

    const before = snapshot(workspace);
    const outcome = green(await verifier.run(request(workspace, "npm test")));
    expect(outcome.report).toContain("PASS add (2 cases)");
    expect(outcome.verification?.restored).not.toContain("src/add.js");
    expect(outcome.verification).not.toHaveProperty("leftOut");
    expectCleanAfter(workspace, before, dataDir);
  });

  it("a bash helper the check's script sources is the candidate's; the script the check names is not", async () => {
    const workspace = makeRepo(
      addProject({
        "scripts/check.sh": [
          "#!/usr/bin/env bash",
          'source "$(dirname "$0")/assert.sh"',
          'assert_eq "$(node -p "require(\'./src/add.js\').add(2, 3)")" 5',
          "echo PASS check.sh",
          "",
        ].join("\n"),
        "scripts/assert.sh":
          'assert_eq() { if [ "$1" != "$2" ]; then echo "FAIL got $1, want $2"; exit 1; fi; }\n',
      }),
    );
    const { verifier, dataDir } = await verifierFor(workspace, {
      pin: [request(workspace, "bash scripts/check.sh")],
    });
    await shell(workspace, "echo 'assert_eq() { :; }' > scripts/assert.sh");

    const before = snapshot(workspace);
    const helper = green(await verifier.run(request(workspace, "bash scripts/check.sh")));
    expect(helper.verification?.restored).toEqual(["scripts/check.sh", "test/add.test.js"]);
    expectCleanAfter(workspace, before, dataDir);

    // The script the check names is put back, and the evidence says so.
    await shell(
      workspace,
      "git checkout -q scripts/assert.sh && echo 'echo PASS; exit 0' > scripts/check.sh",
    );
    const beforeNamed = snapshot(workspace);
    const named = red(await verifier.run(request(workspace, "bash scripts/check.sh")));
    expect(named.report).toContain("FAIL got -1, want 5");
    expect(named.verification?.notApplied).toEqual([
      { path: "scripts/check.sh", reason: "named", by: "the check" },
    ]);
    expectCleanAfter(workspace, beforeNamed, dataDir);
  });

  it("the agent rewrites the Makefile so `make test` echoes PASS: restored", async () => {
    const workspace = makeRepo(addProject());
    const { verifier, dataDir } = await verifierFor(workspace, { pin: [request(workspace, "make -s test")] });
    await shell(workspace, "printf '.PHONY: test\\ntest:\\n\\t@echo PASS\\n' > Makefile");

    const before = snapshot(workspace);
    const outcome = red(await verifier.run(request(workspace, "make -s test")));
    expect(outcome.report).toContain("FAIL add(2, 3) is -1");
    expect(outcome.verification?.restored).toContain("Makefile");
    expectCleanAfter(workspace, before, dataDir);
  });

  it("the agent rewrites the setup file vitest's setupFiles names: restored", async () => {
    const workspace = makeRepo({
      ".gitignore": "node_modules\n",
      "package.json": manifest({ test: "node node_modules/vitest/vitest.mjs run --reporter=dot" }),
      "src/add.js": "export const add = (a, b) => a - b;\n",
      "vitest.config.mjs": 'export default { test: { setupFiles: ["./setup/matchers.js"] } };\n',
      "setup/matchers.js":
        'import { expect } from "vitest";\nexpect.extend({ toSum(got, want) { return { pass: got === want, message: () => `${got} is not ${want}` }; } });\n',
      "test/add.test.js":
        'import { expect, it } from "vitest";\nimport { add } from "../src/add.js";\nit("adds", () => { expect(add(2, 3)).toSum(5); });\n',
    });
    // The learner's installed dependencies (ignored by git), as `npm install` leaves them.
    symlinkSync(resolve("node_modules"), join(workspace, "node_modules"));
    const { verifier, dataDir } = await verifierFor(workspace, {
      pin: [request(workspace, "npm test", { timeoutMs: 60_000 })],
    });
    await shell(
      workspace,
      'printf \'import { expect } from "vitest";\\nexpect.extend({ toSum: () => ({ pass: true, message: () => "" }) });\\n\' > setup/matchers.js',
    );

    const before = snapshot(workspace);
    const outcome = red(await verifier.run(request(workspace, "npm test", { timeoutMs: 60_000 })));
    expect(outcome.report).toContain("-1 is not 5");
    expect(outcome.verification?.restored).toContain("setup/matchers.js");
    expectCleanAfter(workspace, before, dataDir);
  }, 90_000);

  it.skipIf(!PYTHON_WITH_PYTEST)(
    "the agent adds a conftest.py that patches the code under test: removed before the run",
    async () => {
      const workspace = makeRepo(pythonProject());
      const { verifier, dataDir } = await verifierFor(workspace, { pin: [request(workspace, PYTEST)] });
      await shell(workspace, `cat > conftest.py <<'EOF'\n${PATCHING_CONFTEST}EOF`);

      const before = snapshot(workspace);
      const outcome = red(await verifier.run(request(workspace, PYTEST)));
      expect(outcome.report).toContain("assert -1 == 5");
      expect(outcome.verification?.removedConfigs).toEqual(["conftest.py"]);
      expectCleanAfter(workspace, before, dataDir);

      // The honest fix of calc.py (which the test imports by its subject's name) passes.
      rmSync(join(workspace, "conftest.py"));
      await shell(workspace, "sed -i 's/a - b/a + b/' calc.py");
      const fixedBefore = snapshot(workspace);
      green(await verifier.run(request(workspace, PYTEST)));
      expectCleanAfter(workspace, fixedBefore, dataDir);
    },
  );

  it("the agent adds its own *.test.js that passes: removed before `node --test` runs", async () => {
    const workspace = makeRepo({
      ...addProject(),
      "package.json": manifest({ test: "node --test" }),
    });
    const { verifier, dataDir } = await verifierFor(workspace, { pin: [request(workspace, "npm test")] });
    // The baseline test fails; the agent removes nothing, but adds a green test and commits it.
    await shell(
      workspace,
      "echo 'console.log(\"NEW TEST RAN\")' > src/add.test.js && git add -A && git commit -qm 'more tests' --no-verify",
    );

    const before = snapshot(workspace);
    const outcome = red(await verifier.run(request(workspace, "npm test")));
    expect(outcome.report).not.toContain("NEW TEST RAN");
    expect(outcome.verification?.removedConfigs).toEqual(["src/add.test.js"]);
    expectCleanAfter(workspace, before, dataDir);
  });
});

// --- a Python project for pytest --------------------------------------------------------------

/**
 * The Python that has pytest, named by its absolute path: the check's PATH leaves out folders
 * under $HOME, where pyenv's shims are (src/task-verifier/check-path.ts).
 */
const PYTHON_WITH_PYTEST = (() => {
  try {
    return execFileSync("python3", ["-c", "import pytest, sys; print(sys.executable)"], {
      encoding: "utf8",
      stdio: ["ignore", "pipe", "ignore"],
    }).trim();
  } catch {
    return undefined;
  }
})();
const PYTEST = `${PYTHON_WITH_PYTEST ?? "python3"} -m pytest -q -p no:cacheprovider`;
const PATCHING_CONFTEST = "import calc\ncalc.add = lambda a, b: a + b\n";

function pythonProject(): Record<string, string> {
  return {
    "calc.py": "def add(a, b):\n    return a - b\n",
    "test_calc.py": "import calc\n\n\ndef test_add():\n    assert calc.add(2, 3) == 5\n",
  };
}
