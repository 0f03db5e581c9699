import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join, relative } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { prepareSandbox } from "../../src/runtime/sandbox.ts";
import {
  gitIn,
  isolatedGitEnv as isolatedEnv,
  LEARNER_IDENTITY as WITH_IDENTITY,
} from "../support/isolated-git.ts";
import { makeWorkspace, removeWorkspaces } from "../support/workspace.ts";

afterEach(removeWorkspaces);

/** Runs git and says whether it exited 0 (`git config KEY` exits 1 when KEY is not set). */
function gitOk(dir: string, env: Record<string, string>, ...args: string[]): boolean {
  try {
    gitIn(dir, env, ...args);
    return true;
  } catch {
    return false;
  }
}

/** Every file and folder under `dir` (relative path → bytes, or "dir"), `.git` included. */
function snapshot(dir: string): Record<string, string> {
  const entries: Record<string, string> = {};
  const walk = (folder: string) => {
    for (const name of readdirSync(folder)) {
      const path = join(folder, name);
      const info = statSync(path);
      if (info.isDirectory()) {
        entries[relative(dir, path)] = `dir ${info.mode}`;
        walk(path);
      } else {
        entries[relative(dir, path)] = `${info.mode} ${readFileSync(path).toString("base64")}`;
      }
    }
  };
  walk(dir);
  return entries;
}

function template(): string {
  return makeWorkspace({
    "README.md": "# Practice\n",
    "src/app.js": "console.log('hi');\n",
    "data/blob.bin": Buffer.from([0, 1, 2, 255]),
    ".hidden": "dotfile\n",
  });
}

describe("an empty folder", () => {
  it("gets the template copied in, byte for byte", async () => {
    const from = template();
    const workspace = makeWorkspace();
    const outcome = await prepareSandbox({
      template: from,
      workspace,
      questId: "first-file",
      env: isolatedEnv(),
    });
    expect(outcome.ok).toBe(true);
    const copied = snapshot(workspace);
    delete copied[".git"];
    for (const key of Object.keys(copied)) if (key.startsWith(".git/")) delete copied[key];
    const original = snapshot(from);
    for (const [path, content] of Object.entries(original)) {
      expect(copied[path]?.split(" ").at(-1), path).toBe(content.split(" ").at(-1));
    }
    expect(Object.keys(copied).sort()).toEqual(Object.keys(original).sort());
  });

  it("becomes a git repository with one commit holding every template file, and nothing left uncommitted", async () => {
    const env = isolatedEnv();
    const workspace = makeWorkspace();
    await prepareSandbox({ template: template(), workspace, questId: "first-file", env });
    expect(gitIn(workspace, env, "rev-list", "--count", "HEAD")).toBe("1");
    expect(gitIn(workspace, env, "ls-tree", "-r", "--name-only", "HEAD").split("\n").sort()).toEqual([
      ".hidden",
      "README.md",
      "data/blob.bin",
      "src/app.js",
    ]);
    expect(gitIn(workspace, env, "status", "--porcelain", "--untracked-files=all")).toBe("");
  });

  it("returns the baseline (the full id of HEAD, the template's commit) and the entries it copied", async () => {
    const env = isolatedEnv();
    const workspace = makeWorkspace();
    const from = template();
    const outcome = await prepareSandbox({ template: from, workspace, questId: "first-file", env });
    const head = gitIn(workspace, env, "rev-parse", "HEAD");
    expect(outcome).toEqual({
      ok: true,
      baseline: head,
      copied: { into: workspace, entries: [".hidden", "README.md", "data", "src"] },
    });
    expect(head).toMatch(/^[0-9a-f]{40}$/);
    expect(gitIn(workspace, env, "log", "-1", "--format=%an <%ae>|%s")).toMatch(
      /^pi-quests <pi-quests@localhost>\|Quest sandbox: pi-quests-ws-/,
    );
  });

  it("the template itself is not changed", async () => {
    const from = template();
    const before = snapshot(from);
    await prepareSandbox({ template: from, workspace: makeWorkspace(), questId: "q", env: isolatedEnv() });
    expect(snapshot(from)).toEqual(before);
  });

  it("copies the starter pack's own template", async () => {
    const env = isolatedEnv();
    const workspace = makeWorkspace();
    const from = join(import.meta.dirname, "../../fixtures/packs/starter/sandboxes/first-file");
    const outcome = await prepareSandbox({ template: from, workspace, questId: "first-file", env });
    expect(outcome.ok).toBe(true);
    expect(readFileSync(join(workspace, "README.md"))).toEqual(readFileSync(join(from, "README.md")));
  });
});

