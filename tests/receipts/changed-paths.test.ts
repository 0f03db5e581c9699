/**
 * What one call changed (src/receipts/changed-paths.ts): a look before, the call's work on real
 * files, a look after, and the paths the event's `changedPaths` lists. Real folders, real git.
 */
import { execFileSync } from "node:child_process";
import {
  chmodSync,
  mkdirSync,
  readdirSync,
  renameSync,
  rmSync,
  symlinkSync,
  unlinkSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { MAX_CHANGED_PATHS } from "../../src/events/bounds.ts";
import {
  type ChangeLookOptions,
  type ChangeLooks,
  createChangeLooks,
} from "../../src/receipts/changed-paths.ts";
import { pastRacyWindow } from "../support/stat-record.ts";
import { commitAll, git, makeWorkspace, removeWorkspaces } from "../support/workspace.ts";

const opened: ChangeLooks[] = [];
afterEach(async () => {
  await Promise.all(opened.splice(0).map((looks) => looks.close()));
  removeWorkspaces();
});

function looksAt(workspace: string, options?: ChangeLookOptions): ChangeLooks {
  const looks = createChangeLooks(workspace, options);
  opened.push(looks);
  return looks;
}

/** The list one call gives: a look, `work`, a look. */
async function changedBy(looks: ChangeLooks, work: () => void) {
  const call = await looks.before();
  if (call === undefined) throw new Error(`no look: ${looks.refusal()}`);
  work();
  return call.after();
}

const listed = (...paths: string[]) => ({ paths, truncated: false });

describe("what one call changed", () => {
  it("lists a created, a deleted and a changed file, sorted as git sorts paths", async () => {
    const workspace = makeWorkspace({ "old.txt": "old\n", "keep.txt": "keep\n", "edit.txt": "aaa\n" });
    const looks = looksAt(workspace);
    expect(
      await changedBy(looks, () => {
        writeFileSync(join(workspace, "new.txt"), "new\n");
        unlinkSync(join(workspace, "old.txt"));
        writeFileSync(join(workspace, "edit.txt"), "bbb\n");
        mkdirSync(join(workspace, "a"));
        writeFileSync(join(workspace, "a/z.txt"), "z\n");
        writeFileSync(join(workspace, "a.txt"), "a\n");
      }),
    ).toEqual(listed("a.txt", "a/z.txt", "edit.txt", "new.txt", "old.txt"));
  });

  it("lists nothing for a call that changed nothing", async () => {
    const workspace = makeWorkspace({ "a.txt": "a\n" });
    expect(await changedBy(looksAt(workspace), () => {})).toEqual(listed());
  });

  it("lists the files of a folder created or removed, and a file that became a folder", async () => {
    const workspace = makeWorkspace({ "gone/one.txt": "1\n", "gone/deep/two.txt": "2\n", "was-file": "x\n" });
    expect(
      await changedBy(looksAt(workspace), () => {
        rmSync(join(workspace, "gone"), { recursive: true });
        mkdirSync(join(workspace, "made/deeper"), { recursive: true });
        writeFileSync(join(workspace, "made/deeper/three.txt"), "3\n");
        unlinkSync(join(workspace, "was-file"));
        mkdirSync(join(workspace, "was-file"));
        writeFileSync(join(workspace, "was-file/inside.txt"), "i\n");
      }),
    ).toEqual(
      listed("gone/deep/two.txt", "gone/one.txt", "made/deeper/three.txt", "was-file", "was-file/inside.txt"),
    );
  });

  it("lists a file whose executable bit changed, not one whose other permission bits did", async () => {
    const workspace = makeWorkspace({ "run.sh": "echo hi\n", "notes.txt": "n\n" });
    expect(
      await changedBy(looksAt(workspace), () => {
        chmodSync(join(workspace, "run.sh"), 0o755);
        chmodSync(join(workspace, "notes.txt"), 0o600);
      }),
    ).toEqual(listed("run.sh"));
  });

  it("lists a renamed file under both names", async () => {
    const workspace = makeWorkspace({ "before.txt": "same\n" });
    expect(
      await changedBy(looksAt(workspace), () =>
        renameSync(join(workspace, "before.txt"), join(workspace, "after.txt")),
      ),
    ).toEqual(listed("after.txt", "before.txt"));
  });
});

describe("a file rewritten with the same bytes", () => {
  it("is not listed when it had just changed before the call (read at the look before)", async () => {
    const workspace = makeWorkspace({ "hello.txt": "hello\n" });
    expect(
      await changedBy(looksAt(workspace), () => writeFileSync(join(workspace, "hello.txt"), "hello\n")),
    ).toEqual(listed());
  });

  it("is listed when its bytes changed but not its size", async () => {
    const workspace = makeWorkspace({ "hello.txt": "hello\n" });
    expect(
      await changedBy(looksAt(workspace), () => writeFileSync(join(workspace, "hello.txt"), "HELLO\n")),
    ).toEqual(listed("hello.txt"));
  });

  it("is not listed long after an earlier call wrote it (its bytes were read after that call)", async () => {
    const workspace = makeWorkspace();
    const looks = looksAt(workspace);
    expect(await changedBy(looks, () => writeFileSync(join(workspace, "hello.txt"), "hello\n"))).toEqual(
      listed("hello.txt"),
    );
    await pastRacyWindow();
    expect(await changedBy(looks, () => writeFileSync(join(workspace, "hello.txt"), "hello\n"))).toEqual(
      listed(),
    );
  });

  it("is listed when pi-quests never read it and it changed long before (what it held is not known)", async () => {
    const workspace = makeWorkspace({ "untouched.txt": "same\n" });
    await pastRacyWindow();
    expect(
      await changedBy(looksAt(workspace), () => writeFileSync(join(workspace, "untouched.txt"), "same\n")),
    ).toEqual(listed("untouched.txt"));
  });
});

describe("symbolic links", () => {
  it("lists a link created, retargeted or removed: its content is its target", async () => {
    const workspace = makeWorkspace({ "a.txt": "a\n", "b.txt": "b\n" });
    symlinkSync("a.txt", join(workspace, "to-a"));
    symlinkSync("a.txt", join(workspace, "moves"));
    symlinkSync("b.txt", join(workspace, "same"));
    expect(
      await changedBy(looksAt(workspace), () => {
        symlinkSync("b.txt", join(workspace, "new-link"));
        unlinkSync(join(workspace, "to-a"));
        unlinkSync(join(workspace, "moves"));
        symlinkSync("b.txt", join(workspace, "moves"));
        // Recreated with the same target: the same content.
        unlinkSync(join(workspace, "same"));
        symlinkSync("b.txt", join(workspace, "same"));
      }),
    ).toEqual(listed("moves", "new-link", "to-a"));
  });

  it("never follows one: a write through a link to a folder is listed under the folder's own path", async () => {
    const workspace = makeWorkspace({ "real/keep.txt": "k\n" });
    const outside = makeWorkspace({ "theirs.txt": "t\n" });
    symlinkSync("real", join(workspace, "alias"));
    symlinkSync(outside, join(workspace, "elsewhere"));
    expect(
      await changedBy(looksAt(workspace), () => {
        writeFileSync(join(workspace, "alias/through-link.txt"), "x\n");
        writeFileSync(join(workspace, "elsewhere/outside.txt"), "o\n");
      }),
    ).toEqual(listed("real/through-link.txt"));
  });
});

describe("what is not a workspace path", () => {
  it("leaves out every change inside .git: a commit changes no path", async () => {
    const workspace = makeWorkspace({ "hello.txt": "hello\n" });
    const looks = looksAt(workspace);
    expect(await changedBy(looks, () => commitAll(workspace))).toEqual(listed());
    expect(
      await changedBy(looks, () => {
        writeFileSync(join(workspace, "hello.txt"), "hello again\n");
        git(workspace, "commit", "-qam", "again");
      }),
    ).toEqual(listed("hello.txt"));
  });

  it("leaves out the generated folders at any depth, as fingerprints do", async () => {
    const workspace = makeWorkspace({ "package.json": "{}\n" });
    expect(
      await changedBy(looksAt(workspace), () => {
        for (const folder of [
          "node_modules/left-pad",
          "dist",
          "build",
          "target",
          ".venv",
          "src/__pycache__",
        ]) {
          mkdirSync(join(workspace, folder), { recursive: true });
          writeFileSync(join(workspace, folder, "out.js"), "x\n");
        }
        writeFileSync(join(workspace, "src/app.py"), "print(1)\n");
      }),
    ).toEqual(listed("src/app.py"));
  });

  it("keeps a file git ignores: a call that creates it changed the workspace", async () => {
    const workspace = makeWorkspace({ ".gitignore": "*.log\n" });
    commitAll(workspace);
    expect(
      await changedBy(looksAt(workspace), () => writeFileSync(join(workspace, "debug.log"), "x\n")),
    ).toEqual(listed("debug.log"));
  });
});

describe("many changes", () => {
  it(`lists the first ${MAX_CHANGED_PATHS} of 10,000 changed files and says the list was cut`, async () => {
    const workspace = makeWorkspace({ "README.md": "r\n" });
    commitAll(workspace);
    const name = (at: number) => `f${String(at).padStart(5, "0")}.txt`;
    const changed = await changedBy(looksAt(workspace), () => {
      for (let at = 0; at < 10_000; at++) writeFileSync(join(workspace, name(at)), `${at}\n`);
    });
    expect(changed).toEqual({
      paths: Array.from({ length: MAX_CHANGED_PATHS }, (_, at) => name(at)),
      truncated: true,
    });
  });

  it("says nothing was cut when exactly the limit changed", async () => {
    const workspace = makeWorkspace();
    const changed = await changedBy(looksAt(workspace, { maxPaths: 3 }), () => {
      for (const file of ["a", "b", "c"]) writeFileSync(join(workspace, file), "x\n");
    });
    expect(changed).toEqual(listed("a", "b", "c"));
  });
});

describe("calls that overlap", () => {
  it("compare with their own look before: both list a change made while both ran", async () => {
    const workspace = makeWorkspace();
    const looks = looksAt(workspace);
    const first = await looks.before();
    const second = await looks.before();
    writeFileSync(join(workspace, "during-both.txt"), "x\n");
    expect(await first?.after()).toEqual(listed("during-both.txt"));
    writeFileSync(join(workspace, "after-first.txt"), "y\n");
    expect(await second?.after()).toEqual(listed("after-first.txt", "during-both.txt"));
  });

  it("are each answered once; a change between two calls is in neither", async () => {
    const workspace = makeWorkspace();
    const looks = looksAt(workspace);
    expect(await changedBy(looks, () => writeFileSync(join(workspace, "by-call.txt"), "x\n"))).toEqual(
      listed("by-call.txt"),
    );
    // The learner's editor, between two calls.
    writeFileSync(join(workspace, "by-editor.txt"), "x\n");
    expect(await changedBy(looks, () => {})).toEqual(listed());
  });
});

describe("a workspace past the look's limits", () => {
  it("gives no list, says why, and is not looked at again", async () => {
    const workspace = makeWorkspace({ "a.txt": "a\n", "b.txt": "b\n", "c/d.txt": "d\n" });
    const looks = looksAt(workspace, { limits: { entries: 3, milliseconds: 2_000 } });
    expect(await looks.before()).toBeUndefined();
    expect(looks.refusal()).toBe("over the entries limit (3)");
    // Even once it is small enough: the cost of a refused look is paid once, not at every call.
    rmSync(join(workspace, "c"), { recursive: true });
    expect(await looks.before()).toBeUndefined();
  });

  it("gives no list for a call whose look after it was refused", async () => {
    const workspace = makeWorkspace({ "a.txt": "a\n" });
    const looks = looksAt(workspace, { limits: { entries: 3, milliseconds: 2_000 } });
    const call = await looks.before();
    for (const file of ["b", "c", "d"]) writeFileSync(join(workspace, file), "x\n");
    expect(await call?.after()).toBeUndefined();
    expect(readdirSync(workspace).sort()).toEqual(["a.txt", "b", "c", "d"]);
  });
});

describe("a real git workspace changed by git itself", () => {
  it("lists what a checkout of another branch changed in the working tree, not in .git", async () => {
    const workspace = makeWorkspace({ "a.txt": "one\n" });
    commitAll(workspace);
    git(workspace, "checkout", "-qb", "other");
    writeFileSync(join(workspace, "a.txt"), "two\n");
    writeFileSync(join(workspace, "b.txt"), "b\n");
    git(workspace, "add", "-A");
    git(workspace, "commit", "-qm", "other");
    expect(
      await changedBy(looksAt(workspace), () =>
        execFileSync("git", ["checkout", "-q", "main"], { cwd: workspace }),
      ),
    ).toEqual(listed("a.txt", "b.txt"));
  });
});
