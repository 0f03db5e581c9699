/**
 * Fault injection for the isolated task verifier: real git, real processes, temporary folders.
 * Each case breaks one thing on purpose (a process that will not die, git failing halfway, a lock
 * nobody releases, a host that crashes) and then checks the three things that must hold whatever
 * happened: the learner's workspace is byte-identical, git lists no leftover worktree, and no
 * process of ours is still running. A case that keeps a worktree on purpose says so, checks it,
 * and has `recover()` remove it before the end.
 */
import { type ChildProcessWithoutNullStreams, execFileSync, spawn } from "node:child_process";
import { createHash } from "node:crypto";
import {
  chmodSync,
  copyFileSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  utimesSync,
  writeFileSync,
} from "node:fs";
import { basename, join, resolve } from "node:path";
import { createInterface } from "node:readline";
import { setTimeout as sleep } from "node:timers/promises";
import { afterEach, describe, expect, it } from "vitest";
import { workspaceHome } from "../../src/core/workspace-key.ts";
import { createGitRunner } from "../../src/probes/git-runner.ts";
import { pidNamespaceSupport } from "../../src/probes/os/pid-namespace.ts";
import { processAlive, processGroupAlive } from "../../src/probes/os/process-group.ts";
import { createTaskVerifier } from "../../src/task-verifier/index.ts";
import { applyCandidate } from "../../src/task-verifier/prepare.ts";
import type { ScriptOutcome } from "../../src/verifier/probes.ts";
import { SELF, sleeperReporting } from "../support/host-pid.ts";
import {
  dataDirOutside,
  expectCleanAfter,
  finished,
  makeRepo,
  pinnedCheck,
  processesMentioning,
  request,
  requestFor,
  snapshot,
  verifierFor,
} from "../support/task-verifier.ts";
import { git, makeWorkspace, removeWorkspaces } from "../support/workspace.ts";

const FIXTURES = resolve(import.meta.dirname, "../../fixtures/task-verifier");
const FAKE_GIT = join(FIXTURES, "fake-git.sh");
const LOCK_HOLDER = join(FIXTURES, "lock-holder.ts");
const CRASH_CHILD = join(FIXTURES, "crash-child.ts");
const REAL_GIT = execFileSync("sh", ["-c", "command -v git"], { encoding: "utf8" }).trim();
const MiB = 1024 * 1024;

const PROJECT = {
  "package.json": JSON.stringify({ name: "demo", scripts: { test: "node test/add.test.js" } }, null, 2),
  "src/add.js": "exports.add = (a, b) => a + b;\n",
  "test/add.test.js":
    'const { add } = require("../src/add.js");\nif (add(2, 3) !== 5) { console.error("add(2, 3) should be 5"); process.exit(1); }\nconsole.log("ok");\n',
};

const dataDirs: string[] = [];
const children: ChildProcessWithoutNullStreams[] = [];