describe("a git identity for the learner's commits", () => {
  it("is set locally, as a placeholder, when git has none", async () => {
    const env = isolatedEnv();
    const workspace = makeWorkspace();
    await prepareSandbox({ template: template(), workspace, questId: "first-file", env });
    expect(gitIn(workspace, env, "config", "--local", "user.name")).toBe("Pi Quests learner");
    expect(gitIn(workspace, env, "config", "--local", "user.email")).toBe("learner@pi-quests.localhost");
  });

  it("is not set when git already has one: the learner's own identity is used", async () => {
    const env = isolatedEnv(WITH_IDENTITY);
    const workspace = makeWorkspace();
    await prepareSandbox({ template: template(), workspace, questId: "first-file", env });
    expect(gitOk(workspace, env, "config", "--local", "user.email")).toBe(false);
    expect(gitOk(workspace, env, "config", "--local", "user.name")).toBe(false);
    expect(gitIn(workspace, env, "config", "user.email")).toBe("ada@example.com");
  });

  it("writes nothing into HOME or the global config", async () => {
    const env = isolatedEnv();
    const before = snapshot(env.HOME as string);
    await prepareSandbox({ template: template(), workspace: makeWorkspace(), questId: "q", env });
    expect(snapshot(env.HOME as string)).toEqual(before);
  });
});

describe("a folder that is not empty", () => {
  it("is refused as not_empty: the message names the quest and what is there (the caller says what to do)", async () => {
    const workspace = makeWorkspace({ "notes.txt": "mine\n" });
    const outcome = await prepareSandbox({
      template: template(),
      workspace,
      questId: "first-file",
      env: isolatedEnv(),
    });
    expect(outcome).toEqual({ ok: false, kind: "not_empty", message: expect.any(String) });
    const { message } = outcome as { message: string };
    expect(message).toContain('"first-file"');
    expect(message).toContain("not empty (notes.txt)");
    expect(message).toMatch(/nothing was copied or changed\.$/);
  });

  it("names at most three entries", async () => {
    const workspace = makeWorkspace({ a: "1", b: "2", c: "3", d: "4", e: "5" });
    const outcome = await prepareSandbox({
      template: template(),
      workspace,
      questId: "q",
      env: isolatedEnv(),
    });
    expect(outcome.ok).toBe(false);
    expect((outcome as { message: string }).message).toMatch(/not empty \(\w, \w, \w, …\)/);
  });

  it("is left byte for byte as it was: nothing created, nothing changed", async () => {
    const workspace = makeWorkspace({
      "notes.txt": "mine\n",
      "README.md": "my own readme\n",
      "src/app.js": "my own code\n",
    });
    const before = snapshot(workspace);
    await prepareSandbox({ template: template(), workspace, questId: "first-file", env: isolatedEnv() });
    expect(snapshot(workspace)).toEqual(before);
    expect(existsSync(join(workspace, ".git"))).toBe(false);
  });

  it("a folder holding only a dotfile counts as not empty", async () => {
    const workspace = makeWorkspace({ ".env": "SECRET=1\n" });
    const outcome = await prepareSandbox({
      template: template(),
      workspace,
      questId: "q",
      env: isolatedEnv(),
    });
    expect(outcome).toMatchObject({ ok: false, kind: "not_empty" });
    expect(readFileSync(join(workspace, ".env"), "utf8")).toBe("SECRET=1\n");
  });

  it("an existing repository is not touched", async () => {
    const env = isolatedEnv(WITH_IDENTITY);
    const workspace = makeWorkspace({ "a.txt": "a\n" });
    gitIn(workspace, env, "init", "-q");
    const before = snapshot(workspace);
    const outcome = await prepareSandbox({ template: template(), workspace, questId: "q", env });
    expect(outcome).toMatchObject({ ok: false, kind: "not_empty" });
    expect(snapshot(workspace)).toEqual(before);
  });
});

describe("a setup that fails", () => {
  it("is reported as failed with a one-line reason, not thrown", async () => {
    const workspace = makeWorkspace();
    const outcome = await prepareSandbox({
      template: join(makeWorkspace(), "no-such-template"),
      workspace,
      questId: "first-file",
      env: isolatedEnv(),
    });
    expect(outcome).toEqual({
      ok: false,
      kind: "failed",
      message: expect.stringMatching(/^could not set up the practice folder for "first-file": .*ENOENT/),
    });
    expect((outcome as { message: string }).message).not.toContain("\n");
  });

  it("a template entry that is already in the folder is never overwritten", async () => {
    // The folder is checked empty first; this guards the copy itself (errorOnExist, no force).
    const from = template();
    const workspace = makeWorkspace();
    const outcome = await prepareSandbox({ template: from, workspace, questId: "q", env: isolatedEnv() });
    expect(outcome.ok).toBe(true);
    writeFileSync(join(workspace, "README.md"), "changed by the learner\n");
    const again = await prepareSandbox({ template: from, workspace, questId: "q", env: isolatedEnv() });
    expect(again).toMatchObject({ ok: false, kind: "not_empty" });
    expect(readFileSync(join(workspace, "README.md"), "utf8")).toBe("changed by the learner\n");
  });
});
