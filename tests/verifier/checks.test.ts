import { describe, expect, it } from "vitest";
import { evaluateCheck, evaluateQuest } from "../../src/verifier/evaluate.ts";
import type { GitProbe, ScriptOutcome } from "../../src/verifier/probes.ts";
import { check } from "../support/checks.ts";
import { context, fakeProbes, WORKSPACE } from "../support/fake-probes.ts";

describe("file_exists", () => {
  const files = { [`${WORKSPACE}/hello.txt`]: "hi", [`${WORKSPACE}/src`]: { dir: true as const } };
  it.each([
    [{ path: "hello.txt" }, "pass"],
    [{ path: "hello.txt", kind: "dir" }, "fail"],
    [{ path: "src", kind: "dir" }, "pass"],
    [{ path: "src" }, "fail"],
    [{ path: "src", kind: "any" }, "pass"],
    [{ path: "nope.txt" }, "fail"],
    [{ path: "{workspace}/hello.txt" }, "pass"],
  ])("%j is %s", async (fields, status) => {
    expect((await evaluateCheck(check({ type: "file_exists", ...fields }), context({}, files))).status).toBe(
      status,
    );
  });

  it("resolves {agent_dir} and {home} against their own roots", async () => {
    const ctx = context({}, { "/agent/skills/x/SKILL.md": "x", "/home/learner/.bashrc": "" });
    expect(
      (await evaluateCheck(check({ type: "file_exists", path: "{agent_dir}/skills/x/SKILL.md" }), ctx))
        .status,
    ).toBe("pass");
    expect((await evaluateCheck(check({ type: "file_exists", path: "{home}/.bashrc" }), ctx)).status).toBe(
      "pass",
    );
  });

  it.each(["../etc/passwd", "a/../../x", "/etc/passwd", "{agent_dir}/../secret"])(
    "%s escapes its root and fails with evidence saying so",
    async (path) => {
      const result = await evaluateCheck(check({ type: "file_exists", path }), context());
      expect(result).toMatchObject({ status: "fail", evidence: { kind: "path", problem: "escape" } });
    },
  );

  it("a symlink escape reported by the probe fails", async () => {
    const ctx = context({}, { [`${WORKSPACE}/link`]: { escape: "a symbolic link to /etc" } });
    const result = await evaluateCheck(check({ type: "file_exists", path: "link" }), ctx);
    expect(result).toMatchObject({
      status: "fail",
      evidence: { kind: "path", summary: "link: a symbolic link to /etc" },
    });
  });
});

describe("command", () => {
  const finished = (exitCode: number, stdout = "", stderr = ""): ScriptOutcome => ({
    ok: true,
    passed: exitCode === 0,
    exitCode,
    report: stdout + stderr,
    stdout,
    stderr,
    truncated: false,
  });
  const withRunner = (outcome: ScriptOutcome) =>
    context({ probes: fakeProbes({}, { runCommand: async () => outcome }) });
  const inPlace = (fields: Record<string, unknown>) =>
    check({ type: "command", isolation: "none", ...fields });

  it("passes on the expected exit code and output predicates", async () => {
    const result = await evaluateCheck(
      inPlace({ run: "npm test", stdout: { contains: "ok" } }),
      withRunner(finished(0, "all ok\n")),
    );
    expect(result).toMatchObject({
      status: "pass",
      evidence: { kind: "command", exitCode: 0, output: "all ok\n" },
    });
  });

  it("fails on another exit code, naming what was expected", async () => {
    const result = await evaluateCheck(inPlace({ run: "npm test" }), withRunner(finished(1, "", "boom")));
    expect(result).toMatchObject({
      status: "fail",
      evidence: { failed: ["exit code 1, expected = 0"], output: "boom" },
    });
  });

  it("a success word in the output does not pass a failing exit code", async () => {
    const result = await evaluateCheck(
      inPlace({ run: "printf 'PASS'; exit 1" }),
      withRunner(finished(1, "PASS")),
    );
    expect(result.status).toBe("fail");
  });

  it("honours exit_code and stderr predicates", async () => {
    const expectsFailure = inPlace({ run: "x", exit_code: { min: 1 }, stderr: { regex: "not found" } });
    expect((await evaluateCheck(expectsFailure, withRunner(finished(127, "", "x: not found")))).status).toBe(
      "pass",
    );
    expect((await evaluateCheck(expectsFailure, withRunner(finished(127, "", "other")))).status).toBe("fail");
  });

  it.each(["timeout", "stopped", "unavailable"] as const)("a %s is pending, never a pass", async (kind) => {
    const result = await evaluateCheck(
      inPlace({ run: "sleep 100", exit_code: { min: 0 } }),
      withRunner({ ok: false, kind, message: kind, report: "partial", truncated: false }),
    );
    expect(result).toMatchObject({ status: "pending", evidence: { kind: "command", output: "partial" } });
  });

  it("isolation: worktree is pending while no isolated verifier is wired in, and runs nothing", async () => {
    const probes = fakeProbes();
    const result = await evaluateCheck(check({ type: "command", run: "npm test" }), context({ probes }));
    expect(result).toMatchObject({ status: "pending", evidence: { pending: "isolation_unavailable" } });
    expect(probes.scripts).toEqual([]);
  });

  it("names the script after the quest and check, and runs it in cwd", async () => {
    const seen: string[] = [];
    const probes = fakeProbes(
      {},
      {
        runCommand: async (request) => {
          seen.push(request.script, request.cwd);
          return finished(0);
        },
      },
    );
    await evaluateCheck(inPlace({ run: "true", cwd: "pkg" }), context({ probes }));
    expect(seen).toEqual(["test-quest/the-check", `${WORKSPACE}/pkg`]);
  });

  it("a cwd outside the workspace fails before anything runs", async () => {
    const probes = fakeProbes();
    const result = await evaluateCheck(inPlace({ run: "true", cwd: "../.." }), context({ probes }));
    expect(result.status).toBe("fail");
    expect(probes.scripts).toEqual([]);
  });
});

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

  it("a git error or a missing baseline is pending", async () => {
    const broken = git({ changedPaths: async () => ({ ok: false, message: "not a git repository" }) });
    expect((await evaluateCheck(check({ type: "git", assert: "dirty" }), broken)).status).toBe("pending");
    expect((await evaluateCheck(check({ type: "git", assert: "dirty" }), context())).status).toBe("pending");
  });
});

