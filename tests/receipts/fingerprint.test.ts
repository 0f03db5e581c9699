import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import {
  chmodSync,
  existsSync,
  lstatSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  symlinkSync,
  utimesSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import {
  FINGERPRINT_LIMITS,
  type FingerprintOutcome,
  fastFingerprint,
  fingerprint,
  fullFingerprint,
  gitBlobId,
} from "../../src/receipts/fingerprint.ts";
import { applyEdits, buildRepo, isLink, random, write } from "../support/random-repo.ts";
import { valueIn } from "../support/stat-record.ts";
import { commitAll, git, makeWorkspace, removeWorkspaces } from "../support/workspace.ts";

afterEach(removeWorkspaces);

function reasonOf(outcome: FingerprintOutcome): string {
  if (outcome.ok) throw new Error("expected no fingerprint");
  return outcome.reason;
}

/** Both paths, which must agree; returns the value. */
async function bothPaths(dir: string): Promise<string> {
  const [full, fast] = await Promise.all([fullFingerprint(dir), fastFingerprint(dir)]);
  expect(full.ok && full.path).toBe("full");
  expect(fast.ok && fast.path).toBe("fast");
  expect(fast.ok && fast.fingerprint).toEqual(full.ok && full.fingerprint);
  return valueIn(full);
}

function mkfifo(path: string): void {
  execFileSync("mkfifo", [path]);
}

const FILES = {
  "README.md": "# hi\n",
  "src/index.js": "export {};\n",
  "src/lib/util.js": "export const x = 1;\n",
};

describe("what the fingerprint covers", () => {
  it("is the same for the same content in two folders, with or without git", async () => {
    const first = makeWorkspace(FILES);
    const second = makeWorkspace(FILES);
    const plain = makeWorkspace(FILES);
    commitAll(first);
    commitAll(second);
    expect(await bothPaths(first)).toBe(await bothPaths(second));
    const walked = await fingerprint(plain);
    expect(walked.ok && walked.path).toBe("full");
    expect(valueIn(walked)).toBe(await bothPaths(first));
  });

  it("changes with a file's content, name or executable bit, not with its mtime", async () => {
    const dir = makeWorkspace(FILES);
    commitAll(dir);
    const base = await bothPaths(dir);

    const future = new Date(Date.now() + 60_000);
    utimesSync(join(dir, "README.md"), future, future);
    expect(await bothPaths(dir)).toBe(base);

    write(dir, "README.md", "# hi!\n");
    expect(await bothPaths(dir)).not.toBe(base);
    write(dir, "README.md", FILES["README.md"]);
    expect(await bothPaths(dir)).toBe(base);

    renameSync(join(dir, "README.md"), join(dir, "README.txt"));
    expect(await bothPaths(dir)).not.toBe(base);
    renameSync(join(dir, "README.txt"), join(dir, "README.md"));
    expect(await bothPaths(dir)).toBe(base);

    chmodSync(join(dir, "src/index.js"), 0o755);
    const executable = await bothPaths(dir);
    expect(executable).not.toBe(base);
    chmodSync(join(dir, "src/index.js"), 0o644);
    expect(await bothPaths(dir)).toBe(base);
  });

  it("counts uncommitted and untracked content", async () => {
    const dir = makeWorkspace(FILES);
    commitAll(dir);
    const base = await bothPaths(dir);
    write(dir, "notes.txt", "untracked\n");
    const untracked = await bothPaths(dir);
    expect(untracked).not.toBe(base);
    git(dir, "add", "notes.txt");
    expect(await bothPaths(dir)).toBe(untracked);
    rmSync(join(dir, "src/lib/util.js"));
    expect(await bothPaths(dir)).not.toBe(untracked);
  });

  it("leaves out ignored files and generated folders, with git and without", async () => {
    const files = { ...FILES, ".gitignore": "*.log\n!keep.log\n", "src/.gitignore": "*.bak\n" };
    const dir = makeWorkspace(files);
    const plain = makeWorkspace(files);
    commitAll(dir);
    const base = await bothPaths(dir);
    const walked = valueIn(await fullFingerprint(plain));
    expect(walked).toBe(base);
    for (const folder of [dir, plain]) {
      write(folder, "debug.log", "noise");
      write(folder, "src/lib/old.bak", "noise");
      for (const generated of [
        "node_modules/x/index.js",
        "dist/a.js",
        "src/__pycache__/m.pyc",
        ".venv/bin/py",
      ]) {
        write(folder, generated, "noise");
      }
      write(folder, "build", "a file named like a generated folder");
    }
    expect(await bothPaths(dir)).toBe(base);
    expect(valueIn(await fullFingerprint(plain))).toBe(walked);
    // A negated pattern brings a file back.
    write(dir, "keep.log", "kept");
    write(plain, "keep.log", "kept");
    expect(await bothPaths(dir)).not.toBe(base);
    expect(valueIn(await fullFingerprint(plain))).toBe(await bothPaths(dir));
  });

  it("leaves out generated folders even when they are committed", async () => {
    const dir = makeWorkspace({ ...FILES, "node_modules/pkg/index.js": "x", "target/debug/app": "y" });
    const clean = makeWorkspace(FILES);
    commitAll(dir);
    expect(await bothPaths(dir)).toBe(valueIn(await fullFingerprint(clean)));
  });

  it("reads a workspace inside a repository as its own subtree", async () => {
    const dir = makeWorkspace({
      ...FILES,
      "sub/a.txt": "a\n",
      "sub/deep/b.txt": "b\n",
      ".gitignore": "*.tmp\n",
    });
    const alone = makeWorkspace({ "a.txt": "a\n", "deep/b.txt": "b\n", "c.txt": "c\n" });
    commitAll(dir);
    write(dir, "sub/c.txt", "c\n");
    write(dir, "sub/ignored.tmp", "the repository's .gitignore applies\n");
    write(dir, "outside.txt", "not in the subtree\n");
    expect(await bothPaths(join(dir, "sub"))).toBe(valueIn(await fullFingerprint(alone)));
  });
});

describe("links, odd files and git's bookkeeping", () => {
  it("hashes a symbolic link as its target and never follows a link to a folder outside", async () => {
    const outside = makeWorkspace({ "secret.txt": "outside\n", "b.txt": "outside b\n" });
    mkfifo(join(outside, "pipe")); // opening it would hang or refuse the fingerprint
    const dir = makeWorkspace(FILES);
    symlinkSync(outside, join(dir, "out"));
    symlinkSync("src/index.js", join(dir, "index-link.js"));
    commitAll(dir);
    const base = await bothPaths(dir);
    expect(valueIn(await fullFingerprint(makeWorkspace()))).not.toBe(base);

    write(outside, "secret.txt", "changed outside\n");
    expect(await bothPaths(dir)).toBe(base);
    write(dir, "src/index.js", "export const changed = 1;\n");
    const targetChanged = await bothPaths(dir);
    expect(targetChanged).not.toBe(base); // the file changed, not the link
    rmSync(join(dir, "index-link.js"));
    symlinkSync("src/lib/util.js", join(dir, "index-link.js"));
    expect(await bothPaths(dir)).not.toBe(targetChanged);
  });

  it("leaves out tracked files reached through a folder that became a link", async () => {
    const outside = makeWorkspace({ "b.txt": "outside b\n" });
    mkfifo(join(outside, "c.txt"));
    const dir = makeWorkspace({ ...FILES, "a/b.txt": "b\n", "a/c.txt": "c\n" });
    commitAll(dir);
    rmSync(join(dir, "a"), { recursive: true });
    symlinkSync(outside, join(dir, "a"));
    const replaced = makeWorkspace(FILES);
    symlinkSync(outside, join(replaced, "a"));
    expect(await bothPaths(dir)).toBe(valueIn(await fullFingerprint(replaced)));
  });

  it("refuses a fifo in place of a file", async () => {
    const plain = makeWorkspace(FILES);
    mkfifo(join(plain, "pipe"));
    expect(reasonOf(await fullFingerprint(plain))).toMatch(/pipe is not a regular file/);

    const dir = makeWorkspace(FILES);
    commitAll(dir);
    rmSync(join(dir, "README.md"));
    mkfifo(join(dir, "README.md"));
    expect(reasonOf(await fullFingerprint(dir))).toMatch(/README.md is not a regular file/);
    expect(reasonOf(await fastFingerprint(dir))).toMatch(/README.md is not a regular file/);
  });

  it("refuses a file name that is not UTF-8 rather than miss the file", async () => {
    const [repo, plain] = [makeWorkspace(FILES), makeWorkspace(FILES)];
    commitAll(repo);
    for (const dir of [repo, plain]) {
      writeFileSync(Buffer.concat([Buffer.from(dir), Buffer.from([0x2f, 0x62, 0xff])]), "x"); // "/b\xff"
    }
    expect(reasonOf(await fullFingerprint(plain))).toMatch(/not valid UTF-8/);
    for (const outcome of [await fullFingerprint(repo), await fastFingerprint(repo)]) {
      expect(reasonOf(outcome)).toMatch(/not valid UTF-8/);
    }
  });

  it("gives git's blob ids, and git's own listing for a clean repository", async () => {
    const binary = Buffer.from([0, 1, 2, 255, 13, 10, 0]);
    const dir = makeWorkspace({ ...FILES, "empty.txt": "", "data.bin": binary, "crlf.txt": "a\r\nb\r\n" });
    chmodSync(join(dir, "src/index.js"), 0o755);
    symlinkSync("src", join(dir, "link"));
    for (const file of ["README.md", "empty.txt", "data.bin", "crlf.txt"]) {
      const expected = git(dir, "hash-object", "--no-filters", file).trim();
      expect(gitBlobId(readFileSync(join(dir, file)))).toBe(expected);
    }
    commitAll(dir);
    // `git ls-files -s`: `mode blob stage\tpath`, sorted by path bytes like the fingerprint.
    const lines = git(dir, "ls-files", "-s")
      .trim()
      .split("\n")
      .map((line) => {
        const [meta = "", path] = line.split("\t");
        const [mode, blob] = meta.split(" ");
        return `${mode} ${blob} ${path}\n`;
      });
    expect(lines.some((line) => line.startsWith("120000 "))).toBe(true);
    expect(lines.some((line) => line.startsWith("100755 "))).toBe(true);
    const expected = createHash("sha256").update(lines.join("")).digest("hex");
    expect(await bothPaths(dir)).toBe(expected);
  });

  it("writes nothing into the repository", async () => {
    const dir = makeWorkspace(FILES);
    commitAll(dir);
    write(dir, "README.md", "changed\n");
    const snapshot = () =>
      readdirSync(join(dir, ".git"), { recursive: true })
        .map(String)
        .sort()
        .map((name) => `${name} ${lstatSync(join(dir, ".git", name)).mtimeMs}`);
    const before = snapshot();
    await bothPaths(dir);
    expect(snapshot()).toEqual(before);
  });

  it("runs no filter the repository configures, and agrees when git converts line ends", async () => {
    const dir = makeWorkspace({ ...FILES, "a.txt": "one\ntwo\n", "b.dat": "x\n" });
    commitAll(dir);
    const marker = join(dir, "..", `${dir.split("/").at(-1)}-marker`);
    git(dir, "config", "filter.evil.clean", `touch ${marker}; cat`);
    git(dir, "config", "filter.evil.smudge", `touch ${marker}; cat`);
    write(dir, ".gitattributes", "*.dat filter=evil\n*.txt text eol=crlf\n");
    git(dir, "add", ".gitattributes");
    git(dir, "commit", "-q", "-m", "attributes");
    // Check out again so a.txt is written with CRLF while its blob keeps LF.
    rmSync(join(dir, "a.txt"));
    git(dir, "checkout", "--", "a.txt");
    rmSync(marker, { force: true });
    expect(readFileSync(join(dir, "a.txt"), "utf8")).toBe("one\r\ntwo\r\n");
    write(dir, "b.dat", "y\n");
    await bothPaths(dir);
    expect(existsSync(marker)).toBe(false);
  });

  it("sees the executable bit even when the repository tells git to ignore it", async () => {
    const dir = makeWorkspace(FILES);
    commitAll(dir);
    git(dir, "config", "core.fileMode", "false");
    const base = await bothPaths(dir);
    chmodSync(join(dir, "README.md"), 0o755);
    expect(await bothPaths(dir)).not.toBe(base);
  });

  it("compares bytes when the repository sets core.autocrlf: pi-quests' git turns it off", async () => {
    const dir = makeWorkspace({ ...FILES, "crlf.txt": "a\r\nb\r\n" });
    commitAll(dir);
    git(dir, "config", "core.autocrlf", "true");
    const outcome = await fastFingerprint(dir);
    expect(outcome.ok && outcome.path).toBe("fast");
    expect(valueIn(outcome)).toBe(valueIn(await fullFingerprint(dir)));
  });

  it("falls back to the full path without a commit, and without git", async () => {
    const dir = makeWorkspace(FILES);
    git(dir, "init", "-q");
    const unborn = await fastFingerprint(dir);
    expect(unborn.ok && unborn.path).toBe("full");
    expect(valueIn(unborn)).toBe(valueIn(await fullFingerprint(dir)));

    const plain = makeWorkspace(FILES);
    expect(reasonOf(await fastFingerprint(plain))).toMatch(/git/);
    const auto = await fingerprint(plain);
    expect(auto.ok && auto.path).toBe("full");
  });
});

describe("limits", () => {
  const small = { ...FINGERPRINT_LIMITS };

  it.each([
    ["entries", { ...small, entries: 2 }, /entries limit \(2\)/],
    ["bytes", { ...small, bytes: 20 }, /bytes limit \(20\): 36 bytes in 3 files/],
    ["fileBytes", { ...small, fileBytes: 12 }, /fileBytes limit \(12\): src\/lib\/util.js is 20 bytes/],
    ["milliseconds", { ...small, milliseconds: 0 }, /milliseconds limit \(0\)/],
  ])("refuses over the %s limit, on every path", async (_name, limits, reason) => {
    const dir = makeWorkspace(FILES);
    const plain = makeWorkspace(FILES);
    commitAll(dir);
    for (const outcome of [
      await fullFingerprint(dir, limits),
      await fastFingerprint(dir, limits),
      await fingerprint(dir, limits),
      await fullFingerprint(plain, limits),
      await fingerprint(plain, limits),
    ]) {
      expect(reasonOf(outcome)).toMatch(reason);
    }
  });

  it("refuses an unchanged 5 MiB file with the default limits, fast or full", async () => {
    const dir = makeWorkspace({ ...FILES, "big.bin": Buffer.alloc(5 * 1024 * 1024, 7) });
    commitAll(dir);
    for (const outcome of [await fullFingerprint(dir), await fastFingerprint(dir)]) {
      expect(reasonOf(outcome)).toMatch(/fileBytes limit \(4194304\): big.bin is 5242880 bytes/);
    }
  });
});

// ---------------------------------------------------------------------------------------------
// The property: on random repositories after random edits, the fast path gives the full one's value.

/** Fast equals full in the workspace, and in `src` as a workspace of its own when it is one. */
async function expectAgreement(dir: string, context: string): Promise<void> {
  for (const workspace of [dir, join(dir, "src")]) {
    if (!existsSync(workspace) || isLink(workspace)) continue;
    const [full, fast] = await Promise.all([fullFingerprint(workspace), fastFingerprint(workspace)]);
    expect(full.ok, `${context}: ${full.ok || full.reason}`).toBe(true);
    expect(fast.ok && fast.fingerprint, `${context} ${fast.ok || fast.reason}`).toEqual(
      full.ok && full.fingerprint,
    );
  }
}

describe("fast equals full on random repositories", () => {
  const seeds = Array.from({ length: 60 }, (_, i) => i + 1);
  it.each(seeds)("seed %i", async (seed) => {
    const r = random(seed);
    const outside = makeWorkspace({ "b.txt": "outside\n", "inside.txt": "outside\n" });
    mkfifo(join(outside, "pipe"));
    const dir = buildRepo(r, outside);
    await expectAgreement(dir, `seed ${seed}, committed`);
    const first = applyEdits(dir, r, outside);
    await expectAgreement(dir, `seed ${seed}, after ${first.join(", ")}`);
    const second = applyEdits(dir, r, outside);
    await expectAgreement(dir, `seed ${seed}, after ${second.join(", ")} (second round)`);
    git(dir, "add", "-A");
    git(dir, "commit", "-q", "--allow-empty", "-m", "round two");
    await expectAgreement(dir, `seed ${seed}, committed again`);
    const third = applyEdits(dir, r, outside);
    await expectAgreement(dir, `seed ${seed}, after ${third.join(", ")} (third round)`);
  });
});
