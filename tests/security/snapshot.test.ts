/**
 * Red team: "what runs is what was fingerprinted" and "dependencies cannot be swapped". Each case
 * is what Pi's agent could run from its bash tool (files written, a lock held, node_modules
 * patched, a look-alike tool put on PATH) to make a receipt or a check say `pass` for work that
 * was not done. Real git, real processes; every case ends with the learner's files as the attack
 * left them, no leftover worktree and no stray process.
 */
import {
  chmodSync,
  mkdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  utimesSync,
  writeFileSync,
} from "node:fs";
import { dirname, join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { workspaceHome } from "../../src/core/workspace-key.ts";
import { fullFingerprint } from "../../src/receipts/fingerprint.ts";
import { openWriterStore } from "../../src/receipts/writers.ts";
import { type DependencyPin, pinDependencies } from "../../src/task-verifier/index.ts";
import { acquireWorkspaceLock } from "../../src/task-verifier/lock.ts";
import type { ScriptOutcome } from "../../src/verifier/probes.ts";
import type { CheckResult, QuestResult } from "../../src/verifier/results.ts";
import { ADD_TEST, BUGGY_ADD, FIXED_ADD } from "../support/add-project.ts";
import { evaluatorFor } from "../support/command-quest.ts";
import {
  dataDirOutside,
  expectCleanAfter,
  finished,
  makeRepo,
  NPM_CLI,
  request,
  snapshot,
  verifierFor,
} from "../support/task-verifier.ts";
import { git, makeWorkspace, removeWorkspaces } from "../support/workspace.ts";

afterEach(removeWorkspaces);

// --- fixtures ------------------------------------------------------------------------------

/** The same test, through a checker package installed in node_modules. */
const CHECKED_TEST = 'require("add-check")(require("../src/add.js").add);\n';
const ADD_CHECK = [
  "module.exports = (add) => {",
  '  if (add(2, 3) !== 5) { console.error("FAIL add(2, 3) is", add(2, 3)); process.exit(1); }',
  '  console.log("PASS add");',
  "};",
  "",
].join("\n");
const manifest = `${JSON.stringify({ name: "demo", version: "1.0.0", private: true, scripts: { test: "node test/add.test.js" } }, null, 2)}\n`;

function addProject(extra: Record<string, string> = {}): Record<string, string> {
  return { "package.json": manifest, "src/add.js": BUGGY_ADD, "test/add.test.js": ADD_TEST, ...extra };
}

/** A project whose test needs `add-check`, installed (ignored, untracked) as npm would. */
function projectWithDependencies(): string {
  const workspace = makeRepo(
    addProject({ ".gitignore": "node_modules/\n", "test/add.test.js": CHECKED_TEST }),
  );
  mkdirSync(join(workspace, "node_modules", "add-check"), { recursive: true });
  writeFileSync(join(workspace, "node_modules", "add-check", "index.js"), ADD_CHECK);
  writeFileSync(
    join(workspace, "node_modules", "add-check", "package.json"),
    '{ "name": "add-check", "version": "1.0.0", "main": "index.js" }\n',
  );
  return workspace;
}

const only = (result: QuestResult): CheckResult => {
  const [check] = result.checks;
  if (!check) throw new Error("the quest has no check");
  return check;
};
const commandEvidence = (check: CheckResult) => {
  if (check.evidence.kind !== "command") throw new Error(`not a command result: ${check.evidence.summary}`);
  return check.evidence;
};

/** The workspace fingerprint as the receipts compute it, read in full from disk. */
async function fingerprintOf(workspace: string): Promise<string> {
  const taken = await fullFingerprint(workspace);
  if (!taken.ok) throw new Error(taken.reason);
  return taken.fingerprint.value;
}

/** Waits until the check's receipt says `running`: begin() has fingerprinted the workspace. */
async function untilRunning(dataDir: string, workspace: string): Promise<void> {
  const store = await openWriterStore({
    dataDir,
    workspaceHome: workspaceHome(dataDir, workspace),
    workspace,
    writer: "pi",
    readOnly: true,
  });
  for (let i = 0; i < 2000; i++) {
    const { receipts } = await store.list();
    if (receipts.some((receipt) => receipt.state === "running")) return;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  throw new Error("the check never started");
}

function pending(outcome: ScriptOutcome): string {
  if (outcome.ok || outcome.kind !== "unavailable")
    throw new Error(`expected a pending (unavailable) run, got ${JSON.stringify(outcome).slice(0, 400)}`);
  return outcome.message;
}

function pinned(pin: DependencyPin): DependencyPin & { kind: "pinned" } {
  if (pin.kind !== "pinned") throw new Error(`no pin: ${pin.reason}`);
  return pin;
}

function shim(path: string, body: string): void {
  mkdirSync(join(path, ".."), { recursive: true });
  writeFileSync(path, `#!/bin/sh\n${body}\n`);
  chmodSync(path, 0o755);
}

// --- what runs is what was fingerprinted ---------------------------------------------------

describe("the receipt's fingerprint is of the files the run used", () => {
  it("the agent holds the verifier's lock and swaps the bug for the fix after the check was fingerprinted: the receipt names the fix, and the bug is run again and fails", async () => {
    const workspace = makeRepo(addProject());
    const before = snapshot(workspace);
    const dataDir = dataDirOutside();
    const evaluate = await evaluatorFor(workspace, dataDir, "node test/add.test.js");

    // The agent: `flock`-style, it holds the lock file while the workspace is the bug...
    const held = await acquireWorkspaceLock(join(workspaceHome(dataDir, workspace), "verify.lock"));
    if (!held.ok) throw new Error(held.message);
    const first = evaluate({ events: [] });
    await untilRunning(dataDir, workspace);
    // ...then puts the fix in while the run waits, and lets go.
    writeFileSync(join(workspace, "src/add.js"), FIXED_ADD);
    const fixed = await fingerprintOf(workspace);
    await held.release();
    const ran = only(await first);
    expect(ran.status).toBe("pass");
    expect(commandEvidence(ran).receipt?.fingerprint).toBe(fixed);
    expect(commandEvidence(ran).verification?.fingerprint).toMatchObject({ ok: true, value: fixed });

    // Back to the bug: the receipt is of the fix, so nothing answers the bug but a new run.
    writeFileSync(join(workspace, "src/add.js"), BUGGY_ADD);
    const again = only(await evaluate({ events: [] }));
    expect(again.status).toBe("fail");
    expect(commandEvidence(again).receipt?.reused).toBe(false);
    expect(commandEvidence(again).output).toMatch(/FAIL add\(2, 3\) is -1/);
    expectCleanAfter(workspace, before, dataDir);
  }, 60_000);

  it("a workspace toggled back to the bug after an honest pass is not answered by that pass; the fix, restored, passes again", async () => {
    const workspace = makeRepo(addProject());
    const dataDir = dataDirOutside();
    const evaluate = await evaluatorFor(workspace, dataDir, "node test/add.test.js");
    writeFileSync(join(workspace, "src/add.js"), FIXED_ADD);
    expect(only(await evaluate({ events: [] })).status).toBe("pass");

    writeFileSync(join(workspace, "src/add.js"), BUGGY_ADD);
    const bug = only(await evaluate({ events: [] }));
    expect(bug.status).toBe("fail");
    expect(commandEvidence(bug).receipt?.reused).toBe(false);

    writeFileSync(join(workspace, "src/add.js"), FIXED_ADD);
    const before = snapshot(workspace);
    const fix = only(await evaluate({ events: [] }));
    expect(fix.status).toBe("pass");
    expect(commandEvidence(fix).receipt?.fingerprint).toBe(await fingerprintOf(workspace));
    expectCleanAfter(workspace, before, dataDir);
  }, 60_000);

  it("the honest fix passes, its receipt is the workspace's fingerprint, and an unchanged workspace is answered by it without running", async () => {
    const workspace = makeRepo(addProject());
    const dataDir = dataDirOutside();
    const evaluate = await evaluatorFor(workspace, dataDir, "node test/add.test.js");
    writeFileSync(join(workspace, "src/add.js"), FIXED_ADD);
    writeFileSync(join(workspace, "NOTES.md"), "an untracked note\n");
    const before = snapshot(workspace);

    const ran = only(await evaluate({ events: [] }));
    expect(ran.status).toBe("pass");
    const receipt = commandEvidence(ran).receipt;
    expect(receipt).toMatchObject({
      state: "passed",
      reused: false,
      fingerprint: await fingerprintOf(workspace),
    });
    const reused = only(await evaluate({ events: [] }));
    expect(reused.status).toBe("pass");
    expect(commandEvidence(reused).receipt).toMatchObject({ id: receipt?.id, reused: true });
    expectCleanAfter(workspace, before, dataDir);
  }, 60_000);

  it("an honest candidate with a mode change, a deletion, a staged file, a link and a commit since the baseline: the run's fingerprint is the workspace's", async () => {
    const workspace = makeRepo(addProject({ "scripts/tool.sh": "echo tool\n", "docs/old.md": "old\n" }));
    const dataDir = dataDirOutside();
    const evaluate = await evaluatorFor(workspace, dataDir, "node test/add.test.js");
    writeFileSync(join(workspace, "src/add.js"), FIXED_ADD);
    git(workspace, "add", "src/add.js");
    git(workspace, "commit", "-q", "-m", "fix");
    chmodSync(join(workspace, "scripts/tool.sh"), 0o755);
    rmSync(join(workspace, "docs/old.md"));
    writeFileSync(join(workspace, "src/staged.js"), "module.exports = 2;\n");
    git(workspace, "add", "src/staged.js");
    symlinkSync("../src/add.js", join(workspace, "scripts/add-link.js"));
    const before = snapshot(workspace);

    const ran = only(await evaluate({ events: [] }));
    expect(ran.status).toBe("pass");
    expect(commandEvidence(ran).receipt?.fingerprint).toBe(await fingerprintOf(workspace));
    expect(commandEvidence(only(await evaluate({ events: [] }))).receipt?.reused).toBe(true);
    expectCleanAfter(workspace, before, dataDir);
  }, 60_000);

  it("a tracked file rewritten with its own bytes (stat changed, content not) leaves the learner's index byte for byte", async () => {
    const workspace = makeRepo(addProject());
    const dataDir = dataDirOutside();
    const evaluate = await evaluatorFor(workspace, dataDir, "node test/add.test.js");
    // `touch`-like: git's stat cache no longer matches, so a plain `git diff` would rewrite .git/index.
    writeFileSync(join(workspace, "src/add.js"), BUGGY_ADD);
    utimesSync(join(workspace, "src/add.js"), new Date(2001, 0, 1), new Date(2001, 0, 1));
    const before = snapshot(workspace);
    expect(only(await evaluate({ events: [] })).status).toBe("fail");
    expectCleanAfter(workspace, before, dataDir);
  }, 60_000);

  it("a prebuilt dist/ (and an untracked build/ file) the fingerprint cannot see is left out of the candidate, and says so", async () => {
    // The test runs the built file: the agent "fixes" dist/ without touching the source.
    const workspace = makeRepo(
      addProject({
        "dist/add.js": BUGGY_ADD,
        "test/add.test.js": ADD_TEST.replace("../src/add.js", "../dist/add.js"),
      }),
    );
    const dataDir = dataDirOutside();
    const evaluate = await evaluatorFor(workspace, dataDir, "node test/add.test.js");
    writeFileSync(join(workspace, "dist/add.js"), FIXED_ADD);
    mkdirSync(join(workspace, "build"));
    writeFileSync(join(workspace, "build/extra.js"), "module.exports = 1;\n");
    const before = snapshot(workspace);

    const ran = only(await evaluate({ events: [] }));
    expect(ran.status).toBe("fail");
    const evidence = commandEvidence(ran);
    expect(evidence.verification?.generatedLeftOut).toEqual(["build/extra.js", "dist/add.js"]);
    // What the run saw is what the fingerprint covers: the workspace's, which leaves dist/ out.
    expect(evidence.receipt?.fingerprint).toBe(await fingerprintOf(workspace));
    const patch = readFileSync(join(evidence.verification?.runDir ?? "", "candidate.patch"), "utf8");
    expect(patch).not.toMatch(/dist\/add\.js|build\/extra\.js/);
    expectCleanAfter(workspace, before, dataDir);
  }, 60_000);

  it("a file name holding a newline and a fake `diff --git a/dist/...` header neither hides a change nor breaks the fingerprint", async () => {
    const workspace = makeRepo(addProject());
    const dataDir = dataDirOutside();
    const evaluate = await evaluatorFor(workspace, dataDir, "node test/add.test.js");
    writeFileSync(join(workspace, "src/add.js"), FIXED_ADD);
    // One name is a single file at the root; the other has dist/ on its way, so both sides leave it out.
    writeFileSync(join(workspace, 'x\ndiff --git a b "q"'), "decoy\n");
    const inDist = 'src/x\ndiff --git a/dist/y b/dist/y "q"';
    mkdirSync(dirname(join(workspace, inDist)), { recursive: true });
    writeFileSync(join(workspace, inDist), "decoy\n");
    symlinkSync("add.js", join(workspace, "src/link to add"));
    const before = snapshot(workspace);

    const ran = only(await evaluate({ events: [] }));
    expect(ran.status).toBe("pass");
    expect(commandEvidence(ran).verification?.generatedLeftOut).toEqual([inDist]);
    expect(commandEvidence(ran).receipt?.fingerprint).toBe(await fingerprintOf(workspace));
    expectCleanAfter(workspace, before, dataDir);
  }, 60_000);
});

// --- dependencies cannot be swapped --------------------------------------------------------

describe("node_modules are as they were when the quest started", () => {
  it("a package patched after activation (its check replaced by a no-op) makes the run pending, naming the package", async () => {
    const workspace = projectWithDependencies();
    const pin = pinned(await pinDependencies(workspace));
    expect(pin.units["node_modules/add-check"]).toMatch(/^[0-9a-f]{64}$/);
    writeFileSync(
      join(workspace, "node_modules/add-check/index.js"),
      'module.exports = () => console.log("PASS");\n',
    );
    const before = snapshot(workspace);

    // Without the pin the cheat passes: the attack is real.
    const unpinned = await verifierFor(workspace, { pin: [request(workspace, "node test/add.test.js")] });
    expect(finished(await unpinned.verifier.run(request(workspace, "node test/add.test.js"))).passed).toBe(
      true,
    );

    const { verifier, dataDir } = await verifierFor(workspace, {
      pin: [request(workspace, "node test/add.test.js")],
      dependencies: pin,
    });
    const message = pending(await verifier.run(request(workspace, "node test/add.test.js")));
    expect(message).toMatch(/dependencies changed since the quest started/);
    expect(message).toContain("node_modules/add-check changed");
    expect(message).toMatch(/start the quest again/);
    expectCleanAfter(workspace, before, dataDir);
    expectCleanAfter(workspace, before, unpinned.dataDir);
  }, 60_000);

  it("a file written back byte for byte with its old mtime still counts as changed (ctime cannot be set back)", async () => {
    const workspace = projectWithDependencies();
    const pin = pinned(await pinDependencies(workspace));
    const file = join(workspace, "node_modules/add-check/index.js");
    writeFileSync(file, ADD_CHECK);
    const old = statSync(join(workspace, "node_modules/add-check/package.json"));
    utimesSync(file, old.atime, old.mtime);
    const before = snapshot(workspace);

    const { verifier, dataDir } = await verifierFor(workspace, {
      pin: [request(workspace, "node test/add.test.js")],
      dependencies: pin,
    });
    expect(pending(await verifier.run(request(workspace, "node test/add.test.js")))).toContain(
      "node_modules/add-check changed",
    );
    expectCleanAfter(workspace, before, dataDir);
  }, 60_000);

  it("a `.bin/node` shim added to node_modules (npm puts .bin first on a script's PATH) makes `npm test` pending", async () => {
    const workspace = projectWithDependencies();
    const pin = pinned(await pinDependencies(workspace));
    shim(join(workspace, "node_modules/.bin/node"), "echo 'PASS add'; exit 0");
    const before = snapshot(workspace);

    // Without the pin the shim is not run either: no package declares it (declared-bins.ts).
    const unpinned = await verifierFor(workspace, { pin: [request(workspace, "npm test")] });
    const ran = finished(await unpinned.verifier.run(request(workspace, "npm test")));
    expect(ran.passed).toBe(false);
    expect(ran.verification?.notApplied).toContainEqual({
      path: "node_modules/.bin/node",
      reason: "undeclared_bin",
    });

    const { verifier, dataDir } = await verifierFor(workspace, {
      pin: [request(workspace, "npm test")],
      dependencies: pin,
    });
    expect(pending(await verifier.run(request(workspace, "npm test")))).toContain(
      "node_modules/.bin/node added",
    );
    expectCleanAfter(workspace, before, dataDir);
    expectCleanAfter(workspace, before, unpinned.dataDir);
  }, 60_000);

  it("a `.bin/node` shim planted before activation (the pin holds it) is still not run by `npm test`", async () => {
    const workspace = projectWithDependencies();
    shim(join(workspace, "node_modules/.bin/node"), "echo 'PASS add'; exit 0");
    const pin = pinned(await pinDependencies(workspace));
    const before = snapshot(workspace);
    const { verifier, dataDir } = await verifierFor(workspace, {
      pin: [request(workspace, "npm test")],
      dependencies: pin,
      npmCliPath: NPM_CLI,
    });
    const ran = finished(await verifier.run(request(workspace, "npm test")));
    expect(ran.passed).toBe(false);
    expect(ran.report).toContain("FAIL add(2, 3) is");
    expectCleanAfter(workspace, before, dataDir);
  }, 60_000);

  it("a `.bin/grep` planted, run and taken away again while the check runs, in a `.bin` linked whole: the run is pending, without a pin too", async () => {
    const workspace = projectWithDependencies();
    mkdirSync(join(workspace, "node_modules/.bin"));
    writeFileSync(
      join(workspace, "node_modules/add-check/package.json"),
      '{ "name": "add-check", "version": "1.0.0", "main": "index.js", "bin": { "add-check": "index.js" } }\n',
    );
    symlinkSync("../add-check/index.js", join(workspace, "node_modules/.bin/add-check"));
    // As npm left it, and older than the timestamps' granularity: the worktree links it whole.
    await new Promise((resolve) => setTimeout(resolve, 2_100));
    // The check stands in for the agent's background process: through the linked folder, it
    // plants a grep that always succeeds, runs it, and takes it away.
    const run = [
      "printf '#!/bin/sh\\nexit 0\\n' > node_modules/.bin/grep",
      "chmod +x node_modules/.bin/grep",
      'PATH="$PWD/node_modules/.bin:$PATH" grep -q PASS src/add.js; rc=$?',
      "rm node_modules/.bin/grep",
      "exit $rc",
    ].join("; ");
    const { verifier, dataDir } = await verifierFor(workspace, { pin: [request(workspace, run)] });
    const before = snapshot(workspace);
    const outcome = await verifier.run(request(workspace, run));
    expect(pending(outcome)).toContain("node_modules/.bin changed while the check ran");
    expectCleanAfter(workspace, before, dataDir);
  }, 60_000);

  it("a package (and a scoped one) added after activation makes the run pending, naming both", async () => {
    const workspace = projectWithDependencies();
    const pin = pinned(await pinDependencies(workspace));
    mkdirSync(join(workspace, "node_modules/left-pad"));
    writeFileSync(join(workspace, "node_modules/left-pad/index.js"), "module.exports = 1;\n");
    mkdirSync(join(workspace, "node_modules/@evil/preload"), { recursive: true });
    writeFileSync(join(workspace, "node_modules/@evil/preload/index.js"), "process.exit(0);\n");
    const before = snapshot(workspace);

    const { verifier, dataDir } = await verifierFor(workspace, {
      pin: [request(workspace, "node test/add.test.js")],
      dependencies: pin,
    });
    const message = pending(await verifier.run(request(workspace, "node test/add.test.js")));
    expect(message).toContain("node_modules/left-pad added");
    expect(message).toContain("node_modules/@evil/preload added");
    expectCleanAfter(workspace, before, dataDir);
  }, 60_000);

  it("a package rewritten (same bytes) by a process while the check runs is caught after the run", async () => {
    const workspace = projectWithDependencies();
    const pin = pinned(await pinDependencies(workspace));
    writeFileSync(join(workspace, "src/add.js"), FIXED_ADD);
    // The check stands in for the agent's background process: it rewrites the package through the link.
    const run = [
      "content=$(cat node_modules/add-check/index.js)",
      "printf '%s\\n' \"$content\" > node_modules/add-check/index.js",
      "node test/add.test.js",
    ].join(" && ");
    const { verifier, dataDir } = await verifierFor(workspace, {
      pin: [request(workspace, run)],
      dependencies: pin,
    });
    const before = snapshot(workspace);
    const outcome = await verifier.run(request(workspace, run));
    expect(pending(outcome)).toContain("node_modules/add-check changed");
    expect(outcome.report).toContain("PASS add");
    // Byte for byte as before: only its ctime moved.
    expectCleanAfter(workspace, before, dataDir);
  }, 60_000);

  it("the honest fix with pinned dependencies passes, twice, though a tool's cache was written into node_modules meanwhile", async () => {
    const workspace = projectWithDependencies();
    const pin = pinned(await pinDependencies(workspace));
    writeFileSync(join(workspace, "src/add.js"), FIXED_ADD);
    mkdirSync(join(workspace, "node_modules/.vite/vitest"), { recursive: true });
    writeFileSync(join(workspace, "node_modules/.vite/vitest/results.json"), "{}\n");
    const before = snapshot(workspace);
    const checks = [
      request(workspace, "npm test"),
      request(workspace, "node test/add.test.js", { checkId: "node" }),
    ];
    const { verifier, dataDir } = await verifierFor(workspace, {
      dependencies: pin,
      npmCliPath: NPM_CLI,
      pin: checks,
    });
    for (const check of checks) expect(finished(await verifier.run(check)).passed).toBe(true);
    expectCleanAfter(workspace, before, dataDir);
  }, 60_000);

  it("a pin that could not be taken (over its bound) leaves every run pending, and says why", async () => {
    const workspace = projectWithDependencies();
    const pin = await pinDependencies(workspace, { limits: { entries: 2, milliseconds: 10_000 } });
    expect(pin).toMatchObject({ kind: "unpinnable", reason: expect.stringMatching(/entries limit/) });
    writeFileSync(join(workspace, "src/add.js"), FIXED_ADD);
    const before = snapshot(workspace);
    const { verifier, dataDir } = await verifierFor(workspace, {
      pin: [request(workspace, "node test/add.test.js")],
      dependencies: pin,
    });
    expect(pending(await verifier.run(request(workspace, "node test/add.test.js")))).toMatch(
      /could not be pinned when the quest started/,
    );
    expectCleanAfter(workspace, before, dataDir);
  }, 60_000);
});

// --- the check's PATH ----------------------------------------------------------------------

describe("look-alike tools on the check's PATH", () => {
  // Without pipefail the pipeline's status is grep's: a grep that always succeeds passes it.
  const CHEAT_CHECK = 'node test/add.test.js | grep -q "PASS add"';

  it("a `grep` and a `node` that always succeed, in a PATH folder inside the workspace (and `.`), are not used", async () => {
    const workspace = makeRepo(addProject());
    for (const folder of ["bin", "."]) {
      shim(join(workspace, folder, "grep"), "exit 0");
      shim(join(workspace, folder, "node"), "echo 'PASS add'; exit 0");
    }
    const before = snapshot(workspace);
    const env = { ...process.env, PATH: `${join(workspace, "bin")}:.:bin:${process.env.PATH ?? ""}` };

    const { verifier, dataDir } = await verifierFor(workspace, {
      pin: [request(workspace, CHEAT_CHECK)],
      env,
    });
    const outcome = finished(await verifier.run(request(workspace, CHEAT_CHECK)));
    expect(outcome.passed).toBe(false);
    const run = JSON.parse(readFileSync(join(outcome.verification?.runDir ?? "", "run.json"), "utf8"));
    expect(run.path.dropped).toEqual(
      expect.arrayContaining([
        { entry: join(workspace, "bin"), why: `inside the workspace ${workspace}` },
        { entry: ".", why: expect.stringMatching(/not an absolute folder/) },
        { entry: "bin", why: expect.stringMatching(/not an absolute folder/) },
      ]),
    );
    expect(run.path.kept).not.toContain(join(workspace, "bin"));
    expectCleanAfter(workspace, before, dataDir);
  }, 60_000);

  it("a `grep` that always succeeds in $HOME/bin is not used; the fix still passes with the system's grep", async () => {
    const workspace = makeRepo(addProject());
    const home = makeWorkspace({});
    shim(join(home, "bin", "grep"), "exit 0");
    const env = { ...process.env, HOME: home, PATH: `${join(home, "bin")}:${process.env.PATH ?? ""}` };
    const before = snapshot(workspace);

    const { verifier, dataDir } = await verifierFor(workspace, {
      pin: [request(workspace, CHEAT_CHECK)],
      env,
    });
    const cheat = finished(await verifier.run(request(workspace, CHEAT_CHECK)));
    expect(cheat.passed).toBe(false);
    const run = JSON.parse(readFileSync(join(cheat.verification?.runDir ?? "", "run.json"), "utf8"));
    expect(run.path.dropped).toContainEqual({
      entry: join(home, "bin"),
      why: expect.stringMatching(/^inside /),
    });
    expectCleanAfter(workspace, before, dataDir);

    writeFileSync(join(workspace, "src/add.js"), FIXED_ADD);
    const fixedBefore = snapshot(workspace);
    expect(finished(await verifier.run(request(workspace, CHEAT_CHECK))).passed).toBe(true);
    expectCleanAfter(workspace, fixedBefore, dataDir);
  }, 60_000);
});
