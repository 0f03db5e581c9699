/**
 * Attacks on git settings and metadata the agent controls: `.git/config` (and the files it
 * includes), hooks, replace refs and grafts, `.git/info/*`, the learner's index and the
 * environment of the shell pi-quests starts from. Each case is what an agent could run from Pi's
 * bash tool; none may make a git check, the task verifier or the fingerprint see something that
 * is not on disk, run a program of the agent's, or write the learner's repository.
 * Real git, real processes, temporary folders.
 */
import { execFileSync } from "node:child_process";
import { chmodSync, existsSync, mkdirSync, utimesSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { createGitProbe } from "../../src/probes/git.ts";
import { fastFingerprint, fullFingerprint } from "../../src/receipts/fingerprint.ts";
import { evaluateCheck } from "../../src/verifier/evaluate.ts";
import type { ScriptOutcome } from "../../src/verifier/probes.ts";
import type { CheckResult } from "../../src/verifier/results.ts";
import { ADD_TEST, BUGGY_ADD, FIXED_ADD, NO_OP } from "../support/add-project.ts";
import { check } from "../support/checks.ts";
import { context, fakeProbes } from "../support/fake-probes.ts";
import {
  expectCleanAfter,
  finished,
  makeRepo,
  request,
  snapshot,
  verifierFor,
} from "../support/task-verifier.ts";
import { git, makeWorkspace, removeWorkspaces } from "../support/workspace.ts";

afterEach(removeWorkspaces);

const PROJECT = {
  "package.json": `${JSON.stringify({ name: "demo", private: true, scripts: { test: "node test/add.test.js" } })}\n`,
  "src/add.js": BUGGY_ADD,
  "test/add.test.js": ADD_TEST,
  "notes.txt": "first line\n",
};

function write(root: string, path: string, content: string): void {
  mkdirSync(dirname(join(root, path)), { recursive: true });
  writeFileSync(join(root, path), content);
}

/** A shell script that leaves `marker` behind when git runs it, then prints `output`. */
function spy(marker: string, output = ""): string {
  const script = join(makeWorkspace(), "spy.sh");
  writeFileSync(script, `#!/bin/sh\ntouch '${marker}'\nprintf '%s' '${output}'\ncat >/dev/null 2>&1\n`);
  chmodSync(script, 0o755);
  return script;
}

/** A marker path in a fresh folder outside the workspace; it must never be created. */
const markerPath = () => join(makeWorkspace(), "ran");

const head = (repo: string) => git(repo, "rev-parse", "HEAD").trim();

/**
 * A repository with one real commit since its baseline, and a made-up history of three commits
 * over the baseline (`fake`, the last of them) that a replace ref or a graft can pass off as HEAD's.
 */
function oneRealCommitAndAFakeHistory(): { workspace: string; baseline: string; fake: string } {
  const workspace = makeRepo(PROJECT);
  const baseline = head(workspace);
  write(workspace, "notes.txt", "one real commit\n");
  git(workspace, "commit", "-qam", "the only real commit");
  const tree = git(workspace, "rev-parse", "HEAD^{tree}").trim();
  let fake = baseline;
  for (const n of [1, 2, 3]) fake = git(workspace, "commit-tree", tree, "-p", fake, "-m", `fake ${n}`).trim();
  return { workspace, baseline, fake };
}

/** commit_count with `min: 3` sees the one real commit only, and reads the repository without writing it. */
async function expectOneCommitCounted(workspace: string, baseline: string): Promise<void> {
  const before = snapshot(workspace);
  const summary = notPass(await gitCheck(workspace, baseline, { assert: "commit_count", count: { min: 3 } }));
  expect(summary).toMatch(/^1 commit\(s\) since/);
  expect(snapshot(workspace)).toEqual(before);
}

/** A git check evaluated by the engine against the real git probe. */
async function gitCheck(
  workspace: string,
  baseline: string,
  fields: Record<string, unknown>,
): Promise<CheckResult> {
  const probes = { ...fakeProbes(), git: createGitProbe() };
  const paths = { workspace, agentDir: join(workspace, "..", "agent"), home: join(workspace, "..") };
  return evaluateCheck(check({ type: "git", ...fields }), context({ probes, paths, baseline }));
}

function notPass(result: CheckResult): string {
  expect(result.status, JSON.stringify(result.evidence)).not.toBe("pass");
  return result.evidence.summary;
}

function red(outcome: ScriptOutcome) {
  const done = finished(outcome);
  expect(done.passed, done.report).toBe(false);
  return done;
}

/** Fast and full fingerprints agree; returns the value. */
async function agreedFingerprint(workspace: string): Promise<string> {
  const [fast, full] = [await fastFingerprint(workspace), await fullFingerprint(workspace)];
  if (!fast.ok || !full.ok) throw new Error(`no fingerprint: ${JSON.stringify([fast, full])}`);
  expect(fast.path).toBe("fast");
  expect(fast.fingerprint).toEqual(full.fingerprint);
  return fast.fingerprint.value;
}

describe("replace refs and grafts", () => {
  it("git replace of the baseline's test blob: the task verifier restores the real test", async () => {
    const workspace = makeRepo(PROJECT);
    const { verifier, dataDir } = await verifierFor(workspace, { pin: [request(workspace, "npm test")] });
    const real = git(workspace, "rev-parse", "HEAD:test/add.test.js").trim();
    const fake = execFileSync("git", ["hash-object", "-w", "--stdin"], { cwd: workspace, input: NO_OP })
      .toString()
      .trim();
    git(workspace, "replace", real, fake);
    write(workspace, "test/add.test.js", NO_OP);

    const before = snapshot(workspace);
    const done = red(await verifier.run(request(workspace, "npm test")));
    expect(done.report).toContain("FAIL add(2, 3) is -1");
    expect(done.report).not.toContain("no-op");
    expectCleanAfter(workspace, before, dataDir);
  });

  it("git replace of the baseline's blob cannot make an edited file read as restored (file_restored)", async () => {
    const workspace = makeRepo(PROJECT);
    const baseline = head(workspace);
    write(workspace, "test/add.test.js", NO_OP);
    const fake = execFileSync("git", ["hash-object", "-w", "test/add.test.js"], { cwd: workspace })
      .toString()
      .trim();
    git(workspace, "replace", git(workspace, "rev-parse", "HEAD:test/add.test.js").trim(), fake);

    const before = snapshot(workspace);
    const summary = notPass(
      await gitCheck(workspace, baseline, { assert: "file_restored", path: "test/add.test.js" }),
    );
    expect(summary).toBe("test/add.test.js differs from the baseline");
    expect(snapshot(workspace)).toEqual(before);
  });

  it("a replaced commit with a longer history does not raise commit_count", async () => {
    const { workspace, baseline, fake } = oneRealCommitAndAFakeHistory();
    // The real commit replaced by the last of three made-up ones.
    git(workspace, "replace", head(workspace), fake);
    expect(git(workspace, "rev-list", "--count", `${baseline}..HEAD`).trim()).toBe("3");

    await expectOneCommitCounted(workspace, baseline);
  });

  it("a graft in .git/info/grafts (read by git 2.39) does not raise commit_count", async () => {
    const { workspace, baseline, fake } = oneRealCommitAndAFakeHistory();
    writeFileSync(join(workspace, ".git/info/grafts"), `${head(workspace)} ${fake}\n`);
    // Plain git honours the graft: four commits since the baseline.
    expect(git(workspace, "rev-list", "--count", `${baseline}..HEAD`).trim()).toBe("4");

    await expectOneCommitCounted(workspace, baseline);
  });
});

describe("programs the repository's config names", () => {
  it("an fsmonitor hook that says nothing changed: it never runs and the change is seen", async () => {
    const workspace = makeRepo(PROJECT);
    const baseline = head(workspace);
    const original = await agreedFingerprint(workspace);
    const marker = markerPath();
    git(workspace, "config", "core.fsmonitor", spy(marker));
    write(workspace, "notes.txt", "changed behind the monitor's back\n");

    const before = snapshot(workspace);
    const summary = notPass(await gitCheck(workspace, baseline, { assert: "clean_tree" }));
    expect(summary).toContain("notes.txt");
    expect(await agreedFingerprint(workspace)).not.toBe(original);
    expect(existsSync(marker)).toBe(false);
    expect(snapshot(workspace)).toEqual(before);
  });

  it("a post-checkout hook never runs in the verifier's worktree; the honest fix still passes", async () => {
    const workspace = makeRepo(PROJECT);
    const { verifier, dataDir } = await verifierFor(workspace, { pin: [request(workspace, "npm test")] });
    const marker = markerPath();
    const hook = join(workspace, ".git/hooks/post-checkout");
    writeFileSync(hook, `#!/bin/sh\ntouch '${marker}'\nprintf '%s' '${NO_OP}' > test/add.test.js\n`);
    chmodSync(hook, 0o755);
    write(workspace, "src/add.js", FIXED_ADD);

    const before = snapshot(workspace);
    const done = finished(await verifier.run(request(workspace, "npm test")));
    expect(done.passed, done.report).toBe(true);
    expect(done.report).toContain("PASS add");
    expect(existsSync(marker)).toBe(false);
    expectCleanAfter(workspace, before, dataDir);
  });

  it("filter drivers from an included config file never run (clean_tree, diff_contains, the verifier)", async () => {
    const workspace = makeRepo(PROJECT);
    const baseline = head(workspace);
    const { verifier, dataDir } = await verifierFor(workspace, { pin: [request(workspace, "npm test")] });
    const marker = markerPath();
    const driver = spy(marker, NO_OP);
    writeFileSync(
      join(workspace, ".git/extra.config"),
      `[filter "x"]\n\tclean = ${driver}\n\tsmudge = ${driver}\n\tprocess = ${driver}\n\trequired = true\n`,
    );
    git(workspace, "config", "include.path", "extra.config");
    writeFileSync(join(workspace, ".git/info/attributes"), "* filter=x\n");
    write(workspace, "notes.txt", "an honest edit\n");

    const before = snapshot(workspace);
    notPass(await gitCheck(workspace, baseline, { assert: "clean_tree" }));
    const diff = await gitCheck(workspace, baseline, { assert: "diff_contains", text: "an honest edit" });
    expect(diff.status, diff.evidence.summary).toBe("pass");
    red(await verifier.run(request(workspace, "npm test")));
    expect(existsSync(marker)).toBe(false);
    expectCleanAfter(workspace, before, dataDir);
  });

  it("diff.external and a textconv driver cannot put text into diff_contains", async () => {
    const workspace = makeRepo(PROJECT);
    const baseline = head(workspace);
    const marker = markerPath();
    git(workspace, "config", "diff.external", spy(marker, "+the text the check wants"));
    git(workspace, "config", "diff.lie.textconv", spy(marker, "the text the check wants"));
    writeFileSync(join(workspace, ".git/info/attributes"), "* diff=lie\n");
    write(workspace, "notes.txt", "something else entirely\n");

    const before = snapshot(workspace);
    const summary = notPass(
      await gitCheck(workspace, baseline, { assert: "diff_contains", text: "the text the check wants" }),
    );
    expect(summary).toContain("do not contain");
    expect(existsSync(marker)).toBe(false);
    expect(snapshot(workspace)).toEqual(before);
  });
});

describe("the learner's index and .git/info", () => {
  for (const flag of ["--assume-unchanged", "--skip-worktree"]) {
    it(`git update-index ${flag} hides an edit neither from clean_tree nor from the fingerprint`, async () => {
      const workspace = makeRepo(PROJECT);
      const baseline = head(workspace);
      const original = await agreedFingerprint(workspace);
      write(workspace, "notes.txt", "hidden edit\n");
      git(workspace, "update-index", flag, "notes.txt");
      expect(git(workspace, "status", "--porcelain")).toBe("");

      const before = snapshot(workspace);
      const summary = notPass(await gitCheck(workspace, baseline, { assert: "clean_tree" }));
      expect(summary).toContain(" M notes.txt");
      expect(await agreedFingerprint(workspace)).not.toBe(original);
      expect(snapshot(workspace)).toEqual(before);
    });
  }

  it("an intent-to-add entry (git add -N) is read as the new file it is", async () => {
    const workspace = makeRepo(PROJECT);
    const baseline = head(workspace);
    write(workspace, "new.txt", "brand new content\n");
    git(workspace, "add", "-N", "new.txt");

    const before = snapshot(workspace);
    expect(notPass(await gitCheck(workspace, baseline, { assert: "clean_tree" }))).toContain("?? new.txt");
    const diff = await gitCheck(workspace, baseline, { assert: "diff_contains", text: "+brand new content" });
    expect(diff.status, diff.evidence.summary).toBe("pass");
    expect(snapshot(workspace)).toEqual(before);
  });

  it("core.checkStat=minimal and core.trustctime=false with a same-size, same-mtime edit: the edit is seen", async () => {
    const workspace = makeRepo(PROJECT);
    const baseline = head(workspace);
    const file = join(workspace, "notes.txt");
    // An mtime well before the index's, so git takes its stat data as settled (not racy).
    const past = new Date(Date.now() - 60_000);
    utimesSync(file, past, past);
    git(workspace, "update-index", "--refresh");
    const original = await agreedFingerprint(workspace);
    git(workspace, "config", "core.checkStat", "minimal");
    git(workspace, "config", "core.trustctime", "false");
    writeFileSync(file, "FIRST LINE\n");
    utimesSync(file, past, past);
    // The learner's own index now vouches for the edited file.
    git(workspace, "update-index", "--refresh");
    expect(git(workspace, "status", "--porcelain")).toBe("");

    const before = snapshot(workspace);
    expect(notPass(await gitCheck(workspace, baseline, { assert: "clean_tree" }))).toContain("notes.txt");
    expect(await agreedFingerprint(workspace)).not.toBe(original);
    expect(snapshot(workspace)).toEqual(before);
  });

  it(".git/info/exclude and core.excludesFile do not hide an untracked file from clean_tree", async () => {
    const workspace = makeRepo(PROJECT);
    const baseline = head(workspace);
    write(workspace, "secret.txt", "left behind\n");
    write(workspace, "other.txt", "left behind too\n");
    writeFileSync(join(workspace, ".git/info/exclude"), "secret.txt\n");
    const excludes = join(makeWorkspace(), "ignore");
    writeFileSync(excludes, "other.txt\n");
    git(workspace, "config", "core.excludesFile", excludes);
    expect(git(workspace, "status", "--porcelain")).toBe("");

    const before = snapshot(workspace);
    const summary = notPass(await gitCheck(workspace, baseline, { assert: "clean_tree" }));
    expect(summary).toContain("?? secret.txt");
    expect(summary).toContain("?? other.txt");
    expect(snapshot(workspace)).toEqual(before);
  });
});

describe("redirection", () => {
  it("core.worktree pointing at a clean copy: the workspace itself is read", async () => {
    const workspace = makeRepo(PROJECT);
    const baseline = head(workspace);
    const clean = makeWorkspace(PROJECT);
    git(workspace, "config", "core.worktree", clean);
    write(workspace, "notes.txt", "dirty here\n");
    expect(git(workspace, "status", "--porcelain")).toBe("");

    const before = snapshot(workspace);
    expect(notPass(await gitCheck(workspace, baseline, { assert: "clean_tree" }))).toContain("notes.txt");
    expect(snapshot(workspace)).toEqual(before);
  });

  it("GIT_DIR, GIT_INDEX_FILE and GIT_OBJECT_DIRECTORY in pi-quests' environment do not point git elsewhere", async () => {
    const workspace = makeRepo(PROJECT);
    const baseline = head(workspace);
    const decoy = makeRepo({ ...PROJECT, "decoy.txt": "another history\n" });
    write(workspace, "notes.txt", "dirty here\n");
    const names = ["GIT_DIR", "GIT_INDEX_FILE", "GIT_OBJECT_DIRECTORY"] as const;
    const saved = Object.fromEntries(names.map((name) => [name, process.env[name]]));
    process.env.GIT_DIR = join(decoy, ".git");
    process.env.GIT_INDEX_FILE = join(decoy, ".git/index");
    process.env.GIT_OBJECT_DIRECTORY = join(decoy, ".git/objects");
    try {
      const before = snapshot(workspace);
      expect(notPass(await gitCheck(workspace, baseline, { assert: "clean_tree" }))).toContain("notes.txt");
      const count = await gitCheck(workspace, baseline, { assert: "commit_count", count: 0 });
      expect(count.status, count.evidence.summary).toBe("pass");
      expect(snapshot(workspace)).toEqual(before);
    } finally {
      for (const [name, value] of Object.entries(saved)) {
        if (value === undefined) delete process.env[name];
        else process.env[name] = value;
      }
    }
  });
});

describe("the honest solution", () => {
  it("a committed fix: clean_tree, commit_count and diff_contains pass, and the verifier is green", async () => {
    const workspace = makeRepo(PROJECT);
    const baseline = head(workspace);
    const { verifier, dataDir } = await verifierFor(workspace, { pin: [request(workspace, "npm test")] });
    write(workspace, "src/add.js", FIXED_ADD);
    git(workspace, "commit", "-qam", "fix add");

    const before = snapshot(workspace);
    for (const fields of [
      { assert: "clean_tree" },
      { assert: "commit_count", count: 1 },
      { assert: "diff_contains", text: "a + b", path: "src/add.js" },
      { assert: "file_restored", path: "test/add.test.js" },
    ]) {
      const result = await gitCheck(workspace, baseline, fields);
      expect(result.status, result.evidence.summary).toBe("pass");
    }
    const done = finished(await verifier.run(request(workspace, "npm test")));
    expect(done.passed, done.report).toBe(true);
    expectCleanAfter(workspace, before, dataDir);
  });
});
