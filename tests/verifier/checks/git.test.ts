import { describe, expect, it } from "vitest";
import { evaluateCheck } from "../../../src/verifier/evaluate.ts";
import type { GitProbe } from "../../../src/verifier/probes.ts";
import { check } from "../../support/checks.ts";
import { context, fakeProbes } from "../../support/fake-probes.ts";

describe("git", () => {
  const baseline = "a".repeat(40);
  const git = (answers: Partial<GitProbe>) =>
    context({ baseline, probes: fakeProbes({}, { git: { ...fakeProbes().git, ...answers } }) });

  it("commit_count compares commits since the pinned baseline", async () => {
    const ctx = git({ countCommitsSince: async () => ({ ok: true, value: 2 }) });
    expect(
      (await evaluateCheck(check({ type: "git", assert: "commit_count", count: { min: 1 } }), ctx)).status,
    ).toBe("pass");
    expect((await evaluateCheck(check({ type: "git", assert: "commit_count", count: 0 }), ctx)).status).toBe(
      "fail",
    );
  });

  it("commit_count with a branch counts that branch's commits, and fails when there is no such branch", async () => {
    const asked: (string | undefined)[] = [];
    const ctx = git({
      countCommitsSince: async (_cwd, _base, branch) => {
        asked.push(branch);
        return { ok: true, value: branch === "feature/due" ? 2 : "missing_branch" };
      },
    });
    const run = async (branch: string) =>
      evaluateCheck(check({ type: "git", assert: "commit_count", count: { min: 2 }, branch }), ctx);
    expect((await run("feature/due")).status).toBe("pass");
    const missing = await run("feature/other");
    expect(missing.status).toBe("fail");
    expect(missing.evidence).toMatchObject({ summary: "there is no branch feature/other" });
    expect(asked).toEqual(["feature/due", "feature/other"]);
  });

  it("committed passes when a commit since the baseline added or changed the path", async () => {
    const ctx = git({
      committedSince: async (_cwd, _base, path) => ({
        ok: true,
        value: path === "hello.txt" ? "committed" : path === "README.md" ? "unchanged" : "not_in_head",
      }),
    });
    const run = async (path: string) => evaluateCheck(check({ type: "git", assert: "committed", path }), ctx);
    expect((await run("hello.txt")).status).toBe("pass");
    expect((await run("README.md")).status).toBe("fail");
    const none = await run("notes.txt");
    expect(none.status).toBe("fail");
    expect(none.evidence).toMatchObject({ summary: "notes.txt is in no commit yet" });
  });

  it("clean_tree and dirty read the status", async () => {
    const dirty = git({ changedPaths: async () => ({ ok: true, value: ["?? new.txt"] }) });
    const clean = git({ changedPaths: async () => ({ ok: true, value: [] }) });
    expect((await evaluateCheck(check({ type: "git", assert: "clean_tree" }), clean)).status).toBe("pass");
    expect((await evaluateCheck(check({ type: "git", assert: "clean_tree" }), dirty)).status).toBe("fail");
    expect((await evaluateCheck(check({ type: "git", assert: "dirty" }), dirty)).status).toBe("pass");
    expect((await evaluateCheck(check({ type: "git", assert: "dirty" }), clean)).status).toBe("fail");
  });

  it("branch_exists, diff_contains and file_restored", async () => {
    const ctx = git({
      branchExists: async (_cwd, branch) => ({ ok: true, value: branch === "feature" }),
      diffSince: async () => ({ ok: true, value: "+hello world\n" }),
      compareWithBaseline: async (_cwd, _base, path) => ({
        ok: true,
        value: path === "a.txt" ? "same" : "missing_now",
      }),
    });
    const run = async (fields: Record<string, unknown>) =>
      (await evaluateCheck(check({ type: "git", ...fields }), ctx)).status;
    expect(await run({ assert: "branch_exists", branch: "feature" })).toBe("pass");
    expect(await run({ assert: "branch_exists", branch: "main2" })).toBe("fail");
    expect(await run({ assert: "diff_contains", text: "hello" })).toBe("pass");
    expect(await run({ assert: "diff_contains", text: "goodbye" })).toBe("fail");
    expect(await run({ assert: "file_restored", path: "a.txt" })).toBe("pass");
    expect(await run({ assert: "file_restored", path: "b.txt" })).toBe("fail");
  });

  it("current_branch: HEAD on the branch passes; another branch or a detached HEAD fails, saying where HEAD is", async () => {
    const on = (branch: string | null) => git({ currentBranch: async () => ({ ok: true, value: branch }) });
    const wanted = check({ type: "git", assert: "current_branch", branch: "feature/due-dates" });
    expect((await evaluateCheck(wanted, on("feature/due-dates"))).status).toBe("pass");
    const onMain = await evaluateCheck(wanted, on("main"));
    expect(onMain).toMatchObject({
      status: "fail",
      evidence: { summary: "HEAD is on main; expected feature/due-dates" },
    });
    const detached = await evaluateCheck(wanted, on(null));
    expect(detached).toMatchObject({
      status: "fail",
      evidence: { summary: "HEAD is detached (on no branch); expected feature/due-dates" },
    });
  });

  it("a git error or a missing baseline is pending", async () => {
    const broken = git({ changedPaths: async () => ({ ok: false, message: "not a git repository" }) });
    expect((await evaluateCheck(check({ type: "git", assert: "dirty" }), broken)).status).toBe("pending");
    expect((await evaluateCheck(check({ type: "git", assert: "dirty" }), context())).status).toBe("pending");
  });

  it("a path given to git takes no template and stays in the repository, also in a pinned definition", async () => {
    const ctx = git({
      compareWithBaseline: async () => ({ ok: true, value: "same" }),
      diffSince: async () => ({ ok: true, value: "+hello\n" }),
    });
    const restored = await evaluateCheck(
      check({ type: "git", assert: "file_restored", path: "{workspace}/a.txt" }),
      ctx,
    );
    expect(restored).toMatchObject({ status: "fail", evidence: { kind: "path", problem: "escape" } });
    const diff = await evaluateCheck(
      check({ type: "git", assert: "diff_contains", text: "hello", path: "../a" }),
      ctx,
    );
    expect(diff).toMatchObject({ status: "fail", evidence: { kind: "path" } });
  });
});
