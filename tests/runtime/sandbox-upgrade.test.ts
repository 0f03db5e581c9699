/**
 * The sandbox upgrade (src/runtime/sandbox-upgrade.ts), with real git: a folder set up from one
 * template gets another's files on top, in one commit of pi-quests' own, or, when any rule
 * refuses, stays byte for byte as it was (its .git included) and gets today's "not empty".
 */
import { execFileSync } from "node:child_process";
import { lstatSync, mkdirSync, readdirSync, readFileSync, readlinkSync, writeFileSync } from "node:fs";
import { join, relative } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { prepareSandbox, type SandboxOutcome } from "../../src/runtime/sandbox.ts";
import { gitIn, isolatedGitEnv, LEARNER_IDENTITY } from "../support/isolated-git.ts";
import { makeWorkspace, removeWorkspaces } from "../support/workspace.ts";

afterEach(removeWorkspaces);

const PACK = join(import.meta.dirname, "../../fixtures/packs/sandbox-upgrade/sandboxes");
const OLD = join(PACK, "old");
const NEW = join(PACK, "new");

/** Every entry under `dir`, .git included, as its kind, mode and bytes. */
function snapshot(dir: string): Record<string, string> {
  const entries: Record<string, string> = {};
  const walk = (folder: string) => {
    for (const name of readdirSync(folder)) {
      const path = join(folder, name);
      const info = lstatSync(path);
      const key = relative(dir, path);
      if (info.isDirectory()) {
        entries[key] = `dir ${info.mode}`;
        walk(path);
      } else if (info.isSymbolicLink()) entries[key] = `link ${readlinkSync(path)}`;
      else entries[key] = `${info.mode} ${readFileSync(path).toString("base64")}`;
    }
  };
  walk(dir);
  return entries;
}

/** A folder set up from the old template, as a returning learner has it; and what progress recorded. */
async function oldSandbox() {
  const env = isolatedGitEnv(LEARNER_IDENTITY);
  const workspace = makeWorkspace();
  const made = await prepareSandbox({ template: OLD, workspace, questId: "old", env });
  if (!made.ok) throw new Error(made.message);
  const recorded = { template: OLD, baseline: made.baseline };
  const upgrade = (template = NEW, record = recorded) =>
    prepareSandbox({ template, workspace, questId: "new", env, recorded: record });
  const git = (...args: string[]) => gitIn(workspace, env, ...args);
  const write = (path: string, text: string) => {
    mkdirSync(join(workspace, path, ".."), { recursive: true });
    writeFileSync(join(workspace, path), text);
  };
  return { env, workspace, recorded, upgrade, git, write };
}

