/**
 * Red team, processes and worktrees: what an agent with a shell can leave behind through a check
 * it controls (the check's script, or the code the check runs), and what it can do to the
 * verifier's worktrees folder. Real processes, real git, temporary folders. Every case ends with
 * no process of the attack left (looked up through /proc by a token in its command line), the
 * learner's workspace byte-identical, and no worktree left.
 */

import { execFileSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import {
  chmodSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { join, resolve } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { afterEach, describe, expect, it } from "vitest";
import { createNodeProbes } from "../../src/probes/index.ts";
import { pidNamespaceSupport } from "../../src/probes/os/pid-namespace.ts";
import { bashCheck } from "../../src/probes/script-runner.ts";
import { evaluateQuest } from "../../src/verifier/evaluate.ts";
import { check } from "../support/checks.ts";
import {
  dataDirOutside,
  expectCleanAfter,
  finished,
  makeRepo,
  processesMentioning,
  request,
  snapshot,
  verifierFor,
} from "../support/task-verifier.ts";
import { git, makeWorkspace, removeWorkspaces } from "../support/workspace.ts";

const FAKE_GIT = resolve(import.meta.dirname, "../../fixtures/task-verifier/fake-git.sh");
const REAL_GIT = execFileSync("sh", ["-c", "command -v git"], { encoding: "utf8" }).trim();

/** Whether this machine gives checks a PID namespace; without one, an escapee cannot be caught. */
const contained = (await pidNamespaceSupport()).ok;

const PROJECT = {
  "package.json": JSON.stringify({ name: "demo", scripts: { test: "node test/add.test.js" } }, null, 2),
  "src/add.js": "exports.add = (a, b) => a - b;\n",
  "test/add.test.js":
    'const { add } = require("../src/add.js");\nif (add(2, 3) !== 5) { console.error("add(2, 3) should be 5"); process.exit(1); }\nconsole.log("ok");\n',
};

const dataDirs: string[] = [];
/** Tokens of this file's attacks: anything still running with one is killed after each test. */
const tokens: string[] = [];

afterEach(() => {
  for (const token of tokens.splice(0))
    for (const pid of processesMentioning(token)) {
      try {
        process.kill(pid, "SIGKILL");
      } catch {
        // Gone meanwhile.
      }
    }
  removeWorkspaces();
  for (const dir of dataDirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function freshDataDir(): string {
  const dir = dataDirOutside();
  dataDirs.push(dir);
  return dir;
}

/** A sleep length no other process uses: it names the attack's processes in /proc. */
function token(): string {
  const made = `7${randomBytes(3).readUIntBE(0, 3)}.25`;
  tokens.push(made);
  return made;
}

/**
 * The attacks, as the agent writes them into a check (or into what the check runs). Each one
 * waits until its process is in place (a `ready` file) before the script ends, so the escape
 * has happened; `marker`, when given, is a file the escapee writes later, if it still runs.
 */
type Attack = { title: string; script: (t: string, out: string) => string; marker?: boolean };

const ATTACKS: Attack[] = [
  {
    title: "`env -i setsid sleep` (new session, empty environment: no group, no marker variable)",
    script: (t, out) => `env -i setsid sh -c 'touch "$1"; exec sleep ${t}' escapee '${out}/ready' &`,
  },
  {
    title: "a double-forked daemon (its parent exits, it is adopted by init)",
    script: (t, out) => `( ( setsid sh -c 'touch "$1"; exec sleep ${t}' daemon '${out}/ready' & ) & ); wait`,
  },
  {
    title: "`nohup` in a new session (SIGHUP ignored)",
    script: (t, out) =>
      `setsid nohup sh -c 'touch "$1"; exec sleep ${t}' nohup '${out}/ready' > /dev/null 2>&1 &`,
  },
  {
    title: "a child that ignores SIGTERM and SIGHUP, in a new session",
    script: (t, out) =>
      `env -i setsid sh -c 'trap "" TERM HUP INT; touch "$1"; while :; do sleep ${t}; done' stubborn '${out}/ready' &`,
  },
  {
    title: "an escapee that writes a file after the check ended",
    script: (t, out) =>
      `env -i setsid sh -c 'touch "$1"; sleep 1.5; touch "$2"; exec sleep ${t}' late '${out}/ready' '${out}/marker' &`,
    marker: true,
  },
];

const waitReady = (out: string) => `until [ -e '${out}/ready' ]; do sleep 0.02; done; echo planted`;

/** The marker must not appear: wait past the moment the escapee would have written it. */
async function expectNoLateMarker(out: string): Promise<void> {
  await sleep(2500);
  expect(existsSync(join(out, "marker"))).toBe(false);
}

describe.skipIf(!contained)("processes a check leaves behind, in the isolated verifier", () => {
  for (const attack of ATTACKS) {
    it(`${attack.title}: gone when the check returns`, async () => {
      const workspace = makeRepo(PROJECT);
      const dataDir = freshDataDir();
      const out = makeWorkspace();
      const t = token();
      const check = request(workspace, `${attack.script(t, out)}\n${waitReady(out)}`);
      const { verifier } = await verifierFor(workspace, { dataDir, pin: [check] });
      const before = snapshot(workspace);

      const outcome = finished(await verifier.run(check));

      expect(existsSync(join(out, "ready"))).toBe(true);
      expect(outcome.report).toContain("planted");
      expect(processesMentioning(t)).toEqual([]);
      expect(outcome.containment).toBe("pid-namespace");
      const run = JSON.parse(readFileSync(join(outcome.verification?.runDir ?? "", "run.json"), "utf8"));
      expect(run.containment).toBe("pid-namespace");
      if (attack.marker) await expectNoLateMarker(out);
      expectCleanAfter(workspace, before, dataDir);
    });
  }
});

describe.skipIf(!contained)("processes a check leaves behind, run in place (isolation: none)", () => {
  for (const attack of ATTACKS) {
    it(`${attack.title}: gone when the check returns`, async () => {
      const workspace = makeWorkspace(PROJECT);
      const out = makeWorkspace();
      const t = token();
      const before = snapshot(workspace);

      const outcome = finished(
        await bashCheck()({
          script: "q/c",
          content: `${attack.script(t, out)}\n${waitReady(out)}`,
          cwd: workspace,
          timeoutMs: 30_000,
        }),
      );

      expect(existsSync(join(out, "ready"))).toBe(true);
      expect(outcome).toMatchObject({ passed: true, containment: "pid-namespace" });
      expect(processesMentioning(t)).toEqual([]);
      if (attack.marker) await expectNoLateMarker(out);
      expect(snapshot(workspace)).toEqual(before);
    });
  }

  it("a check that times out after planting an escapee: pending, the escapee gone, and the evidence says how it was contained", async () => {
    const workspace = makeWorkspace(PROJECT);
    const out = makeWorkspace();
    const t = token();
    const result = await evaluateQuest(
      {
        id: "q",
        checks: [
          check({
            type: "command",
            isolation: "none",
            run: `${ATTACKS[0]?.script(t, out)}\n${waitReady(out)}\nsleep 30`,
            timeout_ms: 1500,
          }),
        ],
      },
      {
        probes: createNodeProbes(),
        events: [],
        paths: { workspace, agentDir: join(workspace, "agent"), home: workspace },
        questId: "q",
      },
    );
    const [only] = result.checks;
    expect(only?.status).toBe("pending");
    expect(only?.evidence).toMatchObject({ kind: "command", containment: "pid-namespace" });
    expect(only?.evidence.summary).toMatch(/^timeout: /);
    expect(processesMentioning(t)).toEqual([]);
  });
});

/** A `git` whose `worktree remove` fails on purpose while its control file says so. */
function failingGitRemove() {
  const dir = makeWorkspace();
  mkdirSync(join(dir, "bin"));
  writeFileSync(join(dir, "bin", "git"), readFileSync(FAKE_GIT));
  chmodSync(join(dir, "bin", "git"), 0o755);
  const control = join(dir, "control");
  const set = (...lines: string[]) => writeFileSync(control, lines.map((line) => `${line}\n`).join(""));
  set("fail worktree remove");
  return {
    env: {
      ...process.env,
      PATH: `${join(dir, "bin")}:${process.env.PATH ?? ""}`,
      FAKE_GIT_REAL: REAL_GIT,
      FAKE_GIT_CONTROL: control,
    },
    set,
  };
}

const homeOf = (dataDir: string) => {
  const [only] = readdirSync(join(dataDir, "workspaces"));
  return join(dataDir, "workspaces", only ?? "");
};
const journal = (dataDir: string): string[] => {
  const file = join(homeOf(dataDir), "pending-removal.json");
  return existsSync(file) ? (JSON.parse(readFileSync(file, "utf8")) as { folders: string[] }).folders : [];
};

describe("worktrees whose cleanup the agent breaks", () => {
  it("removal fails, then the agent deletes the worktree's .git and runs `git worktree prune`: not a pass, journaled, and the next recovery still removes the folder", async () => {
    const workspace = makeRepo({ ...PROJECT, "src/add.js": "exports.add = (a, b) => a + b;\n" });
    const dataDir = freshDataDir();
    const fake = failingGitRemove();
    const { verifier } = await verifierFor(workspace, {
      pin: [request(workspace, "npm test")],
      dataDir,
      env: fake.env,
    });
    const before = snapshot(workspace);

    const outcome = await verifier.run(request(workspace, "npm test"));
    expect(outcome.ok).toBe(false);
    if (outcome.ok) throw new Error("unreachable");
    expect(outcome.kind).toBe("unavailable");
    expect(outcome.message).toContain("cleanup failed");
    const cleanup = outcome.verification?.cleanup;
    if (!cleanup || cleanup.ok) throw new Error(`expected a failed cleanup, got ${JSON.stringify(cleanup)}`);
    expect(outcome.message).toContain(cleanup.keptWorktree);
    expect(journal(dataDir)).toHaveLength(1);

    // The agent makes git forget the worktree; git itself still fails to remove anything.
    rmSync(join(cleanup.keptWorktree, ".git"));
    git(workspace, "worktree", "prune");
    expect(git(workspace, "worktree", "list", "--porcelain")).not.toContain(cleanup.keptWorktree);
    expect(existsSync(cleanup.keptWorktree)).toBe(true);

    expect(await verifier.recover()).toEqual({ removed: [cleanup.keptWorktree], failed: [] });
    expect(existsSync(cleanup.keptWorktree)).toBe(false);
    expect(journal(dataDir)).toEqual([]);
    fake.set();
    expect(finished(await verifier.run(request(workspace, "npm test"))).passed).toBe(true);
    expectCleanAfter(workspace, before, dataDir);
  });

  it("a link planted in worktrees/ (and named in the journal) pointing at the learner's files is never followed", async () => {
    const workspace = makeRepo(PROJECT);
    const dataDir = freshDataDir();
    const { verifier } = await verifierFor(workspace, { pin: [request(workspace, "npm test")], dataDir });
    const before = snapshot(workspace);
    const worktrees = join(homeOf(dataDir), "worktrees");

    // The agent's commands: a link to the workspace, and a journal entry asking for its removal.
    symlinkSync(workspace, join(worktrees, "bait"));
    writeFileSync(
      join(homeOf(dataDir), "pending-removal.json"),
      JSON.stringify({ version: 1, folders: ["bait", "../.."] }),
    );

    expect(await verifier.recover()).toEqual({ removed: [], failed: [] });
    expect(snapshot(workspace)).toEqual(before);
    expect(journal(dataDir)).toEqual([]);
    rmSync(join(worktrees, "bait"));
    expect(finished(await verifier.run(request(workspace, "npm test"))).passed).toBe(false);
    expectCleanAfter(workspace, before, dataDir);
  });

  it("a kept worktree swapped for a link to the learner's workspace: recovery removes the link, never the workspace", async () => {
    const workspace = makeRepo(PROJECT);
    const dataDir = freshDataDir();
    const fake = failingGitRemove();
    const { verifier } = await verifierFor(workspace, {
      pin: [request(workspace, "echo hi")],
      dataDir,
      env: fake.env,
    });
    const before = snapshot(workspace);

    const outcome = await verifier.run(request(workspace, "echo hi"));
    const cleanup = outcome.verification?.cleanup;
    if (!cleanup || cleanup.ok) throw new Error(`expected a failed cleanup, got ${JSON.stringify(cleanup)}`);
    rmSync(cleanup.keptWorktree, { recursive: true, force: true });
    symlinkSync(workspace, cleanup.keptWorktree);

    fake.set();
    const report = await verifier.recover();
    expect(report.failed).toEqual([]);
    expect(snapshot(workspace)).toEqual(before);
    expect(existsSync(cleanup.keptWorktree)).toBe(false);
    expect(journal(dataDir)).toEqual([]);
    expectCleanAfter(workspace, before, dataDir);
  });
});

describe.skipIf(!contained)("the honest solution", () => {
  it("a fixed add() passes in the isolated verifier, contained in a PID namespace, with nothing left", async () => {
    const workspace = makeRepo(PROJECT);
    const dataDir = freshDataDir();
    const { verifier } = await verifierFor(workspace, { pin: [request(workspace, "npm test")], dataDir });
    writeFileSync(join(workspace, "src/add.js"), "exports.add = (a, b) => a + b;\n");
    const before = snapshot(workspace);

    const outcome = finished(await verifier.run(request(workspace, "npm test")));
    expect(outcome).toMatchObject({ passed: true, exitCode: 0, containment: "pid-namespace" });
    expect(outcome.verification?.cleanup).toEqual({ ok: true });
    expectCleanAfter(workspace, before, dataDir);
  });
});
