import { execFileSync } from "node:child_process";
import {
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  utimesSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { createGitProbe, MAX_DIFF_BYTES } from "../../src/probes/git.ts";

const probe = createGitProbe();
const made: string[] = [];

afterEach(() => {
  for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function tempDir(): string {
  const dir = mkdtempSync(path.join(tmpdir(), "pi-quests-git-"));
  made.push(dir);
  return dir;
}

function git(cwd: string, ...args: string[]): string {
  return execFileSync("git", args, { cwd, encoding: "utf8" });
}

/** `git status` that cannot rewrite the index itself, for looking without touching. */
function quietStatus(cwd: string): string {
  return execFileSync("git", ["status", "--porcelain"], {
    cwd,
    encoding: "utf8",
    env: { ...process.env, GIT_OPTIONAL_LOCKS: "0" },
  });
}

function write(root: string, name: string, content: string | Buffer): void {
  mkdirSync(path.dirname(path.join(root, name)), { recursive: true });
  writeFileSync(path.join(root, name), content);
}

function commitAll(repo: string, message: string): string {
  git(repo, "add", "-A");
  git(repo, "commit", "-q", "-m", message);
  return git(repo, "rev-parse", "HEAD").trim();
}

/** A repository with one commit (notes.txt, .gitignore ignoring *.log); returns its folder and that commit. */
function makeRepo(): { repo: string; baseline: string } {
  const repo = tempDir();
  git(repo, "init", "-q", "-b", "main");
  git(repo, "config", "user.name", "Quest Tester");
  git(repo, "config", "user.email", "tester@example.com");
  git(repo, "config", "commit.gpgsign", "false");
  git(repo, "config", "core.autocrlf", "false");
  write(repo, "notes.txt", "first line\n");
  write(repo, ".gitignore", "*.log\n");
  return { repo, baseline: commitAll(repo, "baseline") };
}

describe("resolveRevision", () => {
  it("gives the full object id of a commit", async () => {
    const { repo, baseline } = makeRepo();
    git(repo, "tag", "start");
    expect(await probe.resolveRevision(repo, "HEAD")).toEqual({ ok: true, value: baseline });
    expect(await probe.resolveRevision(repo, "start")).toEqual({ ok: true, value: baseline });
    expect(await probe.resolveRevision(repo, baseline.slice(0, 8))).toEqual({ ok: true, value: baseline });
    expect(baseline).toMatch(/^[0-9a-f]{40}$/);
  });

  it("says so for an unknown revision", async () => {
    const { repo } = makeRepo();
    const answer = await probe.resolveRevision(repo, "no-such-branch");
    expect(answer).toEqual({
      ok: false,
      message: expect.stringContaining('"no-such-branch" does not name a commit'),
    });
    expect(await probe.resolveRevision(repo, "--all")).toMatchObject({ ok: false });
    expect(await probe.resolveRevision(repo, "")).toMatchObject({ ok: false });
  });

  it("says so outside a repository, in a missing folder, or without git", async () => {
    const plain = tempDir();
    expect(await probe.resolveRevision(plain, "HEAD")).toEqual({
      ok: false,
      message: `${plain} is not inside a git repository.`,
    });
    const gone = path.join(plain, "gone");
    expect(await probe.resolveRevision(gone, "HEAD")).toEqual({
      ok: false,
      message: `The folder ${gone} does not exist.`,
    });
    const { repo } = makeRepo();
    const noGit = createGitProbe({ gitBinary: "/nonexistent/bin/git" });
    expect(await noGit.resolveRevision(repo, "HEAD")).toEqual({
      ok: false,
      message: expect.stringContaining("git could not be started (/nonexistent/bin/git)"),
    });
    expect(await noGit.changedPaths(repo)).toMatchObject({ ok: false });
  });
});

describe("countCommitsSince", () => {
  it("counts the commits after the baseline", async () => {
    const { repo, baseline } = makeRepo();
    expect(await probe.countCommitsSince(repo, baseline)).toEqual({ ok: true, value: 0 });
    write(repo, "one.txt", "1\n");
    commitAll(repo, "one");
    write(repo, "two.txt", "2\n");
    commitAll(repo, "two");
    expect(await probe.countCommitsSince(repo, baseline)).toEqual({ ok: true, value: 2 });
  });

  it("counts the commits after the baseline on a branch, wherever HEAD is", async () => {
    const { repo, baseline } = makeRepo();
    git(repo, "switch", "-q", "-c", "feature/x");
    write(repo, "one.txt", "1\n");
    commitAll(repo, "one");
    write(repo, "two.txt", "2\n");
    commitAll(repo, "two");
    git(repo, "switch", "-q", "-");
    expect(await probe.countCommitsSince(repo, baseline)).toEqual({ ok: true, value: 0 });
    expect(await probe.countCommitsSince(repo, baseline, "feature/x")).toEqual({ ok: true, value: 2 });
    // "feature" is only a prefix of a branch: no such branch.
    expect(await probe.countCommitsSince(repo, baseline, "feature")).toEqual({
      ok: true,
      value: "missing_branch",
    });
    expect(await probe.countCommitsSince(repo, baseline, "-x")).toMatchObject({ ok: false });
  });

  it("fails on an unknown baseline or outside a repository", async () => {
    const { repo } = makeRepo();
    expect(await probe.countCommitsSince(repo, "deadbeef")).toMatchObject({ ok: false });
    expect(await probe.countCommitsSince(tempDir(), "HEAD")).toMatchObject({
      ok: false,
      message: expect.stringContaining("not inside a git repository"),
    });
  });
});

describe("committedSince", () => {
  it("says whether HEAD holds a path that a commit since the baseline added or changed", async () => {
    const { repo, baseline } = makeRepo();
    write(repo, "hello.txt", "hello\n");
    expect(await probe.committedSince(repo, baseline, "hello.txt")).toEqual({
      ok: true,
      value: "not_in_head",
    });
    git(repo, "add", "hello.txt");
    // Staged is not committed.
    expect(await probe.committedSince(repo, baseline, "hello.txt")).toEqual({
      ok: true,
      value: "not_in_head",
    });
    git(repo, "commit", "-qm", "hello");
    expect(await probe.committedSince(repo, baseline, "hello.txt")).toEqual({ ok: true, value: "committed" });
    // An uncommitted change after the commit leaves it committed; another file is unrelated.
    write(repo, "hello.txt", "hello again\n");
    write(repo, ".DS_Store", "x");
    expect(await probe.committedSince(repo, baseline, "hello.txt")).toEqual({ ok: true, value: "committed" });
    expect(await probe.committedSince(repo, "HEAD", "hello.txt")).toEqual({ ok: true, value: "unchanged" });
  });

  it("refuses a path out of the workspace", async () => {
    const { repo, baseline } = makeRepo();
    expect(await probe.committedSince(repo, baseline, "../x")).toMatchObject({ ok: false });
  });
});

describe("changedPaths", () => {
  it("lists modified, staged and untracked files, not ignored ones", async () => {
    const { repo } = makeRepo();
    expect(await probe.changedPaths(repo)).toEqual({ ok: true, value: [] });
    write(repo, "notes.txt", "first line\nsecond line\n");
    write(repo, "deep/folder/new.txt", "new\n");
    write(repo, "staged.txt", "staged\n");
    git(repo, "add", "staged.txt");
    write(repo, "debug.log", "ignored\n");
    const answer = await probe.changedPaths(repo);
    // Compared with HEAD through pi-quests' own index: a staged new file reads as new on disk.
    expect(answer.ok && [...answer.value].sort()).toEqual([
      " M notes.txt",
      "?? deep/folder/new.txt",
      "?? staged.txt",
    ]);
  });

  it("fails outside a repository", async () => {
    expect(await probe.changedPaths(tempDir())).toMatchObject({ ok: false });
  });
});

describe("branchExists", () => {
  it("answers for exact local branch names only", async () => {
    const { repo } = makeRepo();
    git(repo, "branch", "feature/login");
    git(repo, "tag", "v1");
    expect(await probe.branchExists(repo, "main")).toEqual({ ok: true, value: true });
    expect(await probe.branchExists(repo, "feature/login")).toEqual({ ok: true, value: true });
    expect(await probe.branchExists(repo, "feature")).toEqual({ ok: true, value: false });
    expect(await probe.branchExists(repo, "v1")).toEqual({ ok: true, value: false });
    expect(await probe.branchExists(repo, "nope")).toEqual({ ok: true, value: false });
  });

  it("fails outside a repository or for an empty name", async () => {
    const { repo } = makeRepo();
    expect(await probe.branchExists(tempDir(), "main")).toMatchObject({ ok: false });
    expect(await probe.branchExists(repo, "")).toMatchObject({ ok: false });
  });
});

describe("currentBranch", () => {
  it("is the branch HEAD is on, a name with slashes too, and null when HEAD is detached", async () => {
    const { repo } = makeRepo();
    expect(await probe.currentBranch(repo)).toEqual({ ok: true, value: "main" });
    git(repo, "switch", "-q", "-c", "feature/due-dates");
    expect(await probe.currentBranch(repo)).toEqual({ ok: true, value: "feature/due-dates" });
    git(repo, "switch", "-q", "--detach");
    expect(await probe.currentBranch(repo)).toEqual({ ok: true, value: null });
  });

  it("fails outside a repository", async () => {
    expect(await probe.currentBranch(tempDir())).toMatchObject({ ok: false });
  });
});

describe("diffSince", () => {
  /** Baseline, then a commit, an uncommitted edit, untracked files and an ignored one. */
  function changedRepo(): { repo: string; baseline: string } {
    const made = makeRepo();
    write(made.repo, "src/app.ts", "export const committed = 1;\n");
    commitAll(made.repo, "app");
    write(made.repo, "notes.txt", "first line\nuncommitted line\n");
    write(made.repo, "src/extra/helper.ts", "untracked helper\nno newline at end");
    write(made.repo, "todo.md", "untracked todo\n");
    write(made.repo, "secret.log", "ignored text\n");
    return made;
  }

  it("shows committed, uncommitted and untracked changes, not ignored files", async () => {
    const { repo, baseline } = changedRepo();
    const answer = await probe.diffSince(repo, baseline);
    if (!answer.ok) throw new Error(answer.message);
    expect(answer.value).toContain("+export const committed = 1;");
    expect(answer.value).toContain("+uncommitted line");
    expect(answer.value).toContain(
      "diff --git a/src/extra/helper.ts b/src/extra/helper.ts\nnew file mode 100644\n",
    );
    expect(answer.value).toContain(
      "@@ -0,0 +1,2 @@\n+untracked helper\n+no newline at end\n\\ No newline at end of file\n",
    );
    expect(answer.value).toContain("+++ b/todo.md\n@@ -0,0 +1 @@\n+untracked todo\n");
    expect(answer.value).not.toContain("ignored text");
    expect(answer.value).not.toContain("truncated");
  });

  it("is empty when nothing changed", async () => {
    const { repo, baseline } = makeRepo();
    expect(await probe.diffSince(repo, baseline)).toEqual({ ok: true, value: "" });
  });

  it("limits the diff to a file or a folder", async () => {
    const { repo, baseline } = changedRepo();
    const folder = await probe.diffSince(repo, baseline, "src/");
    if (!folder.ok) throw new Error(folder.message);
    expect(folder.value).toContain("+export const committed = 1;");
    expect(folder.value).toContain("+untracked helper");
    expect(folder.value).not.toContain("uncommitted line");
    expect(folder.value).not.toContain("untracked todo");

    const file = await probe.diffSince(repo, baseline, "./notes.txt");
    if (!file.ok) throw new Error(file.message);
    expect(file.value).toContain("+uncommitted line");
    expect(file.value).not.toContain("committed = 1");
    expect(file.value).not.toContain("untracked");
  });

  it("takes paths relative to a subfolder cwd and shows binary files as binary", async () => {
    const { repo, baseline } = changedRepo();
    write(repo, "src/logo.bin", Buffer.from([0x89, 0x50, 0x00, 0x01]));
    const answer = await probe.diffSince(path.join(repo, "src"), baseline, "extra");
    if (!answer.ok) throw new Error(answer.message);
    expect(answer.value).toContain("+++ b/src/extra/helper.ts");
    expect(answer.value).not.toContain("committed = 1");
    const binary = await probe.diffSince(path.join(repo, "src"), baseline, "logo.bin");
    expect(binary).toEqual({
      ok: true,
      value:
        "diff --git a/src/logo.bin b/src/logo.bin\nnew file mode 100644\nBinary files /dev/null and b/src/logo.bin differ\n",
    });
  });

  it("stops at the size limit and says it was truncated", async () => {
    const { repo, baseline } = makeRepo();
    write(repo, "small.txt", "small and shown\n");
    write(repo, "zz-huge.txt", "a line of filler text\n".repeat((MAX_DIFF_BYTES / 22) * 1.2));
    const answer = await probe.diffSince(repo, baseline);
    if (!answer.ok) throw new Error(answer.message);
    expect(answer.value).toContain("+small and shown");
    expect(answer.value).toContain("[diff truncated");
    expect(Buffer.byteLength(answer.value)).toBeLessThan(MAX_DIFF_BYTES + 200);
  });

  it("refuses paths outside the workspace and unknown baselines", async () => {
    const { repo, baseline } = makeRepo();
    expect(await probe.diffSince(repo, baseline, "../elsewhere")).toEqual({
      ok: false,
      message: "../elsewhere leaves the workspace.",
    });
    expect(await probe.diffSince(repo, baseline, "src/../../x")).toMatchObject({ ok: false });
    expect(await probe.diffSince(repo, baseline, "/etc/passwd")).toMatchObject({
      ok: false,
      message: expect.stringContaining("absolute"),
    });
    expect(await probe.diffSince(repo, "unknown-base")).toMatchObject({ ok: false });
    expect(await probe.diffSince(tempDir(), "HEAD")).toMatchObject({ ok: false });
  });
});

describe("compareWithBaseline", () => {
  it("tells same, different, missing_now and missing_in_baseline", async () => {
    const { repo, baseline } = makeRepo();
    write(repo, "gone.txt", "soon gone\n");
    write(repo, "keep/inner.txt", "inner\n");
    const base = commitAll(repo, "more files");
    write(repo, "notes.txt", "first line\nchanged\n");
    rmSync(path.join(repo, "gone.txt"));
    write(repo, "brand-new.txt", "new\n");

    expect(await probe.compareWithBaseline(repo, base, "keep/inner.txt")).toEqual({
      ok: true,
      value: "same",
    });
    expect(await probe.compareWithBaseline(repo, base, "notes.txt")).toEqual({
      ok: true,
      value: "different",
    });
    expect(await probe.compareWithBaseline(repo, base, "gone.txt")).toEqual({
      ok: true,
      value: "missing_now",
    });
    expect(await probe.compareWithBaseline(repo, base, "brand-new.txt")).toEqual({
      ok: true,
      value: "missing_in_baseline",
    });
    expect(await probe.compareWithBaseline(repo, baseline, "gone.txt")).toEqual({
      ok: true,
      value: "missing_in_baseline",
    });
    // Relative to a subfolder cwd, like the other paths.
    expect(await probe.compareWithBaseline(path.join(repo, "keep"), base, "inner.txt")).toEqual({
      ok: true,
      value: "same",
    });
  });

  it("compares the working tree, not the latest commit", async () => {
    const { repo, baseline } = makeRepo();
    write(repo, "notes.txt", "edited and committed\n");
    commitAll(repo, "edit");
    expect(await probe.compareWithBaseline(repo, baseline, "notes.txt")).toEqual({
      ok: true,
      value: "different",
    });
    write(repo, "notes.txt", "first line\n");
    expect(await probe.compareWithBaseline(repo, baseline, "notes.txt")).toEqual({ ok: true, value: "same" });
  });

  it("compares exact bytes: line endings and binary content count", async () => {
    const { repo } = makeRepo();
    const image = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x00, 0x0d, 0x0a, 0xff, 0x00]);
    write(repo, "image.bin", image);
    write(repo, "lf.txt", "one\ntwo\n");
    const base = commitAll(repo, "binary and text");

    expect(await probe.compareWithBaseline(repo, base, "image.bin")).toEqual({ ok: true, value: "same" });
    const flipped = Buffer.from(image);
    flipped[7] = 0xfe;
    write(repo, "image.bin", flipped);
    expect(await probe.compareWithBaseline(repo, base, "image.bin")).toEqual({
      ok: true,
      value: "different",
    });

    write(repo, "lf.txt", "one\r\ntwo\r\n");
    expect(await probe.compareWithBaseline(repo, base, "lf.txt")).toEqual({ ok: true, value: "different" });
    // Same size, one byte apart: the sizes alone cannot tell.
    write(repo, "lf.txt", "one\ntwO\n");
    expect(await probe.compareWithBaseline(repo, base, "lf.txt")).toEqual({ ok: true, value: "different" });
  });

  it("compares a symbolic link by its target, as git stores it", async () => {
    const { repo } = makeRepo();
    symlinkSync("notes.txt", path.join(repo, "link"));
    const base = commitAll(repo, "link");
    expect(await probe.compareWithBaseline(repo, base, "link")).toEqual({ ok: true, value: "same" });
    rmSync(path.join(repo, "link"));
    symlinkSync(".gitignore", path.join(repo, "link"));
    expect(await probe.compareWithBaseline(repo, base, "link")).toEqual({ ok: true, value: "different" });
  });

  it("refuses folders, escapes, absolute paths and unknown baselines", async () => {
    const { repo, baseline } = makeRepo();
    write(repo, "dir/file.txt", "x\n");
    const base = commitAll(repo, "dir");
    expect(await probe.compareWithBaseline(repo, base, "dir")).toEqual({
      ok: false,
      message: "dir is a folder in the baseline, not a file.",
    });
    expect(await probe.compareWithBaseline(repo, base, "../notes.txt")).toMatchObject({ ok: false });
    expect(await probe.compareWithBaseline(repo, base, path.join(repo, "notes.txt"))).toMatchObject({
      ok: false,
    });
    expect(await probe.compareWithBaseline(repo, base, ".")).toMatchObject({ ok: false });
    expect(await probe.compareWithBaseline(repo, "nope", "notes.txt")).toMatchObject({ ok: false });
    expect(await probe.compareWithBaseline(tempDir(), baseline, "notes.txt")).toMatchObject({ ok: false });
  });
});

describe("read-only", () => {
  it("leaves the index, its mtime and the status untouched", async () => {
    const { repo, baseline } = makeRepo();
    write(repo, "same.txt", "unchanged content\n");
    write(repo, "notes.txt", "first line\n");
    commitAll(repo, "second");
    write(repo, "notes.txt", "first line\nmodified\n");
    write(repo, "untracked/new.txt", "untracked\n");
    // Same content, new mtime: the index entry is stale, which tempts git to refresh and rewrite it.
    const later = new Date(Date.now() + 60_000);
    utimesSync(path.join(repo, "same.txt"), later, later);

    const indexPath = path.join(repo, ".git", "index");
    const before = {
      bytes: readFileSync(indexPath),
      mtimeMs: statSync(indexPath).mtimeMs,
      status: quietStatus(repo),
    };

    await probe.resolveRevision(repo, "HEAD");
    await probe.resolveRevision(repo, "unknown");
    await probe.countCommitsSince(repo, baseline);
    await probe.changedPaths(repo);
    await probe.branchExists(repo, "main");
    await probe.branchExists(repo, "missing");
    await probe.diffSince(repo, baseline);
    await probe.diffSince(repo, baseline, "same.txt");
    await probe.compareWithBaseline(repo, baseline, "notes.txt");
    await probe.compareWithBaseline(repo, "HEAD", "same.txt");
    await probe.compareWithBaseline(repo, baseline, "untracked/new.txt");

    expect(readFileSync(indexPath).equals(before.bytes)).toBe(true);
    expect(statSync(indexPath).mtimeMs).toBe(before.mtimeMs);
    expect(quietStatus(repo)).toBe(before.status);
    expect(before.status).toContain(" M notes.txt");
    expect(before.status).toContain("?? untracked/");

    // Control: an ordinary `git status` does rewrite this index, so the checks above could fail.
    git(repo, "status", "--porcelain");
    expect(readFileSync(indexPath).equals(before.bytes)).toBe(false);
  });
});