const NOT_EMPTY = /^"new" sets up a practice folder, and this folder is not empty \(/;

describe("a sandbox set up from another template", () => {
  it("gets the new files on top in one commit of pi-quests': the learner's HEAD plus exactly the template's files", async () => {
    const s = await oldSandbox();
    s.write("hello.txt", "hello world\n");
    s.git("add", "hello.txt");
    s.git("commit", "-q", "-m", "my first file");
    const learnersHead = s.git("rev-parse", "HEAD");
    // A change of the learner's, staged but not committed, stays so.
    s.write("draft.md", "a draft\n");
    s.git("add", "draft.md");

    const outcome = await s.upgrade();
    const head = s.git("rev-parse", "HEAD");
    expect(outcome).toEqual({
      ok: true,
      baseline: head,
      upgraded: { from: "old", commit: "Quest sandbox: new (on top of old)" },
    });
    expect(s.git("log", "-1", "--format=%an <%ae>|%s|%P")).toBe(
      `pi-quests <pi-quests@localhost>|Quest sandbox: new (on top of old)|${learnersHead}`,
    );
    expect(s.git("diff", "--name-only", learnersHead, head).split("\n")).toEqual([
      "README.md",
      "notes/meeting.md",
      "test/calc.test.js",
    ]);
    for (const file of ["README.md", "notes/meeting.md", "test/calc.test.js"])
      expect(readFileSync(join(s.workspace, file))).toEqual(readFileSync(join(NEW, file)));
    expect(readFileSync(join(s.workspace, "hello.txt"), "utf8")).toBe("hello world\n");
    expect(s.git("status", "--porcelain")).toBe("A  draft.md");
  });

  it("a template that moved, with the same files, is recorded again without a commit", async () => {
    const s = await oldSandbox();
    const moved = join(
      makeWorkspace({ "old/README.md": readFileSync(join(OLD, "README.md"), "utf8") }),
      "old",
    );
    const before = s.git("rev-parse", "HEAD");
    expect(await s.upgrade(moved)).toEqual({ ok: true, baseline: s.recorded.baseline });
    expect(s.git("rev-parse", "HEAD")).toBe(before);
    expect(s.git("status", "--porcelain")).toBe("");
  });

  describe("is refused, left byte for byte as it was, when", () => {
    const refusedCases: [
      string,
      /** Returns the recorded baseline to use instead, when the case is about it. */
      (s: Awaited<ReturnType<typeof oldSandbox>>) => unknown,
    ][] = [
      [
        "the learner changed a file of the new template (not committed)",
        (s) => s.write("README.md", "mine\n"),
      ],
      [
        "the learner committed a change to a file of the new template",
        (s) => {
          s.write("README.md", "mine\n");
          s.git("commit", "-q", "-am", "my readme");
        },
      ],
      ["the learner made a file where the template has a folder", (s) => s.write("notes", "my notes\n")],
      ["the learner added a test of their own", (s) => s.write("my.test.js", "process.exit(0)\n")],
      ["the learner added a configuration file", (s) => s.write("vitest.config.js", "export default {};\n")],
      [
        "an ignored file is where a template file goes",
        (s) => {
          s.write(".gitignore", "notes/\n");
          s.write("notes/meeting.md", "my meeting\n");
        },
      ],
      [
        "the recorded baseline is not a commit pi-quests made",
        (s) => {
          s.write("hello.txt", "hi\n");
          s.git("add", "hello.txt");
          s.git("commit", "-q", "-m", "Quest sandbox: a fake");
          return { baseline: s.git("rev-parse", "HEAD") };
        },
      ],
      ["the recorded baseline is not in the repository", () => ({ baseline: "1".repeat(40) })],
    ];

    it.each(refusedCases)("%s", async (_case, arrange) => {
      const s = await oldSandbox();
      const changed = arrange(s) as { baseline: string } | undefined;
      const before = snapshot(s.workspace);
      const outcome: SandboxOutcome = await s.upgrade(NEW, { ...s.recorded, ...(changed ?? {}) });
      expect(outcome).toMatchObject({
        ok: false,
        kind: "not_empty",
        message: expect.stringMatching(NOT_EMPTY),
      });
      expect(snapshot(s.workspace)).toEqual(before);
    });

    it("the folder is not a git repository any more", async () => {
      const s = await oldSandbox();
      execFileSync("rm", ["-rf", join(s.workspace, ".git")]);
      const before = snapshot(s.workspace);
      expect(await s.upgrade()).toMatchObject({ ok: false, kind: "not_empty" });
      expect(snapshot(s.workspace)).toEqual(before);
    });
  });

  it("a change of the learner's elsewhere, committed or not, even beside a template file, does not stop it", async () => {
    const s = await oldSandbox();
    s.write("src/app.js", "console.log(1);\n");
    s.git("add", "src/app.js");
    s.git("commit", "-q", "-m", "my app");
    s.write("src/app.js", "console.log(2);\n");
    s.write("notes/mine.md", "mine\n");
    const outcome = await s.upgrade();
    expect(outcome.ok).toBe(true);
    expect(s.git("diff", "--name-only")).toBe("src/app.js");
    expect(s.git("diff", "--cached", "--name-only")).toBe("");
    expect(s.git("ls-files", "--others")).toBe("notes/mine.md");
    expect(s.git("show", "--name-only", "--format=", "HEAD").split("\n")).toEqual([
      "README.md",
      "notes/meeting.md",
      "test/calc.test.js",
    ]);
  });
});