describe("mcp_handshake, skill_valid and confirm", () => {
  it("mcp passes only when every expected tool is offered", async () => {
    const probes = fakeProbes(
      {},
      {
        mcpHandshake: async () => ({
          ok: true,
          server: "docs",
          transport: "stdio",
          serverInfo: { name: "d", version: "1" },
          protocolVersion: "2025-06-18",
          tools: ["search"],
          launched: { transport: "stdio", commandLine: "docs-server", cwd: "/w", envNames: [] },
        }),
      },
    );
    const ctx = context({ probes });
    expect(
      (await evaluateCheck(check({ type: "mcp_handshake", server: "docs", expect_tools: ["search"] }), ctx))
        .status,
    ).toBe("pass");
    const missing = await evaluateCheck(
      check({ type: "mcp_handshake", server: "docs", expect_tools: ["search", "fetch"] }),
      ctx,
    );
    expect(missing).toMatchObject({ status: "fail", evidence: { missingTools: ["fetch"] } });
  });

  it("mcp: a config problem fails, a server that cannot be reached is pending", async () => {
    const answer = (kind: "config" | "timeout") =>
      context({
        probes: fakeProbes(
          {},
          { mcpHandshake: async () => ({ ok: false, server: "docs", kind, message: kind }) },
        ),
      });
    const mcp = check({ type: "mcp_handshake", server: "docs" });
    expect((await evaluateCheck(mcp, answer("config"))).status).toBe("fail");
    expect((await evaluateCheck(mcp, answer("timeout"))).status).toBe("pending");
  });

  it("skill_valid needs discovery and no violations", async () => {
    const answer = (found: boolean, violations: string[]) =>
      context({
        probes: fakeProbes(
          {},
          {
            skillValid: async () => ({
              ok: true,
              ...(found ? { found: { name: "x", filePath: "/s" } } : {}),
              violations,
              diagnostics: [],
            }),
          },
        ),
      });
    const skill = check({ type: "skill_valid", name: "x" });
    expect((await evaluateCheck(skill, answer(true, []))).status).toBe("pass");
    expect((await evaluateCheck(skill, answer(true, ["name too long"]))).status).toBe("fail");
    expect((await evaluateCheck(skill, answer(false, []))).status).toBe("fail");
  });

  it("confirm passes on yes and is pending otherwise", async () => {
    const confirm = check({ type: "confirm", prompt: "Did you read the docs?" });
    const answer = (value: boolean | undefined) =>
      context({ probes: fakeProbes({}, { confirm: async () => value }) });
    expect((await evaluateCheck(confirm, answer(true))).status).toBe("pass");
    expect((await evaluateCheck(confirm, answer(false))).status).toBe("pending");
    expect((await evaluateCheck(confirm, answer(undefined))).status).toBe("pending");
  });
});

describe("evaluateQuest", () => {
  const pass = check({ type: "confirm", prompt: "p" }, "yes");
  const fail = check({ type: "file_exists", path: "absent" }, "absent");
  const wait = check({ type: "event", match: { event: "x" }, after: "never" }, "wait");
  const ctx = context({ probes: fakeProbes({}, { confirm: async () => true }) });

  it.each([
    [[pass], "pass", { passed: 1, failed: 0, pending: 0 }],
    [[pass, wait], "pending", { passed: 1, failed: 0, pending: 1 }],
    [[pass, wait, fail], "fail", { passed: 1, failed: 1, pending: 1 }],
  ] as const)("aggregates %#", async (checks, status, counts) => {
    const result = await evaluateQuest({ id: "q", checks: [...checks] }, ctx);
    expect(result).toMatchObject({ quest: "q", status, counts });
    expect(result.checks.map((c) => c.id)).toEqual(checks.map((c) => c.id));
  });

  it("a probe that throws makes its check pending, not the evaluation crash", async () => {
    const probes = fakeProbes(
      {},
      {
        fileExists: async () => {
          throw new Error("disk on fire");
        },
      },
    );
    const result = await evaluateQuest({ id: "q", checks: [fail] }, context({ probes }));
    expect(result.checks[0]).toMatchObject({
      status: "pending",
      evidence: { summary: expect.stringContaining("disk on fire") },
    });
  });

  it("after an abort the remaining checks are pending as stopped", async () => {
    const controller = new AbortController();
    controller.abort();
    const result = await evaluateQuest({ id: "q", checks: [pass] }, { ...ctx, signal: controller.signal });
    expect(result.checks[0]).toMatchObject({ status: "pending", evidence: { pending: "stopped" } });
  });
});
