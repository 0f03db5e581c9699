/**
 * Attacks on the isolated task verifier. Each case is something a learner (or an agent working
 * for one) could do to the workspace to make a check pass without doing the task, or to make
 * the verifier write where it must not. A cheat must not pass; a legitimate fix still must.
 * Real git, real processes, temporary folders; every case ends with the learner's workspace
 * (files, index, HEAD) byte-identical, no leftover worktree and no stray process.
 */
import { createHash } from "node:crypto";
import {
  chmodSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  realpathSync,
  rmSync,
  symlinkSync,
  unlinkSync,
  writeFileSync,
} from "node:fs";
import { dirname, join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { createTaskVerifier, type PinnedCheck } from "../../src/task-verifier/index.ts";
import type { CommandCheck } from "../../src/verifier/checks/command.ts";
import type { ScriptOutcome } from "../../src/verifier/probes.ts";
import {
  dataDirOutside,
  evaluateThrough,
  expectCleanAfter,
  finished,
  makeRepo,
  request,
  snapshot,
  verifierFor,
} from "../support/task-verifier.ts";
import { commitAll, git, makeWorkspace, removeWorkspaces } from "../support/workspace.ts";

afterEach(removeWorkspaces);

// --- fixtures ------------------------------------------------------------------------------

const BUGGY_ADD = "exports.add = (a, b) => a - b;\n";
const FIXED_ADD = "exports.add = (a, b) => a + b;\n";
const ADD_TEST = [
  'const { add } = require("../src/add.js");',
  'if (add(2, 3) !== 5) { console.error("FAIL add(2, 3) is", add(2, 3)); process.exit(1); }',
  'console.log("PASS add");',
  "",
].join("\n");
/** What a cheat puts where a test or a script was. */
const NO_OP = 'console.log("PASS (no-op)");\n';

function manifest(scripts: Record<string, string>, extra: Record<string, unknown> = {}): string {
  return `${JSON.stringify({ name: "demo", version: "1.0.0", private: true, scripts, ...extra }, null, 2)}\n`;
}

/** The running example: `add` subtracts, and test/add.test.js says so. */
function addProject(
  extra: Record<string, string | Buffer> = {},
  scripts: Record<string, string> = { test: "node test/add.test.js" },
): Record<string, string | Buffer> {
  return {
    "package.json": manifest(scripts),
    "src/add.js": BUGGY_ADD,
    "test/add.test.js": ADD_TEST,
    ...extra,
  };
}

/** A committed repository whose `executable` files are committed with mode 755. */
function repoWith(files: Record<string, string | Buffer>, executable: string[] = []): string {
  const dir = realpathSync(makeWorkspace(files));
  for (const path of executable) chmodSync(join(dir, path), 0o755);
  commitAll(dir);
  return dir;
}

/** A folder outside every repository (removed after the test). */
function outsideDir(files: Record<string, string | Buffer> = {}): string {
  return realpathSync(makeWorkspace(files));
}

function write(root: string, path: string, content: string | Buffer): void {
  mkdirSync(dirname(join(root, path)), { recursive: true });
  writeFileSync(join(root, path), content);
}

function link(root: string, path: string, target: string): void {
  rmSync(join(root, path), { recursive: true, force: true });
  mkdirSync(dirname(join(root, path)), { recursive: true });
  symlinkSync(target, join(root, path));
}

const sha256 = (bytes: Buffer | string) => createHash("sha256").update(bytes).digest("hex");

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

function unavailable(outcome: ScriptOutcome): string {
  if (outcome.ok) throw new Error(`expected the check to be refused, it ran: ${outcome.report}`);
  expect(outcome.kind).toBe("unavailable");
  return outcome.message;
}

/** The candidate's patch as the verifier recorded it for that run. */
function candidatePatch(outcome: ScriptOutcome): string {
  const runDir = outcome.verification?.runDir;
  if (!runDir) throw new Error("the run recorded no evidence");
  return readFileSync(join(runDir, "candidate.patch"), "utf8");
}

function pinnedCheck(id: string, run: string): CommandCheck {
  return {
    id,
    type: "command",
    run,
    timeout_ms: 30_000,
    exit_code: 0,
    oracle_paths: [],
    isolation: "worktree",
  };
}

// --- test sources --------------------------------------------------------------------------

describe("tests the candidate tampers with", () => {
  it("a tampered test file is put back; with the real fix it passes", async () => {
    const workspace = makeRepo(addProject());
    const { verifier, dataDir } = await verifierFor(workspace, { pin: [request(workspace, "npm test")] });
    write(workspace, "test/add.test.js", NO_OP);

    let before = snapshot(workspace);
    const cheat = red(await verifier.run(request(workspace, "npm test")));
    expect(cheat.report).toContain("FAIL add(2, 3) is -1");
    expect(cheat.verification?.restored).toContain("test/add.test.js");
    expectCleanAfter(workspace, before, dataDir);

    write(workspace, "src/add.js", FIXED_ADD);
    before = snapshot(workspace);
    green(await verifier.run(request(workspace, "npm test")));
    expectCleanAfter(workspace, before, dataDir);
  });

  it("a deleted test file comes back", async () => {
    const workspace = makeRepo(addProject());
    const { verifier, dataDir } = await verifierFor(workspace, { pin: [request(workspace, "npm test")] });
    unlinkSync(join(workspace, "test/add.test.js"));

    const before = snapshot(workspace);
    const outcome = red(await verifier.run(request(workspace, "npm test")));
    expect(outcome.report).toContain("FAIL add(2, 3) is -1");
    expectCleanAfter(workspace, before, dataDir);
  });

  it("a test file replaced by a link to /dev/null is put back", async () => {
    const workspace = makeRepo(addProject());
    const { verifier, dataDir } = await verifierFor(workspace, { pin: [request(workspace, "npm test")] });
    link(workspace, "test/add.test.js", "/dev/null");

    const before = snapshot(workspace);
    const outcome = red(await verifier.run(request(workspace, "npm test")));
    expect(outcome.report).toContain("FAIL add(2, 3) is -1");
    expectCleanAfter(workspace, before, dataDir);
  });

  it("a test file replaced by a link to a file outside the workspace is put back, the file untouched", async () => {
    const workspace = makeRepo(addProject());
    const outside = outsideDir({ "passing.js": NO_OP });
    const outsideBefore = snapshot(outside);
    const { verifier, dataDir } = await verifierFor(workspace, { pin: [request(workspace, "npm test")] });
    link(workspace, "test/add.test.js", join(outside, "passing.js"));

    const before = snapshot(workspace);
    const outcome = red(await verifier.run(request(workspace, "npm test")));
    expect(outcome.report).toContain("FAIL add(2, 3) is -1");
    expect(snapshot(outside)).toEqual(outsideBefore);
    expectCleanAfter(workspace, before, dataDir);
  });

  it("a test file replaced by a link to a passing script in the workspace is put back", async () => {
    const workspace = makeRepo(addProject());
    const { verifier, dataDir } = await verifierFor(workspace, { pin: [request(workspace, "npm test")] });
    write(workspace, "src/passing.js", NO_OP);
    link(workspace, "test/add.test.js", "../src/passing.js");

    const before = snapshot(workspace);
    const outcome = red(await verifier.run(request(workspace, "npm test")));
    expect(outcome.report).toContain("FAIL add(2, 3) is -1");
    expect(outcome.report).not.toContain("no-op");
    expectCleanAfter(workspace, before, dataDir);
  });

  it("a test folder replaced by a link to a folder of passing tests is put back", async () => {
    const workspace = makeRepo(addProject());
    const { verifier, dataDir } = await verifierFor(workspace, { pin: [request(workspace, "npm test")] });
    write(workspace, "fake-tests/add.test.js", NO_OP);
    link(workspace, "test", "fake-tests");

    const before = snapshot(workspace);
    const outcome = red(await verifier.run(request(workspace, "npm test")));
    expect(outcome.report).toContain("FAIL add(2, 3) is -1");
    expectCleanAfter(workspace, before, dataDir);
  });

  it("a test folder linked to a secret folder outside: the link is removed, never written through", async () => {
    const workspace = makeRepo(addProject());
    // The secret sits exactly where the restored test would be written through the link.
    const secretBytes = Buffer.from("SECRET-TOKEN=do-not-overwrite\n\u0000\u00ff");
    const secret = outsideDir({ "add.test.js": secretBytes });
    const secretBefore = snapshot(secret);
    const { verifier, dataDir } = await verifierFor(workspace, { pin: [request(workspace, "npm test")] });
    link(workspace, "test", secret);

    const before = snapshot(workspace);
    const outcome = red(await verifier.run(request(workspace, "npm test")));
    expect(outcome.report).toContain("FAIL add(2, 3) is -1");
    // The link did reach the worktree (it is in the candidate's patch), and was not followed.
    expect(candidatePatch(outcome)).toContain(`new file mode 120000\nindex`);
    expect(candidatePatch(outcome)).toContain(`+${secret}\n\\ No newline at end of file`);
    expect(readFileSync(join(secret, "add.test.js"))).toEqual(secretBytes);
    expect(snapshot(secret)).toEqual(secretBefore);
    expectCleanAfter(workspace, before, dataDir);
  });

  it("an added test file is removed before the run: it cannot replace the baseline test", async () => {
    const workspace = makeRepo(addProject({}, { test: "node --test" }));
    const { verifier, dataDir } = await verifierFor(workspace, { pin: [request(workspace, "npm test")] });
    // It would end its process early with success; it never runs, and the baseline test fails.
    write(workspace, "test/extra.test.js", 'console.log("EXTRA TEST RAN");\nprocess.exit(0);\n');

    const before = snapshot(workspace);
    const outcome = red(await verifier.run(request(workspace, "npm test")));
    expect(outcome.report).not.toContain("EXTRA TEST RAN");
    expect(outcome.verification?.removedConfigs).toEqual(["test/extra.test.js"]);
    expect(outcome.report).toContain("FAIL add(2, 3) is -1");
    expectCleanAfter(workspace, before, dataDir);
  });

  it("chmod -x on a protected test script is reverted (the fixed candidate passes)", async () => {
    const workspace = repoWith(addProject({ "test/run.sh": "node test/add.test.js\n" }), ["test/run.sh"]);
    const { verifier, dataDir } = await verifierFor(workspace, {
      pin: [request(workspace, "test -x test/run.sh && ./test/run.sh")],
    });
    write(workspace, "src/add.js", FIXED_ADD);
    chmodSync(join(workspace, "test/run.sh"), 0o644);

    const before = snapshot(workspace);
    green(await verifier.run(request(workspace, "test -x test/run.sh && ./test/run.sh")));
    expectCleanAfter(workspace, before, dataDir);
  });
});

// --- package.json --------------------------------------------------------------------------

describe("package.json the candidate rewrites", () => {
  it.each(["true", "exit 0"])("the test script rewritten to `%s` gets the baseline's back", async (cheat) => {
    const workspace = makeRepo(addProject());
    const { verifier, dataDir } = await verifierFor(workspace, { pin: [request(workspace, "npm test")] });
    write(workspace, "package.json", manifest({ test: cheat }));

    const before = snapshot(workspace);
    const outcome = red(await verifier.run(request(workspace, "npm test")));
    expect(outcome.report).toContain("FAIL add(2, 3) is -1");
    expect(outcome.verification?.manifestsMerged).toEqual(["package.json"]);
    expectCleanAfter(workspace, before, dataDir);
  });

  it("an added pretest script that overwrites the test never runs", async () => {
    const workspace = makeRepo(addProject({ "src/passing.js": NO_OP }));
    const { verifier, dataDir } = await verifierFor(workspace, { pin: [request(workspace, "npm test")] });
    write(
      workspace,
      "package.json",
      manifest({
        pretest: "echo PRETEST RAN && cp src/passing.js test/add.test.js",
        test: "node test/add.test.js",
      }),
    );

    const before = snapshot(workspace);
    const outcome = red(await verifier.run(request(workspace, "npm test")));
    expect(outcome.report).not.toContain("PRETEST RAN");
    expect(outcome.report).toContain("FAIL add(2, 3) is -1");
    expectCleanAfter(workspace, before, dataDir);
  });

  it("added pretest and posttest scripts are dropped, the candidate's other fields are kept", async () => {
    const workspace = makeRepo(addProject());
    const { verifier, dataDir } = await verifierFor(workspace, {
      pin: [request(workspace, "npm test && grep description package*.json")],
    });
    write(workspace, "src/add.js", FIXED_ADD);
    write(
      workspace,
      "package.json",
      manifest(
        { pretest: "echo PRETEST RAN", test: "node test/add.test.js", posttest: "echo POSTTEST RAN; exit 3" },
        { description: "kept by the merge" },
      ),
    );

    const before = snapshot(workspace);
    // (A glob, not the name: a file the check names is restored from the baseline.)
    const outcome = green(
      await verifier.run(request(workspace, "npm test && grep description package*.json")),
    );
    expect(outcome.report).not.toContain("PRETEST RAN");
    expect(outcome.report).not.toContain("POSTTEST RAN");
    expect(outcome.report).toContain("kept by the merge");
    expectCleanAfter(workspace, before, dataDir);
  });

  it("a deleted package.json comes back whole", async () => {
    const workspace = makeRepo(addProject());
    const { verifier, dataDir } = await verifierFor(workspace, { pin: [request(workspace, "npm test")] });
    unlinkSync(join(workspace, "package.json"));

    const before = snapshot(workspace);
    const outcome = red(await verifier.run(request(workspace, "npm test")));
    expect(outcome.report).toContain("FAIL add(2, 3) is -1");
    expectCleanAfter(workspace, before, dataDir);
  });

  it("a package.json made invalid JSON comes back whole", async () => {
    const workspace = makeRepo(addProject());
    const { verifier, dataDir } = await verifierFor(workspace, { pin: [request(workspace, "npm test")] });
    write(workspace, "package.json", '{ "name": "demo", "scripts": { "test": "exit 0" }, oops\n');

    const before = snapshot(workspace);
    const outcome = red(await verifier.run(request(workspace, "npm test")));
    expect(outcome.report).toContain("FAIL add(2, 3) is -1");
    expect(outcome.verification?.manifestsMerged).toEqual(["package.json"]);
    expectCleanAfter(workspace, before, dataDir);
  });

  it("a package.json replaced by a link to a manifest outside comes back, the outside one untouched", async () => {
    const workspace = makeRepo(addProject());
    const outside = outsideDir({ "package.json": manifest({ test: "exit 0" }) });
    const outsideBefore = snapshot(outside);
    const { verifier, dataDir } = await verifierFor(workspace, { pin: [request(workspace, "npm test")] });
    link(workspace, "package.json", join(outside, "package.json"));

    const before = snapshot(workspace);
    const outcome = red(await verifier.run(request(workspace, "npm test")));
    expect(outcome.report).toContain("FAIL add(2, 3) is -1");
    expect(snapshot(outside)).toEqual(outsideBefore);
    expectCleanAfter(workspace, before, dataDir);
  });

  it("a package.json added in the check's folder cannot take over `npm test`", async () => {
    const workspace = makeRepo(addProject({ "app/README.md": "the app\n" }));
    const { verifier, dataDir } = await verifierFor(workspace, {
      pin: [request(workspace, "npm test", { cwd: join(workspace, "app") })],
    });
    // npm runs the scripts of the nearest package.json: a new one in app/ would win.
    write(workspace, "app/package.json", manifest({ test: "echo HIJACKED" }));

    const before = snapshot(workspace);
    const outcome = red(await verifier.run(request(workspace, "npm test", { cwd: join(workspace, "app") })));
    expect(outcome.report).not.toContain("HIJACKED");
    expect(outcome.report).toContain("FAIL add(2, 3) is -1");
    expect(outcome.verification?.removedConfigs).toEqual(["app/package.json"]);
    expectCleanAfter(workspace, before, dataDir);
  });
});

// --- scripts the check runs ----------------------------------------------------------------

const RUN_TESTS =
  'require("child_process").execFileSync(process.execPath, ["test/add.test.js"], { stdio: "inherit" });\n';

describe("scripts the candidate rewrites", () => {
  it("a script the package's test script runs is put back", async () => {
    const workspace = makeRepo(
      addProject({ "scripts/run-tests.js": RUN_TESTS }, { test: "node scripts/run-tests.js" }),
    );
    const { verifier, dataDir } = await verifierFor(workspace, { pin: [request(workspace, "npm test")] });
    write(workspace, "scripts/run-tests.js", NO_OP);

    const before = snapshot(workspace);
    const outcome = red(await verifier.run(request(workspace, "npm test")));
    expect(outcome.report).toContain("FAIL add(2, 3) is -1");
    expect(outcome.verification?.restored).toContain("scripts/run-tests.js");
    expectCleanAfter(workspace, before, dataDir);
  });

  it("a script reached recursively (test -> npm run check -> bash scripts/check.sh) is put back", async () => {
    const workspace = makeRepo(
      addProject(
        { "scripts/check.sh": "set -e\nnode test/add.test.js\n" },
        { test: "npm run check", check: "bash scripts/check.sh" },
      ),
    );
    const { verifier, dataDir } = await verifierFor(workspace, { pin: [request(workspace, "npm test")] });
    write(workspace, "scripts/check.sh", "echo all good\n");

    const before = snapshot(workspace);
    const outcome = red(await verifier.run(request(workspace, "npm test")));
    expect(outcome.report).toContain("FAIL add(2, 3) is -1");
    expect(outcome.verification?.restored).toContain("scripts/check.sh");
    expectCleanAfter(workspace, before, dataDir);
  });

  it.each([
    ["a script folder", "scripts/verify.sh"],
    ["the test folder", "test/check.sh"],
  ])("a script in %s named directly by the check's run is put back", async (_where, script) => {
    const workspace = makeRepo(addProject({ [script]: "set -e\nnode test/add.test.js\n" }));
    const { verifier, dataDir } = await verifierFor(workspace, {
      pin: [request(workspace, `bash ${script}`)],
    });
    write(workspace, script, "exit 0\n");

    const before = snapshot(workspace);
    const outcome = red(await verifier.run(request(workspace, `bash ${script}`)));
    expect(outcome.report).toContain("FAIL add(2, 3) is -1");
    expect(outcome.verification?.restored).toContain(script);
    expectCleanAfter(workspace, before, dataDir);
  });

  it("a script with a space in its name, quoted in the check's run, is put back", async () => {
    const workspace = makeRepo(addProject({ "scripts/run tests.js": RUN_TESTS }));
    const { verifier, dataDir } = await verifierFor(workspace, {
      pin: [request(workspace, 'node "scripts/run tests.js"')],
    });
    write(workspace, "scripts/run tests.js", NO_OP);

    const before = snapshot(workspace);
    const outcome = red(await verifier.run(request(workspace, 'node "scripts/run tests.js"')));
    expect(outcome.report).toContain("FAIL add(2, 3) is -1");
    expectCleanAfter(workspace, before, dataDir);
  });

  it("a script the baseline's pretest hook runs is put back (npm runs pre and post scripts too)", async () => {
    const workspace = makeRepo(
      addProject(
        { "scripts/setup.js": 'console.log("setting up");\n', "src/passing.js": NO_OP },
        { pretest: "node scripts/setup.js", test: "node test/add.test.js" },
      ),
    );
    const { verifier, dataDir } = await verifierFor(workspace, { pin: [request(workspace, "npm test")] });
    write(
      workspace,
      "scripts/setup.js",
      'require("fs").copyFileSync("src/passing.js", "test/add.test.js");\nconsole.log("SETUP REPLACED THE TEST");\n',
    );

    const before = snapshot(workspace);
    const outcome = red(await verifier.run(request(workspace, "npm test")));
    expect(outcome.report).not.toContain("SETUP REPLACED THE TEST");
    expect(outcome.report).toContain("FAIL add(2, 3) is -1");
    expectCleanAfter(workspace, before, dataDir);
  });

  it.each(["npm t", "npm run --silent test", "npm run-script test", "node --run test"])(
    "`%s` protects the files of the test script like `npm test` does",
    async (run) => {
      const workspace = makeRepo(
        addProject({ "scripts/run-tests.js": RUN_TESTS }, { test: "node scripts/run-tests.js" }),
      );
      const { verifier, dataDir } = await verifierFor(workspace, { pin: [request(workspace, run)] });
      write(workspace, "scripts/run-tests.js", NO_OP);

      const before = snapshot(workspace);
      const outcome = red(await verifier.run(request(workspace, run)));
      expect(outcome.report).toContain("FAIL add(2, 3) is -1");
      expectCleanAfter(workspace, before, dataDir);
    },
  );
});

// --- configuration -------------------------------------------------------------------------

/**
 * A tiny runner that reads `.mocharc.json` the way mocha does: `ignore` skips test files.
 * Without a config file it runs every test/*.test.js.
 */
const MINI_RUNNER = `const fs = require("fs");
const { execFileSync } = require("child_process");
const config = fs.existsSync(".mocharc.json") ? JSON.parse(fs.readFileSync(".mocharc.json", "utf8")) : {};
const ignore = new Set(config.ignore ?? []);
let failed = 0;
for (const file of fs.readdirSync("test").filter((name) => name.endsWith(".test.js")).sort()) {
  if (ignore.has("test/" + file)) { console.log("skipped test/" + file); continue; }
  try { execFileSync(process.execPath, ["test/" + file], { stdio: "inherit" }); } catch { failed++; }
}
process.exit(failed ? 1 : 0);
`;

describe("configuration the candidate changes or adds", () => {
  it("a test config changed to skip the failing test is put back", async () => {
    const workspace = makeRepo(
      addProject({ "scripts/mini-runner.js": MINI_RUNNER, ".mocharc.json": '{ "ignore": [] }\n' }),
    );
    const { verifier, dataDir } = await verifierFor(workspace, {
      pin: [request(workspace, "node scripts/mini-runner.js")],
    });
    write(workspace, ".mocharc.json", '{ "ignore": ["test/add.test.js"] }\n');

    const before = snapshot(workspace);
    const outcome = red(await verifier.run(request(workspace, "node scripts/mini-runner.js")));
    expect(outcome.report).not.toContain("skipped");
    expect(outcome.report).toContain("FAIL add(2, 3) is -1");
    expect(outcome.verification?.restored).toContain(".mocharc.json");
    expectCleanAfter(workspace, before, dataDir);
  });

  it("a test config the baseline did not have is removed", async () => {
    const workspace = makeRepo(addProject({ "scripts/mini-runner.js": MINI_RUNNER }));
    const { verifier, dataDir } = await verifierFor(workspace, {
      pin: [request(workspace, "node scripts/mini-runner.js")],
    });
    write(workspace, ".mocharc.json", '{ "ignore": ["test/add.test.js"] }\n');

    const before = snapshot(workspace);
    const outcome = red(await verifier.run(request(workspace, "node scripts/mini-runner.js")));
    expect(outcome.report).not.toContain("skipped");
    expect(outcome.verification?.removedConfigs).toEqual([".mocharc.json"]);
    expectCleanAfter(workspace, before, dataDir);
  });

  it("an added test config hidden from git by the candidate's .gitignore is removed too", async () => {
    const workspace = makeRepo(addProject({ "scripts/mini-runner.js": MINI_RUNNER }));
    const { verifier, dataDir } = await verifierFor(workspace, {
      pin: [request(workspace, "node scripts/mini-runner.js")],
    });
    write(workspace, ".gitignore", ".mocharc.json\n");
    write(workspace, ".mocharc.json", '{ "ignore": ["test/add.test.js"] }\n');
    git(workspace, "add", "-f", ".mocharc.json");

    const before = snapshot(workspace);
    const outcome = red(await verifier.run(request(workspace, "node scripts/mini-runner.js")));
    expect(outcome.report).not.toContain("skipped");
    // The candidate is read through pi-quests' own index, built from HEAD: a file only the
    // learner's index holds (`git add -f`) and a .gitignore ignores never enters the worktree.
    expect(outcome.verification?.removedConfigs).toEqual([]);
    expectCleanAfter(workspace, before, dataDir);
  });

  it("tsconfig's strict: true turned off by the candidate is put back", async () => {
    // A stand-in type checker: under strict, `any` is an error.
    const typecheck = `const fs = require("fs");
const strict = JSON.parse(fs.readFileSync("tsconfig.json", "utf8")).compilerOptions.strict === true;
const source = fs.readFileSync("src/total.ts", "utf8");
if (strict && source.includes(": any")) { console.error("FAIL implicit any under strict"); process.exit(1); }
console.log("typecheck ok, strict =", strict);
`;
    const workspace = makeRepo({
      "tsconfig.json": '{\n  "compilerOptions": { "strict": true }\n}\n',
      "scripts/typecheck.js": typecheck,
      "src/total.ts": "export const total = (xs: number[]): number => xs.length;\n",
    });
    const { verifier, dataDir } = await verifierFor(workspace, {
      pin: [request(workspace, "node scripts/typecheck.js")],
    });
    write(workspace, "src/total.ts", "export const total = (xs: any): any => xs.length;\n");
    write(workspace, "tsconfig.json", '{\n  "compilerOptions": { "strict": false }\n}\n');

    const before = snapshot(workspace);
    const outcome = red(await verifier.run(request(workspace, "node scripts/typecheck.js")));
    expect(outcome.report).toContain("FAIL implicit any under strict");
    expect(outcome.verification?.restored).toContain("tsconfig.json");
    expectCleanAfter(workspace, before, dataDir);
  });

  it("an added .npmrc (script-shell=/bin/true would make every script pass) is removed", async () => {
    const workspace = makeRepo(addProject());
    const { verifier, dataDir } = await verifierFor(workspace, { pin: [request(workspace, "npm test")] });
    write(workspace, ".npmrc", "script-shell=/bin/true\n");

    const before = snapshot(workspace);
    const outcome = red(await verifier.run(request(workspace, "npm test")));
    expect(outcome.report).toContain("FAIL add(2, 3) is -1");
    expect(outcome.verification?.removedConfigs).toEqual([".npmrc"]);
    expectCleanAfter(workspace, before, dataDir);
  });
});

// --- oracle_paths --------------------------------------------------------------------------

const COMPARE = `const { execFileSync } = require("child_process");
const actual = execFileSync(process.execPath, ["src/greet.js"], { encoding: "utf8" });
const expected = require("fs").readFileSync("expected/greeting.txt", "utf8");
if (actual !== expected) { console.error("FAIL got", JSON.stringify(actual), "want", JSON.stringify(expected)); process.exit(1); }
console.log("PASS greeting");
`;

describe("oracle_paths", () => {
  it("an expected-output file the candidate edits is put back; without oracle_paths it would not be", async () => {
    const workspace = makeRepo({
      "src/greet.js": 'console.log("helo, world");\n',
      "expected/greeting.txt": "hello, world\n",
      "scripts/compare.js": COMPARE,
    });
    const { verifier, dataDir } = await verifierFor(workspace, {
      pin: [
        request(workspace, "node scripts/compare.js", { oraclePaths: ["expected/greeting.txt"] }),
        request(workspace, "node scripts/compare.js", { checkId: "no-oracle" }),
      ],
    });
    write(workspace, "expected/greeting.txt", "helo, world\n");

    const before = snapshot(workspace);
    const guarded = red(
      await verifier.run(
        request(workspace, "node scripts/compare.js", { oraclePaths: ["expected/greeting.txt"] }),
      ),
    );
    expect(guarded.report).toContain('want "hello, world\\n"');
    expect(guarded.verification?.restored).toContain("expected/greeting.txt");
    // The same cheat without the oracle declared: nothing else protects that file.
    green(await verifier.run(request(workspace, "node scripts/compare.js", { checkId: "no-oracle" })));
    expectCleanAfter(workspace, before, dataDir);
  });

  it("the fixed program passes against the protected oracle (a whole oracle folder)", async () => {
    const workspace = makeRepo({
      "src/greet.js": 'console.log("helo, world");\n',
      "expected/greeting.txt": "hello, world\n",
      "scripts/compare.js": COMPARE,
    });
    const { verifier, dataDir } = await verifierFor(workspace, {
      pin: [request(workspace, "node scripts/compare.js", { oraclePaths: ["expected/"] })],
    });
    write(workspace, "src/greet.js", 'console.log("hello, world");\n');

    const before = snapshot(workspace);
    const outcome = green(
      await verifier.run(request(workspace, "node scripts/compare.js", { oraclePaths: ["expected/"] })),
    );
    expect(outcome.verification?.restored).toContain("expected/greeting.txt");
    expectCleanAfter(workspace, before, dataDir);
  });

  it.each([
    ["not tracked at the baseline (the candidate created it)", "expected/new.txt"],
    ["outside the repository", "../expected/greeting.txt"],
    ["absolute", "/etc/hostname"],
  ])("an oracle path %s leaves the check pending and runs nothing", async (_why, oracle) => {
    const workspace = makeRepo({ "expected/greeting.txt": "hello, world\n" });
    const marker = outsideDir();
    const { verifier, dataDir } = await verifierFor(workspace, {
      pin: [request(workspace, `touch ${join(marker, "ran")}`, { oraclePaths: [oracle] })],
    });
    write(workspace, "expected/new.txt", "made up by the candidate\n");

    const before = snapshot(workspace);
    const outcome = await verifier.run(
      request(workspace, `touch ${join(marker, "ran")}`, { oraclePaths: [oracle] }),
    );
    expect(unavailable(outcome)).toContain(`oracle_paths must be files tracked at the baseline: ${oracle}`);
    expect(existsSync(join(marker, "ran"))).toBe(false);
    expectCleanAfter(workspace, before, dataDir);
  });
});

// --- commits and branches ------------------------------------------------------------------

describe("commits made after the baseline was pinned", () => {
  it("a commit that rewrites the test moves neither the baseline nor the test", async () => {
    const workspace = makeRepo(addProject());
    const { verifier, dataDir } = await verifierFor(workspace, { pin: [request(workspace, "npm test")] });
    const pinned = verifier.baseline;
    write(workspace, "test/add.test.js", NO_OP);
    git(workspace, "commit", "-q", "-am", "simplify the test");
    const head = git(workspace, "rev-parse", "HEAD").trim();

    const before = snapshot(workspace);
    const outcome = red(await verifier.run(request(workspace, "npm test")));
    expect(outcome.report).toContain("FAIL add(2, 3) is -1");
    expect(verifier.baseline).toBe(pinned);
    expect(outcome.verification).toMatchObject({ baseline: pinned, head });
    expect(head).not.toBe(pinned);
    expectCleanAfter(workspace, before, dataDir);
  });

  it("a commit on a new branch: the fix counts, a test rewrite on that branch does not", async () => {
    const workspace = makeRepo(addProject());
    const { verifier, dataDir } = await verifierFor(workspace, { pin: [request(workspace, "npm test")] });
    const pinned = verifier.baseline;
    git(workspace, "checkout", "-q", "-b", "feature");
    write(workspace, "src/add.js", FIXED_ADD);
    git(workspace, "commit", "-q", "-am", "fix add");

    let before = snapshot(workspace);
    const fixed = green(await verifier.run(request(workspace, "npm test")));
    expect(fixed.verification).toMatchObject({
      baseline: pinned,
      head: git(workspace, "rev-parse", "feature").trim(),
    });
    expectCleanAfter(workspace, before, dataDir);

    write(workspace, "src/add.js", BUGGY_ADD);
    write(workspace, "test/add.test.js", NO_OP);
    git(workspace, "commit", "-q", "-am", "undo the fix, drop the test");
    before = snapshot(workspace);
    red(await verifier.run(request(workspace, "npm test")));
    expect(verifier.baseline).toBe(pinned);
    expectCleanAfter(workspace, before, dataDir);
  });
});

// --- symbolic links out of the workspace ---------------------------------------------------

describe("links that lead out of the workspace", () => {
  it("a link outside in a place nothing protects is kept, and its target is not modified", async () => {
    const workspace = makeRepo({
      "src/read.js": 'console.log(require("fs").readFileSync("src/data/value.txt", "utf8"));\n',
    });
    const outside = outsideDir({ "value.txt": "forty-two\n" });
    const outsideBefore = snapshot(outside);
    const { verifier, dataDir } = await verifierFor(workspace, {
      pin: [request(workspace, "test -L src/data && node src/read.js")],
    });
    link(workspace, "src/data", outside);

    const before = snapshot(workspace);
    const outcome = green(await verifier.run(request(workspace, "test -L src/data && node src/read.js")));
    expect(outcome.report).toContain("forty-two");
    expect(snapshot(outside)).toEqual(outsideBefore);
    expectCleanAfter(workspace, before, dataDir);
  });

  it("a package folder linked to one outside: its manifest is restored here, never written there", async () => {
    const workspace = makeRepo({
      "packages/lib/package.json": manifest({ test: "node ../../test/lib.test.js" }),
      "packages/lib/index.js": "module.exports = 1;\n",
      "test/lib.test.js": 'console.error("FAIL lib");\nprocess.exit(1);\n',
    });
    // The outside manifest cheats, and the verifier must not "merge" the baseline scripts into it.
    const outsideManifest = manifest({ test: "exit 0" }, { secret: "outside bytes" });
    const outside = outsideDir({
      "lib/package.json": outsideManifest,
      "lib/index.js": "module.exports = 1;\n",
    });
    const outsideBefore = snapshot(outside);
    const { verifier, dataDir } = await verifierFor(workspace, {
      pin: [request(workspace, "cd packages/lib && npm test")],
    });
    link(workspace, "packages", outside);

    const before = snapshot(workspace);
    const outcome = red(await verifier.run(request(workspace, "cd packages/lib && npm test")));
    expect(outcome.report).toContain("FAIL lib");
    expect(candidatePatch(outcome)).toContain(`diff --git a/packages b/packages\nnew file mode 120000`);
    expect(readFileSync(join(outside, "lib/package.json"), "utf8")).toBe(outsideManifest);
    expect(snapshot(outside)).toEqual(outsideBefore);
    expectCleanAfter(workspace, before, dataDir);
  });
});

// --- names, bytes and modes ----------------------------------------------------------------

describe("file names, bytes and modes", () => {
  const SUM_TEST = [
    'const { suma } = require("../src/módulo de suma.js");',
    'if (suma(2, 3) !== 5) { console.error("FAIL suma is", suma(2, 3)); process.exit(1); }',
    'console.log("PASS suma ✓");',
    "",
  ].join("\n");
  const files = {
    "src/módulo de suma.js": "exports.suma = (a, b) => a * b;\n",
    "test/prueba número 1 ✓.test.js": SUM_TEST,
  };
  const run = 'node "test/prueba número 1 ✓.test.js"';

  it("spaces and unicode in names: the fix to such a source passes, a rewrite of such a test does not", async () => {
    const workspace = makeRepo(files);
    const withNewFile = request(workspace, `${run} && test -f "src/otra función.js"`, { checkId: "fixed" });
    const { verifier, dataDir } = await verifierFor(workspace, {
      pin: [request(workspace, run), withNewFile],
    });
    write(workspace, "test/prueba número 1 ✓.test.js", NO_OP);

    let before = snapshot(workspace);
    const cheat = red(await verifier.run(request(workspace, run)));
    expect(cheat.report).toContain("FAIL suma is 6");
    expect(cheat.verification?.restored).toContain("test/prueba número 1 ✓.test.js");
    expectCleanAfter(workspace, before, dataDir);

    write(workspace, "src/módulo de suma.js", "exports.suma = (a, b) => a + b;\n");
    write(workspace, "src/otra función.js", "// a new file with a unicode name\n");
    before = snapshot(workspace);
    const fixed = green(await verifier.run(withNewFile));
    expect(fixed.report).toContain("PASS suma ✓");
    expectCleanAfter(workspace, before, dataDir);
  });

  it("binary files arrive in the worktree byte for byte (checked by sha256)", async () => {
    const bytes = (seed: string, length: number) => {
      const chunks: Buffer[] = [];
      for (let i = 0; chunks.length * 32 < length; i++)
        chunks.push(createHash("sha256").update(`${seed}${i}`).digest());
      return Buffer.concat([Buffer.from([0, 255, 13, 10, 0]), ...chunks]).subarray(0, length);
    };
    // Prints "sha256  name" for each file of a folder. The check names only the folder: a file
    // the check names would be restored from the baseline.
    const hasher = `const fs = require("fs"), path = require("path"), crypto = require("crypto");
for (const name of fs.readdirSync(process.argv[2]).sort())
  console.log(crypto.createHash("sha256").update(fs.readFileSync(path.join(process.argv[2], name))).digest("hex") + "  " + name);
`;
    const workspace = makeRepo({ "assets/logo.bin": bytes("old", 3000), "scripts/hashes.js": hasher });
    const changed = bytes("changed", 70_000);
    const added = Buffer.concat([bytes("added", 4096), Buffer.from("\r\n\r\nno newline at the end")]);
    const check = request(
      workspace,
      [
        "hashes=$(node scripts/hashes.js assets)",
        'echo "$hashes"',
        `grep -qx "${sha256(changed)}  logo.bin" <<<"$hashes" && grep -qx "${sha256(added)}  new image.bin" <<<"$hashes"`,
      ].join("\n"),
    );
    const { verifier, dataDir } = await verifierFor(workspace, { pin: [check] });
    write(workspace, "assets/logo.bin", changed);
    write(workspace, "assets/new image.bin", added);

    const before = snapshot(workspace);
    const outcome = green(await verifier.run(check));
    expect(outcome.report).toContain(`${sha256(added)}  new image.bin`);
    expectCleanAfter(workspace, before, dataDir);
  });

  it("chmod +x on a script the check runs directly is kept (its content still comes from the baseline)", async () => {
    const workspace = makeRepo({ "scripts/hello.sh": "#!/bin/sh\necho hello from the baseline\n" });
    const { verifier, dataDir } = await verifierFor(workspace, {
      pin: [request(workspace, "./scripts/hello.sh")],
    });
    chmodSync(join(workspace, "scripts/hello.sh"), 0o755);

    const before = snapshot(workspace);
    const outcome = green(await verifier.run(request(workspace, "./scripts/hello.sh")));
    expect(outcome.report).toContain("hello from the baseline");
    expectCleanAfter(workspace, before, dataDir);
  });
});

// --- the learner's workspace ---------------------------------------------------------------

describe("what comes from the workspace, and what stays there", () => {
  it("an ignored file is not in the worktree; an untracked one is", async () => {
    const workspace = makeRepo({ ".gitignore": "*.secret\n", "README.md": "demo\n" });
    const { verifier, dataDir } = await verifierFor(workspace, {
      pin: [request(workspace, "test ! -e local.secret && test -f notes.txt")],
    });
    write(workspace, "local.secret", "API_KEY=abc\n");
    write(workspace, "notes.txt", "not ignored\n");

    const before = snapshot(workspace);
    green(await verifier.run(request(workspace, "test ! -e local.secret && test -f notes.txt")));
    expectCleanAfter(workspace, before, dataDir);
  });

  it("node_modules is linked from the workspace package by package, a check can require from it, and nothing is installed", async () => {
    const workspace = makeRepo({
      ".gitignore": "node_modules/\n",
      "package.json": manifest(
        { test: "node test/greeter.test.js" },
        { dependencies: { greeter: "1.0.0", "left-pad": "1.3.0" } },
      ),
      "test/greeter.test.js":
        'const greet = require("greeter");\nif (greet() !== "hi") process.exit(1);\nconsole.log("greeter says", greet());\n',
    });
    write(workspace, "node_modules/greeter/package.json", '{ "name": "greeter", "version": "1.0.0" }\n');
    write(workspace, "node_modules/greeter/index.js", 'module.exports = () => "hi";\n');
    const check = request(
      workspace,
      `test "$(readlink node_modules/greeter)" = "${join(workspace, "node_modules/greeter")}" && npm test && test ! -e node_modules/left-pad`,
    );
    const { verifier, dataDir } = await verifierFor(workspace, { pin: [check] });

    const before = snapshot(workspace);
    const outcome = green(await verifier.run(check));
    expect(outcome.report).toContain("greeter says hi");
    expectCleanAfter(workspace, before, dataDir);
  });

  it("a tool's cache written under node_modules stays in the worktree, not in the learner's node_modules", async () => {
    const workspace = makeRepo({ ".gitignore": "node_modules/\n", "test/check.sh": "exit 0\n" });
    write(workspace, "node_modules/greeter/index.js", 'module.exports = () => "hi";\n');
    write(workspace, "node_modules/.cache/old/keep.txt", "the learner's cache\n");
    const check = request(
      workspace,
      "mkdir -p node_modules/.cache/tool node_modules/.vite && echo x > node_modules/.cache/tool/f && echo y > node_modules/.vite/results.json && bash test/check.sh",
    );
    const { verifier, dataDir } = await verifierFor(workspace, { pin: [check] });

    const before = snapshot(workspace);
    green(await verifier.run(check));
    expectCleanAfter(workspace, before, dataDir);
  });

  it("staged changes and untracked files are verified, and the learner's index is left as it was", async () => {
    const workspace = makeRepo(addProject({ "README.md": "demo\n" }));
    const { verifier, dataDir } = await verifierFor(workspace, {
      pin: [request(workspace, "npm test && grep -q unstaged READ*.md && test -f notes/todo.md")],
    });
    write(workspace, "src/add.js", FIXED_ADD);
    git(workspace, "add", "src/add.js");
    write(workspace, "README.md", "demo, unstaged edit\n");
    write(workspace, "notes/todo.md", "untracked\n");
    const staged = git(workspace, "diff", "--cached", "--name-only");

    const before = snapshot(workspace);
    expect(Object.keys(before)).toContain(join(".git", "index"));
    green(
      await verifier.run(
        request(workspace, "npm test && grep -q unstaged READ*.md && test -f notes/todo.md"),
      ),
    );
    expect(git(workspace, "diff", "--cached", "--name-only")).toBe(staged);
    expectCleanAfter(workspace, before, dataDir);
  });
});

// --- the learner's git configuration ------------------------------------------------------

describe("the learner's own git configuration", () => {
  it("a smudge filter set in .git/config cannot rewrite the restored test", async () => {
    const workspace = makeRepo(addProject());
    const { verifier, dataDir } = await verifierFor(workspace, { pin: [request(workspace, "npm test")] });
    // The worktree shares .git/config and .git/info with the workspace: a filter set there runs
    // whenever git writes a matching file into the worktree.
    git(workspace, "config", "filter.pass.smudge", `echo 'console.log("PASS (smudged)")'`);
    write(workspace, ".git/info/attributes", "*.test.js filter=pass\n");

    const before = snapshot(workspace);
    const outcome = red(await verifier.run(request(workspace, "npm test")));
    expect(outcome.report).not.toContain("smudged");
    expect(outcome.report).toContain("FAIL add(2, 3) is -1");
    expectCleanAfter(workspace, before, dataDir);
  });

  it("no filter command from .git/config runs while the verifier checks out, applies or diffs", async () => {
    const workspace = makeRepo(addProject());
    const { verifier, dataDir } = await verifierFor(workspace, { pin: [request(workspace, "npm test")] });
    const marker = outsideDir();
    // A filter command that would start outside the check's process group, on every file.
    for (const step of ["smudge", "clean"]) {
      git(workspace, "config", `filter.spy.${step}`, `sh -c 'touch ${join(marker, step)}; cat'`);
    }
    write(workspace, ".git/info/attributes", "* filter=spy\n");
    write(workspace, "src/add.js", FIXED_ADD);

    const before = snapshot(workspace);
    green(await verifier.run(request(workspace, "npm test")));
    expect(existsSync(join(marker, "smudge"))).toBe(false);
    expect(existsSync(join(marker, "clean"))).toBe(false);
    expectCleanAfter(workspace, before, dataDir);
  });

  it("diff.noprefix in .git/config does not garble the candidate's patch: the fix still passes", async () => {
    const workspace = makeRepo(addProject());
    const { verifier, dataDir } = await verifierFor(workspace, {
      pin: [request(workspace, "npm test && node -e 'require(\"./src/extra\")'")],
    });
    git(workspace, "config", "diff.noprefix", "true");
    write(workspace, "src/add.js", FIXED_ADD);
    write(workspace, "src/extra.js", "exports.extra = true;\n");

    const before = snapshot(workspace);
    green(await verifier.run(request(workspace, "npm test && node -e 'require(\"./src/extra\")'")));
    expectCleanAfter(workspace, before, dataDir);
  });
});

// --- pinned quest definitions --------------------------------------------------------------

describe("checks pinned by the host", () => {
  it("a quest file the candidate edited is not what runs: the engine names the check, the pinned definition runs", async () => {
    const workspace = makeRepo(
      addProject({ "quests/add.yaml": "id: q\nchecks:\n  - id: c\n    type: command\n    run: npm test\n" }),
    );
    const marker = outsideDir();
    const { verifier, dataDir } = await verifierFor(workspace, {
      checks: [{ questId: "q", check: pinnedCheck("c", "npm test") }],
    });
    const edited = `touch ${join(marker, "ran")}; exit 0`;
    write(workspace, "quests/add.yaml", `id: q\nchecks:\n  - id: c\n    type: command\n    run: ${edited}\n`);

    const before = snapshot(workspace);
    // The engine evaluates the edited quest: its request names q/c and carries no definition.
    const result = await evaluateThrough(verifier.runRequest, [pinnedCheck("c", edited)], {
      workspace,
      dataDir,
    });
    expect(result.checks[0]).toMatchObject({
      status: "fail",
      evidence: {
        summary: expect.stringContaining("exit code 1"),
        output: expect.stringContaining("FAIL add(2, 3) is -1"),
      },
    });
    expect(result.checks[0]?.evidence).toMatchObject({
      output: expect.stringContaining("FAIL add(2, 3) is -1"),
    });
    expect(existsSync(join(marker, "ran"))).toBe(false);
    // The pinned definition itself still runs, and fails as it should.
    red(await verifier.run(request(workspace, "npm test")));
    expectCleanAfter(workspace, before, dataDir);
  });

  it("the host's checks are cloned: changing the caller's array afterwards changes nothing", async () => {
    const workspace = makeRepo(addProject());
    const checks: PinnedCheck[] = [{ questId: "q", check: pinnedCheck("c", "npm test") }];
    const { verifier, dataDir } = await verifierFor(workspace, { checks });
    const first = checks[0];
    if (first) {
      first.check.run = "exit 0";
      first.check.oracle_paths.push("README.md");
    }
    checks.push({ questId: "q", check: pinnedCheck("extra", "exit 0") });

    const before = snapshot(workspace);
    // q/c runs as pinned: `npm test` on the buggy add, not the caller's `exit 0`.
    const pinned = red(await verifier.runRequest({ questId: "q", checkId: "c", cwd: workspace }));
    expect(pinned.report).toContain("FAIL add(2, 3) is -1");
    expect(
      unavailable(await verifier.runRequest({ questId: "q", checkId: "extra", cwd: workspace })),
    ).toContain("not one of the checks pinned");
    red(await verifier.run(request(workspace, "npm test")));
    expectCleanAfter(workspace, before, dataDir);
  });

  it("a pinned folder written with {workspace}, or reached through a link to the workspace, runs there", async () => {
    const workspace = makeRepo({ ...addProject(), "app/README.md": "the app\n" });
    const links = outsideDir();
    symlinkSync(workspace, join(links, "project"));
    const inApp = 'test "$(basename "$PWD")" = app';
    const { verifier, dataDir } = await verifierFor(workspace, {
      checks: [
        { questId: "q", check: { ...pinnedCheck("templated", inApp), cwd: "{workspace}/app" } },
        { questId: "q", check: { ...pinnedCheck("plain", inApp), cwd: "app" } },
      ],
    });

    const before = snapshot(workspace);
    const templated = await verifier.runRequest({
      questId: "q",
      checkId: "templated",
      cwd: join(workspace, "app"),
    });
    expect(finished(templated).exitCode).toBe(0);
    const linked = await verifier.runRequest({
      questId: "q",
      checkId: "plain",
      cwd: join(links, "project", "app"),
    });
    expect(finished(linked).exitCode).toBe(0);
    expectCleanAfter(workspace, before, dataDir);
  });

  it("a pinned folder that leaves the workspace, through {workspace}/.. or a link the agent made, runs nothing there", async () => {
    const outside = outsideDir();
    const workspace = makeRepo(addProject());
    symlinkSync(outside, join(workspace, "app"));
    const marker = `touch "$PWD/ran"`;
    const { verifier, dataDir } = await verifierFor(workspace, {
      checks: [
        { questId: "q", check: { ...pinnedCheck("up", marker), cwd: "{workspace}/.." } },
        { questId: "q", check: { ...pinnedCheck("linked", marker), cwd: "app" } },
      ],
    });

    const before = snapshot(workspace);
    const up = await verifier.runRequest({ questId: "q", checkId: "up", cwd: dirname(workspace) });
    expect(unavailable(up)).toContain("is outside the repository");
    const linked = await verifier.runRequest({
      questId: "q",
      checkId: "linked",
      cwd: join(workspace, "app"),
    });
    expect(unavailable(linked)).toBe(
      "the check's folder app leads out of the worktree through a link (the candidate's change); nothing ran",
    );
    expect(existsSync(join(outside, "ran"))).toBe(false);
    expect(existsSync(join(dirname(workspace), "ran"))).toBe(false);
    expectCleanAfter(workspace, before, dataDir);
  });

  it("a request naming another folder than the pinned check's is refused and runs nothing", async () => {
    const workspace = makeRepo(addProject());
    mkdirSync(join(workspace, "app"));
    const marker = outsideDir();
    const { verifier, dataDir } = await verifierFor(workspace, {
      checks: [{ questId: "q", check: pinnedCheck("c", `touch ${join(marker, "ran")}`) }],
    });

    const before = snapshot(workspace);
    const message = unavailable(
      await verifier.runRequest({ questId: "q", checkId: "c", cwd: join(workspace, "app") }),
    );
    expect(message).toBe(
      `q/c runs in ${workspace}, the folder pinned when the quest started, not in ${join(workspace, "app")}`,
    );
    expect(existsSync(join(marker, "ran"))).toBe(false);
    expectCleanAfter(workspace, before, dataDir);
  });
});

// --- the data dir --------------------------------------------------------------------------

describe("a data dir reached through links", () => {
  it("a data dir that is a link into the workspace is refused; a link elsewhere is resolved first", async () => {
    const workspace = makeRepo(addProject());
    mkdirSync(join(workspace, "inside"));
    const links = outsideDir();
    symlinkSync(join(workspace, "inside"), join(links, "into-workspace"));
    const real = dataDirOutside();
    symlinkSync(real, join(links, "elsewhere"));

    const before = snapshot(workspace);
    const refused = await createTaskVerifier({
      workspace,
      dataDir: join(links, "into-workspace"),
      checks: [],
    });
    expect(refused).toMatchObject({ ok: false, kind: "bad_options" });
    expect(readdirSync(join(workspace, "inside"))).toEqual([]);

    const { verifier, dataDir } = await verifierFor(workspace, {
      dataDir: join(links, "elsewhere"),
      pin: [request(workspace, "npm test")],
    });
    expect(dataDir).toBe(join(links, "elsewhere"));
    expect(verifier.dataDir).toBe(real);
    const outcome = red(await verifier.run(request(workspace, "npm test")));
    expect(outcome.verification?.runDir.startsWith(`${real}/`)).toBe(true);
    expectCleanAfter(workspace, before, real);
  });

  it("a data dir whose workspaces folder is a link is refused, and the link's target stays empty", async () => {
    const workspace = makeRepo(addProject());
    const dataDir = dataDirOutside();
    const elsewhere = outsideDir();
    symlinkSync(elsewhere, join(dataDir, "workspaces"));

    const before = snapshot(workspace);
    const made = await createTaskVerifier({ workspace, dataDir, checks: [] });
    expect(made).toMatchObject({ ok: false, kind: "data_dir" });
    if (!made.ok) expect(made.message).toContain("symbolic link");
    expect(readdirSync(elsewhere)).toEqual([]);
    expectCleanAfter(workspace, before, dataDir);
  });
});