afterEach(() => {
  // Only a failed test leaves one of these running: they are ours, ended by their own id.
  for (const child of children.splice(0)) if (child.exitCode === null) child.kill("SIGKILL");
  removeWorkspaces();
  for (const dir of dataDirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** A data dir outside every workspace, removed after the test. */
function freshDataDir(): string {
  const dir = dataDirOutside();
  dataDirs.push(dir);
  return dir;
}

/** A scratch folder outside the workspace, for what the scripts write (pids, timestamps). */
const scratch = () => makeWorkspace();

/** The workspace's folder in the data dir (there is one workspace per data dir here). */
function homeOf(dataDir: string): string {
  const entries = readdirSync(join(dataDir, "workspaces"));
  expect(entries).toHaveLength(1);
  return join(dataDir, "workspaces", entries[0] ?? "");
}

const worktreeFolders = (dataDir: string) => readdirSync(join(homeOf(dataDir), "worktrees"));
const runFolders = (dataDir: string) => readdirSync(join(homeOf(dataDir), "runs"));

/** The folders the verifier journaled as still to remove. */
function pendingRemovalJournal(dataDir: string): string[] {
  const file = join(homeOf(dataDir), "pending-removal.json");
  return existsSync(file) ? (JSON.parse(readFileSync(file, "utf8")) as { folders: string[] }).folders : [];
}

/** The worktrees git has registered for the workspace (the workspace itself included). */
function registeredWorktrees(workspace: string): string[] {
  return git(workspace, "worktree", "list", "--porcelain")
    .split("\n")
    .filter((line) => line.startsWith("worktree "))
    .map((line) => line.slice("worktree ".length));
}

function pidsIn(file: string): number[] {
  return readFileSync(file, "utf8").split(/\s+/).filter(Boolean).map(Number);
}

/** Polls until `condition` holds; a generous bound that only catches a hang. */
async function waitFor(condition: () => boolean, what: string, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(20);
  }
}

function runJson(outcome: ScriptOutcome): Record<string, unknown> {
  const runDir = outcome.verification?.runDir;
  if (!runDir) throw new Error("the outcome carries no run folder");
  return JSON.parse(readFileSync(join(runDir, "run.json"), "utf8"));
}

function unavailable(outcome: ScriptOutcome): string {
  if (outcome.ok || outcome.kind !== "unavailable")
    throw new Error(`expected an unavailable run, got ${JSON.stringify(outcome).slice(0, 500)}`);
  return outcome.message;
}

/**
 * A `git` that breaks on purpose (fixtures/task-verifier/fake-git.sh), first on the PATH the
 * verifier gives git. `set` rewrites its control file: `fail worktree add`, `half worktree add`,
 * `fail apply`, `fail cat-file`, `fail worktree remove`, `tamper worktree add`.
 */
function fakeGit(...lines: string[]) {
  const dir = scratch();
  const bin = join(dir, "bin");
  mkdirSync(bin);
  copyFileSync(FAKE_GIT, join(bin, "git"));
  chmodSync(join(bin, "git"), 0o755);
  const control = join(dir, "control");
  const set = (...wanted: string[]) => writeFileSync(control, wanted.map((line) => `${line}\n`).join(""));
  set(...lines);
  const env = {
    ...process.env,
    PATH: `${bin}:${process.env.PATH ?? ""}`,
    FAKE_GIT_REAL: REAL_GIT,
    FAKE_GIT_CONTROL: control,
  };
  return { env, set };
}

/** A child Node process; its stdout lines are collected, and `line` waits for one. */
function startChild(script: string, args: string[]) {
  const child = spawn(process.execPath, [script, ...args], { stdio: ["pipe", "pipe", "pipe"] });
  children.push(child);
  const lines: string[] = [];
  let stderr = "";
  // Set once every line of its stdout was read: exit alone can come before the last lines.
  let closed = false;
  createInterface({ input: child.stdout })
    .on("line", (line) => lines.push(line))
    .on("close", () => {
      closed = true;
    });
  child.stderr.on("data", (chunk: Buffer) => {
    stderr += chunk.toString("utf8");
  });
  const exited = new Promise<void>((done) => {
    if (child.exitCode !== null || child.signalCode !== null) done();
    else child.once("exit", () => done());
  });
  const line = async (prefix: string): Promise<string> => {
    await waitFor(
      () => lines.some((entry) => entry.startsWith(prefix)) || closed,
      `"${prefix}" from ${script}`,
    );
    const found = lines.find((entry) => entry.startsWith(prefix));
    if (found === undefined)
      throw new Error(`${script} ended without "${prefix}": ${lines.join("\n")}\n${stderr}`);
    return found;
  };
  return { child, lines, line, exited };
}

/** Another process holding the workspace lock (fixtures/task-verifier/lock-holder.ts). */
async function holdLock(dataDir: string) {
  const holder = startChild(LOCK_HOLDER, [join(homeOf(dataDir), "verify.lock")]);
  await holder.line("locked");
  return {
    ...holder,
    /** Lets the lock go; returns when it did so (ms since the epoch, taken just before). */
    async release(): Promise<number> {
      holder.child.stdin.write("release\n");
      const releasing = Number((await holder.line("releasing ")).split(" ")[1]);
      await holder.exited;
      return releasing;
    },
  };
}

describe("the isolated task verifier under faults", () => {
  it("a child that keeps the check's pipes open does not hold the check, and is killed", async () => {
    const workspace = makeRepo(PROJECT);
    const dataDir = freshDataDir();
    const out = scratch();
    const check = request(
      workspace,
      `${sleeperReporting(`${out}/sleeper`, 60)} until [ -s '${out}/sleeper' ]; do sleep 0.05; done; echo started`,
      {
        timeoutMs: 120_000,
      },
    );
    const { verifier } = await verifierFor(workspace, { dataDir, pin: [check] });
    const before = snapshot(workspace);

    const started = Date.now();
    const outcome = finished(await verifier.run(check));
    // A check held by the sleeper would last its 60 s: the bound only catches that hang.
    expect(Date.now() - started).toBeLessThan(45_000);
    expect(outcome).toMatchObject({ passed: true, exitCode: 0 });
    expect(outcome.report).toContain("started");
    const [sleeper] = pidsIn(join(out, "sleeper"));
    expect(sleeper).toBeGreaterThan(1);
    expect(processAlive(sleeper ?? 0)).toBe(false);
    expectCleanAfter(workspace, before, dataDir);
  }, 90_000);

  it("a process tree of nested shells and sleeps is all gone once the script exits", async () => {
    const workspace = makeRepo(PROJECT);
    const dataDir = freshDataDir();
    const pids = join(scratch(), "pids");
    const script = [
      `export P='${pids}'`,
      // Each shell records itself, and each sleep records itself before it sleeps.
      `record() { ${SELF}; echo $self >> "$P"; }`,
      `nap() { sh -c '${SELF}; echo $self >> "$P"; exec sleep 300' & }`,
      "export -f record nap",
      "record",
      `export INNER='record; nap; sleep 300'`,
      `export OUTER='record; nap; bash -c "$INNER" & wait'`,
      'bash -c "$OUTER" &',
      'until [ "$(wc -l < "$P")" -ge 5 ]; do sleep 0.05; done',
      "exit 3",
    ].join("\n");
    const { verifier } = await verifierFor(workspace, { dataDir, pin: [request(workspace, script)] });
    const before = snapshot(workspace);
    const outcome = finished(await verifier.run(request(workspace, script)));

    expect(outcome).toMatchObject({ passed: false, exitCode: 3 });
    const tree = pidsIn(pids);
    expect(tree).toHaveLength(5);
    expect(tree.filter((pid) => processAlive(pid))).toEqual([]);
    expectCleanAfter(workspace, before, dataDir);
  });

  it("endless output with a short timeout: a timeout, and a bounded report", async () => {
    const workspace = makeRepo(PROJECT);
    const dataDir = freshDataDir();
    const leader = join(scratch(), "leader");
    const check = request(workspace, `${SELF}; echo $self > '${leader}'; yes`, { timeoutMs: 3000 });
    const { verifier } = await verifierFor(workspace, { dataDir, pin: [check] });
    const before = snapshot(workspace);

    const outcome = await verifier.run(check);

    expect(outcome).toMatchObject({ ok: false, kind: "timeout", truncated: true });
    expect(outcome.report.length).toBeGreaterThan(0);
    expect(outcome.report.length).toBeLessThanOrEqual(MiB);
    expect(new Set(outcome.report.split("\n").filter(Boolean))).toEqual(new Set(["y"]));
    const [group] = pidsIn(leader);
    expect(processGroupAlive(group ?? 0)).toBe(false);
    const run = runJson(outcome);
    expect(run).toMatchObject({ termination: "timeout", outputTruncated: true, exitCode: null });
    expect(statSync(join(outcome.verification?.runDir ?? "", "output.log")).size).toBeLessThanOrEqual(MiB);
    expectCleanAfter(workspace, before, dataDir);
  });

  it("a check that never ends times out, never passes, and its whole group is gone", async () => {
    const workspace = makeRepo(PROJECT);
    const dataDir = freshDataDir();
    const pids = join(scratch(), "pids");
    const check = request(
      workspace,
      `${SELF}; echo $self > '${pids}'; ${sleeperReporting(pids)} wait; exit 0`,
      {
        timeoutMs: 1000,
      },
    );
    const { verifier } = await verifierFor(workspace, { dataDir, pin: [check] });
    const before = snapshot(workspace);

    const outcome = await verifier.run(check);

    expect(outcome).toMatchObject({ ok: false, kind: "timeout" });
    if (outcome.ok) throw new Error("unreachable");
    expect(outcome.message).toContain("did not finish within 1000 ms");
    const [leader, sleeper] = pidsIn(pids);
    expect(processGroupAlive(leader ?? 0)).toBe(false);
    expect(processAlive(sleeper ?? 0)).toBe(false);
    expect(runJson(outcome)).toMatchObject({ termination: "timeout", exitCode: null });
    expectCleanAfter(workspace, before, dataDir);
  });

  it("cancelling mid-run stops the check, kills its group and removes the worktree", async () => {
    const workspace = makeRepo(PROJECT);
    const dataDir = freshDataDir();
    const out = scratch();
    const controller = new AbortController();
    const check = request(
      workspace,
      `pwd -P > '${out}/where'; ${SELF}; echo $self > '${out}/p'; ${sleeperReporting(`${out}/p`)} until [ "$(wc -l < '${out}/p')" -ge 2 ]; do sleep 0.05; done; mv '${out}/p' '${out}/pids'; wait`,
      { signal: controller.signal, timeoutMs: 120_000 },
    );
    const { verifier } = await verifierFor(workspace, { dataDir, pin: [check] });
    const before = snapshot(workspace);

    const running = verifier.run(check);
    await waitFor(() => existsSync(join(out, "pids")), "the check to start");
    const worktree = readFileSync(join(out, "where"), "utf8").trim();
    expect(worktree.startsWith(join(homeOf(dataDir), "worktrees"))).toBe(true);
    expect(registeredWorktrees(workspace)).toContain(worktree);
    controller.abort();
    const outcome = await running;

    expect(outcome).toMatchObject({ ok: false, kind: "stopped" });
    const [leader, sleeper] = pidsIn(join(out, "pids"));
    expect(processGroupAlive(leader ?? 0)).toBe(false);
    expect(processAlive(sleeper ?? 0)).toBe(false);
    expect(existsSync(worktree)).toBe(false);
    expect(worktreeFolders(dataDir)).toEqual([]);
    expect(runJson(outcome)).toMatchObject({ termination: "stopped" });
    expectCleanAfter(workspace, before, dataDir);
  });

  it("git failing to add the worktree: pending with git's message, nothing left behind", async () => {
    const workspace = makeRepo(PROJECT);
    const dataDir = freshDataDir();
    const fake = fakeGit("fail worktree add");
    const ran = join(scratch(), "ran");
    const { verifier } = await verifierFor(workspace, {
      dataDir,
      env: fake.env,
      pin: [request(workspace, `touch '${ran}'`)],
    });
    const before = snapshot(workspace);

    const message = unavailable(await verifier.run(request(workspace, `touch '${ran}'`)));

    expect(message).toContain("could not create the worktree");
    expect(message).toContain("injected failure in git worktree add");
    expect(existsSync(ran)).toBe(false);
    expect(worktreeFolders(dataDir)).toEqual([]);
    expectCleanAfter(workspace, before, dataDir);
  });

  it("git failing halfway through adding the worktree: pending, and the half-made worktree is removed", async () => {
    const workspace = makeRepo(PROJECT);
    const dataDir = freshDataDir();
    // The real `worktree add` runs (the worktree exists and is registered), then git fails.
    const fake = fakeGit("half worktree add");
    const ran = join(scratch(), "ran");
    const { verifier } = await verifierFor(workspace, {
      dataDir,
      env: fake.env,
      pin: [request(workspace, `touch '${ran}'`), request(workspace, "echo ok", { checkId: "next" })],
    });
    const before = snapshot(workspace);

    const outcome = await verifier.run(request(workspace, `touch '${ran}'`));

    expect(unavailable(outcome)).toContain("injected failure in git worktree add, after it ran");
    expect(outcome.verification?.cleanup).toEqual({ ok: true });
    expect(existsSync(ran)).toBe(false);
    expect(worktreeFolders(dataDir)).toEqual([]);
    expectCleanAfter(workspace, before, dataDir);
    // Nothing was kept, so nothing stops the next run.
    fake.set();
    expect(finished(await verifier.run(request(workspace, "echo ok", { checkId: "next" }))).passed).toBe(
      true,
    );
    expectCleanAfter(workspace, before, dataDir);
  });

  it("git failing to apply the candidate's patch: pending, worktree removed", async () => {
    const workspace = makeRepo(PROJECT);
    writeFileSync(join(workspace, "src/add.js"), "exports.add = (a, b) => b + a;\n");
    const dataDir = freshDataDir();
    const fake = fakeGit("fail apply");
    const ran = join(scratch(), "ran");
    const { verifier } = await verifierFor(workspace, {
      dataDir,
      env: fake.env,
      pin: [request(workspace, `touch '${ran}'`)],
    });
    const before = snapshot(workspace);

    const outcome = await verifier.run(request(workspace, `touch '${ran}'`));

    const message = unavailable(outcome);
    expect(message).toContain("the candidate's changes do not apply");
    expect(message).toContain("injected failure in git apply");
    expect(outcome.verification?.patchBytes).toBeGreaterThan(0);
    expect(outcome.verification?.cleanup).toEqual({ ok: true });
    expect(existsSync(ran)).toBe(false);
    expect(worktreeFolders(dataDir)).toEqual([]);
    expectCleanAfter(workspace, before, dataDir);
  });

  it("git failing to restore the protected files (cat-file): pending, worktree removed", async () => {
    const workspace = makeRepo(PROJECT);
    writeFileSync(join(workspace, "test/add.test.js"), "process.exit(0);\n");
    const dataDir = freshDataDir();
    const fake = fakeGit("fail cat-file");
    const { verifier } = await verifierFor(workspace, {
      dataDir,
      env: fake.env,
      pin: [request(workspace, "npm test")],
    });
    const before = snapshot(workspace);

    const outcome = await verifier.run(request(workspace, "npm test"));

    const message = unavailable(outcome);
    expect(message).toContain("could not restore the protected files");
    expect(message).toContain("injected failure in git cat-file");
    expect(outcome.verification?.cleanup).toEqual({ ok: true });
    expect(worktreeFolders(dataDir)).toEqual([]);
    expectCleanAfter(workspace, before, dataDir);
  });

  it("removing the worktree fails: not a pass, cleanup recorded, worktree kept and journaled, the next run retries and refuses until it succeeds", async () => {
    const workspace = makeRepo(PROJECT);
    const dataDir = freshDataDir();
    const fake = fakeGit("fail worktree remove");
    const ran = join(scratch(), "ran");
    const touch = request(workspace, `touch '${ran}'`, { checkId: "touch" });
    const { verifier } = await verifierFor(workspace, {
      dataDir,
      env: fake.env,
      pin: [request(workspace, "echo first"), touch],
    });
    const before = snapshot(workspace);

    // The script passes, but a run whose cleanup is incomplete does not count.
    const first = await verifier.run(request(workspace, "echo first"));
    const firstMessage = unavailable(first);
    expect(firstMessage).toContain("cleanup failed");
    expect(first.report).toBe("first\n");
    const cleanup = first.verification?.cleanup;
    if (!cleanup || cleanup.ok) throw new Error(`expected a failed cleanup, got ${JSON.stringify(cleanup)}`);
    expect(cleanup.message).toContain("injected failure in git worktree remove");
    // Kept for inspection, on purpose: it is there and git still lists it.
    expect(existsSync(cleanup.keptWorktree)).toBe(true);
    expect(registeredWorktrees(workspace)).toContain(cleanup.keptWorktree);
    expect(firstMessage).toContain(cleanup.keptWorktree);
    expect(runJson(first)).toMatchObject({
      exitCode: 0,
      cleanup: { ok: false, keptWorktree: cleanup.keptWorktree },
    });
    expect(pendingRemovalJournal(dataDir)).toEqual([basename(cleanup.keptWorktree)]);

    const refused = unavailable(await verifier.run(touch));
    expect(refused).toContain("cleaning up");
    expect(refused).toContain("failed");
    expect(refused).toContain(cleanup.keptWorktree);
    expect(existsSync(ran)).toBe(false);

    // git works again: recover() removes the kept worktree, and runs work again.
    fake.set();
    expect(await verifier.recover()).toEqual({ removed: [cleanup.keptWorktree], failed: [] });
    expect(existsSync(cleanup.keptWorktree)).toBe(false);
    expect(pendingRemovalJournal(dataDir)).toEqual([]);
    const again = finished(await verifier.run(touch));
    expect(again.passed).toBe(true);
    expect(again.verification?.cleanup).toEqual({ ok: true });
    expect(existsSync(ran)).toBe(true);
    expectCleanAfter(workspace, before, dataDir);
  });

  it("a cleanup failure also stops a verification that was already waiting for the lock", async () => {
    const workspace = makeRepo(PROJECT);
    const dataDir = freshDataDir();
    const fake = fakeGit("fail worktree remove");
    const checks = ["a", "b"].map((id) => request(workspace, "sleep 0.5", { checkId: id }));
    const { verifier } = await verifierFor(workspace, { dataDir, env: fake.env, pin: checks });
    const before = snapshot(workspace);

    // Both pass the "stopped?" look before either holds the lock; the second waits for it.
    const outcomes = await Promise.all(checks.map((check) => verifier.run(check)));

    // The one that ran is not counted (its cleanup failed); the other is refused.
    const ran = outcomes.filter((outcome) => unavailable(outcome).startsWith("cleanup failed"));
    const refused = outcomes.filter((outcome) => unavailable(outcome).includes("cleaning up"));
    expect(ran).toHaveLength(1);
    expect(refused).toHaveLength(1);
    const kept = ran[0]?.verification?.cleanup;
    if (!kept || kept.ok) throw new Error(`expected a failed cleanup, got ${JSON.stringify(kept)}`);
    // One kept worktree, not two.
    expect(worktreeFolders(dataDir)).toHaveLength(1);
    expect(registeredWorktrees(workspace)).toEqual([workspace, kept.keptWorktree]);

    fake.set();
    expect(await verifier.recover()).toEqual({ removed: [kept.keptWorktree], failed: [] });
    expectCleanAfter(workspace, before, dataDir);
  });

  it("a restart whose recovery cannot remove a kept worktree refuses runs until recover() succeeds", async () => {
    const workspace = makeRepo(PROJECT);
    const dataDir = freshDataDir();
    const fake = fakeGit("fail worktree remove");
    const first = await verifierFor(workspace, {
      dataDir,
      env: fake.env,
      pin: [request(workspace, "echo kept")],
    });
    const ran = join(scratch(), "ran");
    const before = snapshot(workspace);
    const kept = await first.verifier.run(request(workspace, "echo kept"));
    expect(unavailable(kept)).toContain("cleanup failed");
    const cleanup = kept.verification?.cleanup;
    if (!cleanup || cleanup.ok) throw new Error(`expected a failed cleanup, got ${JSON.stringify(cleanup)}`);

    // A restart with git still failing: its recovery fails, so the stop survives the restart.
    const restarted = await verifierFor(workspace, {
      dataDir,
      env: fake.env,
      pin: [request(workspace, `touch '${ran}'`)],
    });
    const refused = unavailable(await restarted.verifier.run(request(workspace, `touch '${ran}'`)));
    expect(refused).toContain(`cleaning up ${cleanup.keptWorktree} failed`);
    expect(refused).toContain("injected failure in git worktree remove");
    expect(existsSync(ran)).toBe(false);
    expect(existsSync(cleanup.keptWorktree)).toBe(true);

    fake.set();
    expect(await restarted.verifier.recover()).toEqual({ removed: [cleanup.keptWorktree], failed: [] });
    expect(finished(await restarted.verifier.run(request(workspace, `touch '${ran}'`))).passed).toBe(true);
    expect(existsSync(ran)).toBe(true);
    expectCleanAfter(workspace, before, dataDir);
  });

  it("a data dir that cannot be made (its parent is a file): data_dir, with a clear message", async () => {
    const workspace = makeRepo(PROJECT);
    const parent = join(scratch(), "not-a-folder");
    writeFileSync(parent, "a regular file\n");
    const dataDir = join(parent, "quests");
    const before = snapshot(workspace);

    const made = await createTaskVerifier({ workspace, dataDir, checks: [] });

    expect(made).toMatchObject({ ok: false, kind: "data_dir" });
    if (made.ok) throw new Error("unreachable");
    expect(made.message).toContain(dataDir);
    expect(made.message).toMatch(/ENOTDIR|not a directory/);
    expect(readFileSync(parent, "utf8")).toBe("a regular file\n");
    expectCleanAfter(workspace, before, dataDir);
  });

  it("a data dir whose `workspaces` entry is a file: data_dir, saying it is not a folder", async () => {
    const workspace = makeRepo(PROJECT);
    const dataDir = freshDataDir();
    writeFileSync(join(dataDir, "workspaces"), "in the way\n");
    const before = snapshot(workspace);

    const made = await createTaskVerifier({ workspace, dataDir, checks: [] });

    expect(made).toMatchObject({ ok: false, kind: "data_dir" });
    if (made.ok) throw new Error("unreachable");
    expect(made.message).toContain(`${join(dataDir, "workspaces")} is not a folder`);
    expect(readFileSync(join(dataDir, "workspaces"), "utf8")).toBe("in the way\n");
    expectCleanAfter(workspace, before, dataDir);
  });

  it("a stale lock left by a crashed holder is taken over, and the run proceeds", async () => {
    const workspace = makeRepo(PROJECT);
    const dataDir = freshDataDir();
    // Were the stale lock not taken over, the run would give up after waitMs.
    const { verifier } = await verifierFor(workspace, {
      dataDir,
      lock: { waitMs: 20_000 },
      pin: [request(workspace, "echo ran")],
    });
    const home = homeOf(dataDir);
    writeFileSync(join(home, "verify.lock"), "", { flag: "a" });
    const lockDir = join(home, "verify.lock.lock");
    mkdirSync(lockDir);
    const anHourAgo = new Date(Date.now() - 3_600_000);
    utimesSync(lockDir, anHourAgo, anHourAgo);
    const before = snapshot(workspace);

    const outcome = finished(await verifier.run(request(workspace, "echo ran")));

    expect(outcome).toMatchObject({ passed: true, report: "ran\n" });
    expect(existsSync(lockDir)).toBe(false);
    expectCleanAfter(workspace, before, dataDir);
  }, 60_000);

  it("a lock held by another live process makes the run wait, and it proceeds once released", async () => {
    const workspace = makeRepo(PROJECT);
    const dataDir = freshDataDir();
    const stamp = join(scratch(), "started-at");
    const check = request(workspace, `date +%s%3N > '${stamp}'`);
    const { verifier } = await verifierFor(workspace, { dataDir, pin: [check] });
    const holder = await holdLock(dataDir);
    const before = snapshot(workspace);

    let settled = false;
    const running = verifier.run(check);
    running.then(
      () => {
        settled = true;
      },
      () => {
        settled = true;
      },
    );
    await sleep(1500);
    expect(settled).toBe(false);
    expect(runFolders(dataDir)).toEqual([]);
    const releasedAt = await holder.release();
    const outcome = finished(await running);

    expect(outcome.passed).toBe(true);
    // The check started only after the other process let go of the lock.
    expect(Number(readFileSync(stamp, "utf8"))).toBeGreaterThanOrEqual(releasedAt);
    expectCleanAfter(workspace, before, dataDir);
  }, 60_000);

  it("a lock held by another live process with a short waitMs: gives up as unavailable, saying so", async () => {
    const workspace = makeRepo(PROJECT);
    const dataDir = freshDataDir();
    const ran = join(scratch(), "ran");
    const { verifier } = await verifierFor(workspace, {
      dataDir,
      lock: { waitMs: 1000 },
      pin: [request(workspace, `touch '${ran}'`)],
    });
    const holder = await holdLock(dataDir);
    const before = snapshot(workspace);

    const message = unavailable(await verifier.run(request(workspace, `touch '${ran}'`)));

    expect(message).toContain("another verification of this workspace held the lock");
    expect(existsSync(ran)).toBe(false);
    expect(runFolders(dataDir)).toEqual([]);
    expect(worktreeFolders(dataDir)).toEqual([]);
    await holder.release();
    expectCleanAfter(workspace, before, dataDir);
  }, 60_000);

  it("two verifications at once in one process on one workspace run one after the other", async () => {
    const workspace = makeRepo(PROJECT);
    const dataDir = freshDataDir();
    const log = join(scratch(), "log");
    const script = (name: string) =>
      `echo "start ${name} $(date +%s%N)" >> '${log}'; sleep 2; echo "end ${name} $(date +%s%N)" >> '${log}'`;
    const checks = ["a", "b"].map((id) => request(workspace, script(id), { checkId: id }));
    const { verifier } = await verifierFor(workspace, { dataDir, pin: checks });
    const before = snapshot(workspace);

    const outcomes = await Promise.all(checks.map((check) => verifier.run(check)));

    for (const outcome of outcomes) expect(finished(outcome).passed).toBe(true);
    const entries = readFileSync(log, "utf8")
      .trim()
      .split("\n")
      .map((line) => {
        const [what, name, at] = line.split(" ");
        return { what, name, at: BigInt(at ?? "0") };
      });
    expect(entries.map((entry) => entry.what)).toEqual(["start", "end", "start", "end"]);
    const [firstStart, firstEnd, secondStart, secondEnd] = entries;
    expect(firstEnd?.name).toBe(firstStart?.name);
    expect(secondEnd?.name).toBe(secondStart?.name);
    expect(new Set([firstStart?.name, secondStart?.name])).toEqual(new Set(["a", "b"]));
    // The intervals do not overlap: the second started after the first ended.
    expect((secondStart?.at ?? 0n) >= (firstEnd?.at ?? 1n)).toBe(true);
    expectCleanAfter(workspace, before, dataDir);
  });

  it("a crash between worktree creation and cleanup: a restart removes the worktree and stops what it left running", async () => {
    const workspace = makeRepo(PROJECT);
    const dataDir = freshDataDir();
    const out = scratch();
    const before = snapshot(workspace);

    const content = `pwd -P > '${out}/where'; ${SELF}; echo $self > '${out}/p'; ${sleeperReporting(`${out}/p`)} until [ "$(wc -l < '${out}/p')" -ge 2 ]; do sleep 0.05; done; mv '${out}/p' '${out}/pids'; wait`;
    const host = startChild(CRASH_CHILD, [JSON.stringify({ workspace, dataDir, content, staleMs: 3000 })]);
    await host.line('{"event":"ready"');
    await waitFor(() => existsSync(join(out, "pids")), "the check to start");
    host.child.kill("SIGKILL");
    await host.exited;

    // What the crash left: a registered worktree, and the check's processes, still running.
    const worktree = readFileSync(join(out, "where"), "utf8").trim();
    const [leader, sleeper] = pidsIn(join(out, "pids"));
    expect(registeredWorktrees(workspace)).toContain(worktree);
    expect(existsSync(worktree)).toBe(true);
    // In a PID namespace the check's processes end with the host that ran it (the namespace's
    // init reads a pipe from the host, which the crash closed); with only a process group, they
    // are still running and the restart's recovery must stop them.
    if ((await pidNamespaceSupport()).ok)
      await waitFor(() => !processAlive(sleeper ?? 0), "the namespace to end with its host");
    else expect(processAlive(sleeper ?? 0)).toBe(true);

    // The restart: a new verifier's construction recovers (once the dead holder's lock is stale).
    const { verifier } = await verifierFor(workspace, {
      dataDir,
      lock: { staleMs: 3000 },
      pin: [request(workspace, "echo again")],
    });
    expect(registeredWorktrees(workspace)).toEqual([workspace]);
    expect(existsSync(worktree)).toBe(false);
    expect(worktreeFolders(dataDir)).toEqual([]);
    expect(processGroupAlive(leader ?? 0)).toBe(false);
    expect(processAlive(sleeper ?? 0)).toBe(false);
    expect(finished(await verifier.run(request(workspace, "echo again"))).passed).toBe(true);
    expectCleanAfter(workspace, before, dataDir);
  }, 60_000);

  it("a restart while another process is verifying leaves that live worktree alone", async () => {
    const workspace = makeRepo(PROJECT);
    const dataDir = freshDataDir();
    const out = scratch();
    const before = snapshot(workspace);

    const content = `pwd -P > '${out}/where.tmp'; mv '${out}/where.tmp' '${out}/where'; while [ ! -e '${out}/go' ]; do sleep 0.05; done; echo "finished in place"`;
    const host = startChild(CRASH_CHILD, [JSON.stringify({ workspace, dataDir, content })]);
    await waitFor(() => existsSync(join(out, "where")), "the other process's check to start");
    const worktree = readFileSync(join(out, "where"), "utf8").trim();

    // A second session starts on the same workspace while that check runs.
    const echoSecond = request(workspace, "echo second");
    const second = await createTaskVerifier({
      workspace,
      dataDir,
      lock: { waitMs: 500 },
      checks: [pinnedCheck(workspace, echoSecond)],
    });
    if (!second.ok) throw new Error(second.message);
    expect(existsSync(worktree)).toBe(true);
    expect(registeredWorktrees(workspace)).toContain(worktree);

    writeFileSync(join(out, "go"), "");
    const reported = JSON.parse(await host.line('{"event":"outcome"')) as { outcome: ScriptOutcome };
    await host.exited;
    expect(reported.outcome).toMatchObject({ ok: true, passed: true, report: "finished in place\n" });
    expect(reported.outcome.verification?.cleanup).toEqual({ ok: true });
    // The second session works too, once the first is done.
    expect(finished(await second.verifier.run(requestFor(echoSecond))).passed).toBe(true);
    expectCleanAfter(workspace, before, dataDir);
  }, 60_000);

  it("recover() never deletes a folder of the worktrees area that git has not registered", async () => {
    const workspace = makeRepo(PROJECT);
    const dataDir = freshDataDir();
    const { verifier } = await verifierFor(workspace, { dataDir });
    const stray = join(homeOf(dataDir), "worktrees", "not-a-worktree");
    mkdirSync(stray);
    writeFileSync(join(stray, "keep.txt"), "someone's files\n");
    const before = snapshot(workspace);

    expect(await verifier.recover()).toEqual({ removed: [], failed: [] });
    expect(readFileSync(join(stray, "keep.txt"), "utf8")).toBe("someone's files\n");
    // Nor does a restart's recovery.
    await verifierFor(workspace, { dataDir });
    expect(readFileSync(join(stray, "keep.txt"), "utf8")).toBe("someone's files\n");
    expectCleanAfter(workspace, before, dataDir);
  });

  it("a run whose worktree place holds a folder git does not know refuses, and leaves the folder", async () => {
    const workspace = makeRepo(PROJECT);
    const dataDir = freshDataDir();
    const out = scratch();
    // One check, run twice: the first run says where it ran, a second one would leave a mark.
    const check = request(
      workspace,
      `if [ -e '${out}/where' ]; then touch '${out}/ran'; else pwd -P > '${out}/where'; fi`,
    );
    const { verifier } = await verifierFor(workspace, { dataDir, pin: [check] });
    const before = snapshot(workspace);

    // The same check on the same candidate gets the same place: learn it from a first run.
    finished(await verifier.run(check));
    const place = readFileSync(join(out, "where"), "utf8").trim();
    expect(existsSync(place)).toBe(false);
    mkdirSync(place);
    writeFileSync(join(place, "keep.txt"), "not git's\n");

    const message = unavailable(await verifier.run(check));

    expect(message).toContain("a previous worktree is in the way");
    expect(message).toContain("not a registered worktree");
    expect(readFileSync(join(place, "keep.txt"), "utf8")).toBe("not git's\n");
    expect(existsSync(join(out, "ran"))).toBe(false);
    expectCleanAfter(workspace, before, dataDir);
  });

  it("a missing Node executable: runs are pending, naming the Node", async () => {
    const workspace = makeRepo(PROJECT);
    const dataDir = freshDataDir();
    const ran = join(scratch(), "ran");
    const checks = [
      request(workspace, "npm test"),
      request(workspace, `node -e 0; touch '${ran}'`, { checkId: "node" }),
    ];
    const { verifier } = await verifierFor(workspace, {
      dataDir,
      nodeExecutable: "/nonexistent/node",
      pin: checks,
    });
    const before = snapshot(workspace);

    for (const check of checks) {
      const message = unavailable(await verifier.run(check));
      expect(message).toContain("the Node executable /nonexistent/node is missing or not executable");
    }
    expect(existsSync(ran)).toBe(false);
    expect(worktreeFolders(dataDir)).toEqual([]);
    expectCleanAfter(workspace, before, dataDir);
  });

  it("a Node that disappears after construction: pending, not a check run with some other Node", async () => {
    const workspace = makeRepo(PROJECT);
    const dataDir = freshDataDir();
    const nodeDir = scratch();
    const node = join(nodeDir, "node");
    symlinkSync(process.execPath, node);
    const ran = join(scratch(), "ran");
    const touch = request(workspace, `node -e 0 && touch '${ran}'`, { checkId: "touch" });
    const { verifier } = await verifierFor(workspace, {
      dataDir,
      nodeExecutable: node,
      pin: [request(workspace, "node -e 0"), touch],
    });
    const before = snapshot(workspace);
    expect(finished(await verifier.run(request(workspace, "node -e 0"))).passed).toBe(true);

    rmSync(node);
    const message = unavailable(await verifier.run(touch));

    expect(message).toContain(node);
    expect(existsSync(ran)).toBe(false);
    expectCleanAfter(workspace, before, dataDir);
  });

  it("a second verifier with another Node runs its checks with that Node, and the first keeps its own", async () => {
    const workspace = makeRepo(PROJECT);
    const dataDir = freshDataDir();
    const wrapper = (name: string) => {
      const path = join(scratch(), "node");
      writeFileSync(path, `#!/bin/sh\necho "node ${name}" >&2\nexec '${process.execPath}' "$@"\n`);
      chmodSync(path, 0o755);
      return path;
    };
    const nodeCheck = request(workspace, "node -e 0");
    const first = await verifierFor(workspace, { dataDir, nodeExecutable: wrapper("A"), pin: [nodeCheck] });
    const before = snapshot(workspace);
    expect(finished(await first.verifier.run(request(workspace, "node -e 0"))).report).toBe("node A\n");

    const second = await verifierFor(workspace, { dataDir, nodeExecutable: wrapper("B"), pin: [nodeCheck] });
    expect(finished(await second.verifier.run(request(workspace, "node -e 0"))).report).toBe("node B\n");
    expect(finished(await first.verifier.run(request(workspace, "node -e 0"))).report).toBe("node A\n");
    expectCleanAfter(workspace, before, dataDir);
  });

  it("npm missing (npmCliPath pointing nowhere, or no npm beside the Node): a check running npm is pending", async () => {
    const workspace = makeRepo(PROJECT);
    const dataDir = freshDataDir();
    const nodeDir = join(scratch(), "bin");
    mkdirSync(nodeDir);
    const node = join(nodeDir, "node");
    symlinkSync(process.execPath, node);
    const before = snapshot(workspace);

    const pin = [
      request(workspace, "npm test"),
      request(workspace, "node test/add.test.js", { checkId: "node" }),
    ];
    const nowhere = await verifierFor(workspace, {
      dataDir,
      nodeExecutable: node,
      npmCliPath: join(nodeDir, "nowhere", "npm-cli.js"),
      pin,
    });
    const besideNothing = await verifierFor(workspace, {
      dataDir,
      nodeExecutable: node,
      npmCliPath: undefined,
      pin,
    });
    for (const { verifier } of [nowhere, besideNothing]) {
      expect(unavailable(await verifier.run(request(workspace, "npm test")))).toContain(
        `the check runs npm, and there is no npm next to ${node}; set PI_QUESTS_NPM_CLI to npm's npm-cli.js`,
      );
      // A check that does not need npm still runs, with that Node.
      expect(
        finished(await verifier.run(request(workspace, "node test/add.test.js", { checkId: "node" }))).passed,
      ).toBe(true);
    }
    expect(worktreeFolders(dataDir)).toEqual([]);
    expectCleanAfter(workspace, before, dataDir);
  });

  it("a candidate patch that changes between capture and apply is refused by its sha256", async () => {
    const workspace = makeRepo(PROJECT);
    writeFileSync(join(workspace, "src/add.js"), "exports.add = (a, b) => b + a;\n");
    const dataDir = freshDataDir();
    // Right after the worktree exists, and before the patch is applied, the patch file changes.
    const fake = fakeGit("tamper worktree add");
    const ran = join(scratch(), "ran");
    const { verifier } = await verifierFor(workspace, {
      dataDir,
      env: fake.env,
      pin: [request(workspace, `touch '${ran}'`)],
    });
    const before = snapshot(workspace);

    const outcome = await verifier.run(request(workspace, `touch '${ran}'`));

    const message = unavailable(outcome);
    expect(message).toContain("the candidate patch changed after it was taken");
    expect(message).toContain(`expected ${outcome.verification?.patchSha256}`);
    expect(readFileSync(join(outcome.verification?.runDir ?? "", "candidate.patch"), "utf8")).toMatch(
      /tampered\n$/,
    );
    expect(existsSync(ran)).toBe(false);
    expect(worktreeFolders(dataDir)).toEqual([]);
    expectCleanAfter(workspace, before, dataDir);
  });

  it("applyCandidate refuses a tampered patch file, and applies the genuine one", async () => {
    const workspace = makeRepo(PROJECT);
    writeFileSync(join(workspace, "src/add.js"), "exports.add = (a, b) => b + a;\n");
    const patch = Buffer.from(git(workspace, "diff", "--binary", "HEAD"));
    const sha256 = createHash("sha256").update(patch).digest("hex");
    const dataDir = freshDataDir();
    const worktree = join(dataDir, "worktree");
    const before = snapshot(workspace);
    git(workspace, "worktree", "add", "-q", "--detach", worktree, "HEAD");
    const patchFile = join(dataDir, "candidate.patch");
    writeFileSync(patchFile, Buffer.concat([patch, Buffer.from("tampered\n")]));

    const refused = await applyCandidate(createGitRunner(), worktree, patchFile, sha256);
    expect(refused.ok).toBe(false);
    if (refused.ok) throw new Error("unreachable");
    expect(refused.message).toContain("sha256");
    expect(refused.message).toContain(`expected ${sha256}`);
    expect(git(worktree, "status", "--porcelain")).toBe("");

    writeFileSync(patchFile, patch);
    expect(await applyCandidate(createGitRunner(), worktree, patchFile, sha256)).toEqual({
      ok: true,
      value: undefined,
    });
    expect(readFileSync(join(worktree, "src/add.js"), "utf8")).toBe("exports.add = (a, b) => b + a;\n");
    git(workspace, "worktree", "remove", "--force", worktree);
    expectCleanAfter(workspace, before, dataDir);
  });

  it("a workspace that is not a git repository: not_git, and nothing is made", async () => {
    const workspace = makeWorkspace(PROJECT);
    const dataDir = freshDataDir();
    const before = snapshot(workspace);

    const made = await createTaskVerifier({ workspace, dataDir, checks: [] });

    expect(made).toMatchObject({ ok: false, kind: "not_git" });
    if (made.ok) throw new Error("unreachable");
    expect(made.message).toContain("is not in a git repository");
    // expectCleanAfter asks git for the worktree list, which has no answer outside a repository.
    expect(snapshot(workspace)).toEqual(before);
    expect(existsSync(join(workspace, ".git"))).toBe(false);
    expect(readdirSync(dataDir)).toEqual([]);
    expect(processesMentioning(dataDir)).toEqual([]);
  });

  it("a process that leaves the check's group (setsid) and holds its pipes is still found and killed", async () => {
    const workspace = makeRepo(PROJECT);
    const dataDir = freshDataDir();
    const pid = join(scratch(), "escapee");

    // The escapee writes its pid once it has its own session, and only then does the script exit:
    // otherwise the group kill at exit could catch it before it left.
    const script = `setsid sh -c '${SELF}; echo $self > "$1.tmp"; mv "$1.tmp" "$1"; exec sleep 300' escapee '${pid}' &
until [ -e '${pid}' ]; do sleep 0.05; done
echo left`;
    const { verifier } = await verifierFor(workspace, { dataDir, pin: [request(workspace, script)] });
    const before = snapshot(workspace);
    const outcome = finished(await verifier.run(request(workspace, script)));

    expect(outcome.passed).toBe(true);
    const [escapee] = pidsIn(pid);
    expect(escapee).toBeGreaterThan(1);
    expect(processAlive(escapee ?? 0)).toBe(false);
    expectCleanAfter(workspace, before, dataDir);
  });

  it("the lock taken away mid-run does not crash the host: the run is pending, saying so", async () => {
    const workspace = makeRepo(PROJECT);
    const dataDir = freshDataDir();
    // staleMs 2000: the lock is refreshed every second, so its loss is noticed during the run.
    const lockDir = join(workspaceHome(dataDir, workspace), "verify.lock.lock");
    const takeLock = request(workspace, `rmdir '${lockDir}'; sleep 3; echo done`);
    const { verifier } = await verifierFor(workspace, {
      dataDir,
      lock: { staleMs: 2000 },
      pin: [takeLock, request(workspace, "echo next", { checkId: "next" })],
    });
    expect(lockDir).toBe(join(homeOf(dataDir), "verify.lock.lock"));
    const before = snapshot(workspace);

    const outcome = await verifier.run(takeLock);

    expect(unavailable(outcome)).toContain("lock");
    expect(outcome.verification?.cleanup).toEqual({ ok: true });
    // The next run takes the lock afresh.
    expect(finished(await verifier.run(request(workspace, "echo next", { checkId: "next" }))).passed).toBe(
      true,
    );
    expectCleanAfter(workspace, before, dataDir);
  });
});

describe("npm reached from a script the check runs, with no npm beside the Node", () => {
  it("is never looked up on PATH: the script's npm says what to set instead", async () => {
    const workspace = makeRepo({ ...PROJECT, "scripts/indirect.sh": "npm --version\n" });
    const dataDir = freshDataDir();
    const nodeDir = join(scratch(), "bin");
    mkdirSync(nodeDir);
    const node = join(nodeDir, "node");
    symlinkSync(process.execPath, node);
    const check = request(workspace, "sh scripts/indirect.sh");
    const { verifier } = await verifierFor(workspace, {
      dataDir,
      nodeExecutable: node,
      npmCliPath: undefined,
      pin: [check],
    });
    const outcome = finished(await verifier.run(check));
    expect(outcome.exitCode).toBe(127);
    expect(outcome.report).toContain(
      `pi-quests: there is no npm next to ${node}; set PI_QUESTS_NPM_CLI to npm's npm-cli.js`,
    );
  });
});
