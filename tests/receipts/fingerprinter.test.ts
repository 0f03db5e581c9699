/**
 * The stat recheck (src/receipts/fingerprinter.ts, fingerprint/stat-record.ts) with real git and
 * real files. After a first fingerprint, each kind of change is still seen: the next answer is
 * the value a full fingerprint gives now, and never the recorded one answered by stat. Each
 * workspace is written, then left alone past the racy window once, so that its first fingerprint
 * leaves a record and only the comparison can catch the change.
 */
import { execFileSync } from "node:child_process";
import {
  chmodSync,
  mkdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { fullFingerprint, recordableFileSystem } from "../../src/receipts/fingerprint.ts";
import { createFingerprinter, type Fingerprinter } from "../../src/receipts/fingerprinter.ts";
import { applyEdits, buildRepo, random } from "../support/random-repo.ts";
import { NARROW, pastRacyWindow, valueIn } from "../support/stat-record.ts";
import { commitAll, git, makeWorkspace, removeWorkspaces } from "../support/workspace.ts";

afterAll(removeWorkspaces);

const FILES = {
  "README.md": "# hello\n",
  "src/a.js": "export const a = 1;\n",
  "src/b.js": "export const b = 2;\n",
  "src/run.sh": "echo run\n",
  ".gitignore": "*.log\n",
  "logs/debug.log": "only ignored files here\n",
};

/** A committed workspace of FILES, with an empty folder and a link, and an untracked file. */
function workspace(): string {
  const dir = makeWorkspace(FILES);
  mkdirSync(join(dir, "empty"));
  symlinkSync("src/a.js", join(dir, "link"));
  commitAll(dir);
  writeFileSync(join(dir, "notes.txt"), "untracked\n");
  return dir;
}

/** Sets `path`'s mtime to exactly `mtimeNs` (touch takes nanoseconds; utimes in Node does not). */
function setMtimeNs(path: string, mtimeNs: bigint): void {
  const seconds = mtimeNs / 1_000_000_000n;
  const nanoseconds = (mtimeNs % 1_000_000_000n).toString().padStart(9, "0");
  execFileSync("touch", ["-h", "-m", "-d", `@${seconds}.${nanoseconds}`, path]);
}

/** Rewrites `path` with other bytes of the same size and sets its mtime back exactly: only ctime tells. */
function rewriteInPlace(path: string, content: string): void {
  const before = statSync(path, { bigint: true });
  writeFileSync(path, content);
  setMtimeNs(path, before.mtimeNs);
  const after = statSync(path, { bigint: true });
  // The change hides from everything lstat reports but ctime.
  expect([after.ino, after.size, after.mtimeNs, after.mode]).toEqual([
    before.ino,
    before.size,
    before.mtimeNs,
    before.mode,
  ]);
  expect(after.ctimeNs).not.toBe(before.ctimeNs);
}

type Case = {
  /** What is done to the workspace before it is left alone and fingerprinted. */
  prepare?: (dir: string) => void;
  /** What is done to the workspace after its first fingerprint. */
  change: (dir: string) => void;
  /** Whether the change changes the fingerprint (an ignore rule git does not read does not). */
  changesValue: boolean;
  /** Not a file the fingerprint rests on: lstat may answer, with the same value. */
  unwatched?: true;
  /** The workspace fingerprinted: a folder below the repository's top, or the top. */
  below?: string;
};

const CASES: Record<string, Case> = {
  "a same-size rewrite within the same second, its mtime set back to the nanosecond": {
    change: (dir) => rewriteInPlace(join(dir, "src/a.js"), "export const a = 9;\n"),
    changesValue: true,
  },
  "a rewrite back-dated with `touch -d`": {
    change: (dir) => {
      writeFileSync(join(dir, "src/b.js"), "export const b = 3; // edited\n");
      execFileSync("touch", ["-d", "2001-01-01 00:00:00", join(dir, "src/b.js")]);
    },
    changesValue: true,
  },
  "a new untracked file in an old folder": {
    change: (dir) => writeFileSync(join(dir, "src/c.js"), "export const c = 3;\n"),
    changesValue: true,
  },
  "a new folder with a file": {
    change: (dir) => {
      mkdirSync(join(dir, "src/new"));
      writeFileSync(join(dir, "src/new/d.js"), "export const d = 4;\n");
    },
    changesValue: true,
  },
  "a new file in a folder that held only ignored files": {
    change: (dir) => writeFileSync(join(dir, "logs/kept.txt"), "not ignored\n"),
    changesValue: true,
  },
  "a new file in an empty folder": {
    change: (dir) => writeFileSync(join(dir, "empty/e.txt"), "in the empty folder\n"),
    changesValue: true,
  },
  "a deleted file": {
    change: (dir) => rmSync(join(dir, "src/b.js")),
    changesValue: true,
  },
  "a link re-pointed to a target of the same length": {
    change: (dir) => {
      rmSync(join(dir, "link"));
      symlinkSync("src/b.js", join(dir, "link"));
    },
    changesValue: true,
  },
  "a mode change (chmod +x)": {
    change: (dir) => chmodSync(join(dir, "src/run.sh"), 0o755),
    changesValue: true,
  },
  "a .gitignore edit of the same size, its mtime set back": {
    change: (dir) => rewriteInPlace(join(dir, ".gitignore"), "*.lox\n"),
    changesValue: true,
  },
  "a .git/info/exclude edit (an ignore rule the fingerprint does not read)": {
    change: (dir) => writeFileSync(join(dir, ".git/info/exclude"), "src/a.js\nnotes.txt\n", { flag: "a" }),
    changesValue: false,
  },
  "core.ignoreCase set in .git/config (a .gitignore rule then matches another name)": {
    prepare: (dir) => {
      writeFileSync(join(dir, ".gitignore"), "*.log\nNOTES.TXT\n");
      git(dir, "commit", "-q", "-am", "ignore NOTES.TXT");
    },
    change: (dir) => git(dir, "config", "core.ignoreCase", "true"),
    changesValue: true,
  },
  "`git add` of an ignored file (only the learner's index changes)": {
    change: (dir) => git(dir, "add", "-f", "logs/debug.log"),
    changesValue: false,
    unwatched: true,
  },
  "a commit of an ignored file (HEAD moves)": {
    change: (dir) => {
      git(dir, "add", "-f", "logs/debug.log");
      git(dir, "commit", "-q", "-m", "track the log");
    },
    changesValue: true,
  },
  "a nested repository's .git file pointed at a folder made a repository (its files leave the listing)": {
    prepare: (dir) => {
      mkdirSync(join(dir, "sub"));
      writeFileSync(join(dir, "sub/fix.js"), "export const fix = 1;\n");
      writeFileSync(join(dir, "sub/.git"), `gitdir: ${join(makeWorkspace(), "elsewhere")}\n`);
    },
    change: (dir) => {
      const gitdir = readFileSync(join(dir, "sub/.git"), "utf8").slice("gitdir: ".length).trim();
      execFileSync("git", ["init", "-q", "--bare", gitdir]);
    },
    changesValue: true,
  },
  "a nested repository's HEAD moved away inside its .git folder (its files join the listing)": {
    prepare: (dir) => {
      mkdirSync(join(dir, "sub"));
      writeFileSync(join(dir, "sub/fix.js"), "export const fix = 1;\n");
      execFileSync("git", ["init", "-q", join(dir, "sub")]);
    },
    change: (dir) => renameSync(join(dir, "sub/.git/HEAD"), join(dir, "sub/.git/HEAD.away")),
    changesValue: true,
  },
  "a .gitignore edit above a workspace below the repository's top": {
    change: (dir) => writeFileSync(join(dir, ".gitignore"), "*.lox\n"),
    changesValue: true,
    below: "logs",
  },
};

/** Records need a file system whose ctime the kernel keeps (stat-record.ts); /tmp is one here. */
const recordable = recordableFileSystem(tmpdir());

describe.skipIf(!recordable)("after a first fingerprint, each kind of change is still seen", () => {
  const prepared = new Map<
    string,
    { dir: string; target: string; fingerprinter: Fingerprinter; first: string }
  >();
  let unchanged: { target: string; fingerprinter: Fingerprinter; first: string };
  let oldish: string;

  beforeAll(async () => {
    const dirs = new Map(
      Object.entries(CASES).map(([name, { prepare }]) => {
        const dir = workspace();
        prepare?.(dir);
        return [name, dir];
      }),
    );
    const still = workspace();
    oldish = workspace();
    await pastRacyWindow();
    for (const [name, { below }] of Object.entries(CASES)) {
      const dir = dirs.get(name) as string;
      const target = below ? join(dir, below) : dir;
      const fingerprinter = createFingerprinter(NARROW);
      prepared.set(name, { dir, target, fingerprinter, first: valueIn(await fingerprinter(target)) });
    }
    const fingerprinter = createFingerprinter(NARROW);
    unchanged = { target: still, fingerprinter, first: valueIn(await fingerprinter(still)) };
  }, 60_000);

  it("unchanged: the next answers are lstat's, with the full path's value", async () => {
    for (let i = 0; i < 2; i++) {
      const again = await unchanged.fingerprinter(unchanged.target);
      expect(again.ok && again.path).toBe("stat");
      expect(valueIn(again)).toBe(unchanged.first);
    }
    expect(valueIn(await fullFingerprint(unchanged.target))).toBe(unchanged.first);
  });

  it("with the default racy window, files this old are not vouched for: a mapped page may still be dirty", async () => {
    const fingerprinter = createFingerprinter();
    const first = await fingerprinter(oldish);
    const again = await fingerprinter(oldish);
    expect(again.ok && again.path).not.toBe("stat");
    expect(valueIn(again)).toBe(valueIn(first));
    // The narrowed window accepts them: only the writeback delay refused them.
    const narrowed = createFingerprinter(NARROW);
    await narrowed(oldish);
    const narrowedAgain = await narrowed(oldish);
    expect(narrowedAgain.ok && narrowedAgain.path).toBe("stat");
  });

  it.each(Object.keys(CASES))("%s", async (name) => {
    const { dir, target, fingerprinter, first } = prepared.get(name) as NonNullable<
      ReturnType<typeof prepared.get>
    >;
    const { change, changesValue, unwatched } = CASES[name] as Case;
    change(dir);
    const again = await fingerprinter(target);
    const truth = valueIn(await fullFingerprint(target));
    if (!unwatched) expect(again.ok && again.path).not.toBe("stat");
    expect(valueIn(again)).toBe(truth);
    if (changesValue) expect(truth).not.toBe(first);
    else expect(truth).toBe(first);
  });
});

describe("what is never answered by stat", () => {
  it("a file changed within the racy window before the scan: the next fingerprint looks again in full", async () => {
    const dir = workspace();
    const fingerprinter = createFingerprinter(NARROW);
    const first = await fingerprinter(dir);
    const again = await fingerprinter(dir);
    expect(again.ok && again.path).not.toBe("stat");
    expect(valueIn(again)).toBe(valueIn(first));
  });

  it("a linked worktree, a config that includes another file, a folder outside git: no record", async () => {
    const main = workspace();
    const linked = join(makeWorkspace(), "linked");
    git(main, "worktree", "add", "-q", "--detach", linked);
    const including = workspace();
    git(including, "config", "include.path", join(makeWorkspace(), "more.config"));
    const plain = makeWorkspace(FILES);
    await pastRacyWindow();
    for (const dir of [linked, including, plain]) {
      const fingerprinter = createFingerprinter(NARROW);
      const first = await fingerprinter(dir);
      const again = await fingerprinter(dir);
      expect(again.ok && again.path, dir).not.toBe("stat");
      expect(valueIn(again)).toBe(valueIn(first));
    }
  });
});

describe.skipIf(!recordable)(
  "on random repositories after random edits, the answer is the full path's value",
  () => {
    const seeds = Array.from({ length: 30 }, (_, i) => i + 1);
    const repos = new Map<number, { dir: string; outside: string; fingerprinter: Fingerprinter }>();

    beforeAll(async () => {
      for (const seed of seeds) {
        const outside = makeWorkspace({ "b.txt": "outside\n" });
        repos.set(seed, {
          dir: buildRepo(random(seed), outside),
          outside,
          fingerprinter: createFingerprinter(NARROW),
        });
      }
      await pastRacyWindow();
      for (const { dir, fingerprinter } of repos.values()) await fingerprinter(dir);
    }, 120_000);

    it.each(seeds)("seed %i", async (seed) => {
      const { dir, outside, fingerprinter } = repos.get(seed) as NonNullable<ReturnType<typeof repos.get>>;
      // Another stream than buildRepo's, so that the edits do not replay its choices.
      const edits = applyEdits(dir, random(seed + 1000), outside);
      const again = await fingerprinter(dir);
      const truth = await fullFingerprint(dir);
      expect(again.ok && again.fingerprint, `seed ${seed}, after ${edits.join(", ")}`).toEqual(
        truth.ok && truth.fingerprint,
      );
    });
  },
);

/**
 * A workspace whose files were all just written (a learner's sandbox when its quest starts): its
 * first looks are within the racy window and leave no record. The first look past the window
 * renews it (git's rule for racily clean entries: look at the content again, then record), once;
 * the looks after it answer by lstat. A file changed meanwhile is never vouched for by a record
 * made while its own timestamps are within the window.
 */
describe.skipIf(!recordable)("files written just before the first look", () => {
  it("no record while they are young; the first look past the window renews it, and the next looks answer by lstat", async () => {
    const dir = workspace();
    const fingerprinter = createFingerprinter(NARROW);
    const young = [await fingerprinter(dir), await fingerprinter(dir)];
    expect(young.map((look) => look.ok && look.path)).toEqual(["fast", "fast"]);
    await pastRacyWindow();
    const renewal = await fingerprinter(dir);
    expect(renewal.ok && renewal.path).toBe("fast");
    const after = [await fingerprinter(dir), await fingerprinter(dir)];
    expect(after.map((look) => look.ok && look.path)).toEqual(["stat", "stat"]);
    const truth = valueIn(await fullFingerprint(dir));
    for (const look of [...young, renewal, ...after]) expect(valueIn(look)).toBe(truth);
  });

  it("a file changed in the window is seen, and recorded only once it is old too; an edit after the renewal is seen", async () => {
    const dir = workspace();
    const fingerprinter = createFingerprinter(NARROW);
    const first = valueIn(await fingerprinter(dir));
    await pastRacyWindow();
    // The other files are now past the window; this one changes in it, its mtime put back.
    rewriteInPlace(join(dir, "src/a.js"), "export const a = 7;\n");
    const changed = valueIn(await fullFingerprint(dir));
    expect(changed).not.toBe(first);
    for (let i = 0; i < 2; i++) {
      const look = await fingerprinter(dir);
      expect(look.ok && look.path).not.toBe("stat");
      expect(valueIn(look)).toBe(changed);
    }
    await pastRacyWindow();
    const renewal = await fingerprinter(dir);
    expect([renewal.ok && renewal.path, valueIn(renewal)]).toEqual(["fast", changed]);
    const answered = await fingerprinter(dir);
    expect([answered.ok && answered.path, valueIn(answered)]).toEqual(["stat", changed]);

    rewriteInPlace(join(dir, "src/b.js"), "export const b = 8;\n");
    const edited = await fingerprinter(dir);
    expect(edited.ok && edited.path).not.toBe("stat");
    expect(valueIn(edited)).toBe(valueIn(await fullFingerprint(dir)));
    expect(valueIn(edited)).not.toBe(changed);
  });
});
