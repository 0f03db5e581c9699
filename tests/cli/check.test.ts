import { mkdirSync, realpathSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { REPO, runCli } from "../support/cli.ts";
import { commitAll, git, makeWorkspace, removeWorkspaces } from "../support/workspace.ts";

const FIRST_FILE = join(REPO, "fixtures/quests/first-file.yaml");
const WORKSHOP = join(REPO, "fixtures/packs/workshop");
const DONE_EVENTS = join(REPO, "fixtures/events/first-file-done.jsonl");
const CLAIM_EVENTS = join(REPO, "fixtures/events/claim-only.jsonl");

afterEach(removeWorkspaces);

describe("pi-quests check", () => {
  it("passes a completed quest: exit 0 and the contract's JSON shape", async () => {
    const workspace = makeWorkspace({ "hello.txt": "hello world\n" });
    const run = await runCli(["check", FIRST_FILE, "--cwd", workspace, "--events", DONE_EVENTS, "--json"]);
    expect(run.exitCode).toBe(0);
    const result = JSON.parse(run.stdout);
    expect(result).toMatchObject({
      quest: "first-file",
      status: "pass",
      counts: { passed: 3, failed: 0, pending: 0 },
    });
    expect(
      result.checks.map((check: { id: string; type: string; status: string }) => [
        check.id,
        check.type,
        check.status,
      ]),
    ).toEqual([
      ["wrote-it", "event", "pass"],
      ["file-there", "file_exists", "pass"],
      ["says-hello", "command", "pass"],
    ]);
    expect(result.checks[2].evidence).toMatchObject({ kind: "command", exitCode: 0, isolation: "none" });
  });

  it("prints a readable line a check by default", async () => {
    const workspace = makeWorkspace({ "hello.txt": "hello\n" });
    const run = await runCli(["check", FIRST_FILE, "--cwd", workspace, "--events", DONE_EVENTS]);
    expect(run.stdout).toBe(
      [
        "first-file: Make your first file",
        "  [pass] wrote-it (Pi wrote hello.txt): matching tool_result event at seq 2",
        "  [pass] file-there (hello.txt exists): hello.txt exists (a file)",
        "  [pass] says-hello (hello.txt says hello): exit code 0",
        "pass: 3 passed, 0 failed, 0 pending",
      ].join("\n"),
    );
  });

  it("a claim of success in text, with no work done, fails: exit 1", async () => {
    const run = await runCli([
      "check",
      FIRST_FILE,
      "--cwd",
      makeWorkspace(),
      "--events",
      CLAIM_EVENTS,
      "--json",
    ]);
    expect(run.exitCode).toBe(1);
    expect(JSON.parse(run.stdout)).toMatchObject({
      status: "fail",
      counts: { passed: 0, failed: 3, pending: 0 },
    });
  });

  it("a failing command shows the tail of its captured output", async () => {
    const workspace = makeWorkspace({ "hello.txt": "goodbye\n" });
    const quest = join(workspace, "..", `${workspace.split("/").pop()}-q.yaml`);
    writeFileSync(
      quest,
      `version: 1\nid: noisy\ntitle: Noisy\ngoal: g\nchecks:\n  - type: command\n    isolation: none\n    run: |\n      for i in $(seq 1 30); do echo "line $i"; done\n      echo "expected hello" >&2\n      exit 4\n`,
    );
    const run = await runCli(["check", quest, "--cwd", workspace]);
    expect(run.exitCode).toBe(1);
    expect(run.stdout).toContain("[FAIL] check-1: exit code 4, expected = 0");
    expect(run.stdout).toContain("last 20 line(s) of output:");
    expect(run.stdout).toContain("      | line 30\n      | expected hello\n");
    expect(run.stdout).not.toContain("| line 10\n");
  });

  it("a command check in a workspace outside git is pending, saying why: exit 2", async () => {
    const workspace = makeWorkspace({ "hello.txt": "hello" });
    const quest = join(workspace, "q.yaml");
    writeFileSync(
      quest,
      "version: 1\nid: iso\ntitle: T\ngoal: g\nchecks:\n  - type: command\n    run: exit 0\n",
    );
    const run = await runCli(["check", quest, "--cwd", workspace, "--json"]);
    expect(run.exitCode).toBe(2);
    expect(JSON.parse(run.stdout).checks[0].evidence.summary).toMatch(
      /^unavailable: .* is not in a git repository, so isolation: worktree cannot run/,
    );
  });

  it("a command check runs in the isolated verifier: a test rewritten to exit 0 does not pass", async () => {
    const workspace = makeWorkspace({
      "add.js": "exports.add = (a, b) => a - b;\n",
      "test/add.sh": "node -e 'process.exit(require(\"./add.js\").add(2, 3) === 5 ? 0 : 1)'\n",
    });
    commitAll(workspace);
    const quest = join(makeWorkspace(), "q.yaml");
    writeFileSync(
      quest,
      "version: 1\nid: fix\ntitle: T\ngoal: g\nchecks:\n  - id: tests\n    type: command\n    run: bash test/add.sh\n",
    );
    const check = async () =>
      JSON.parse((await runCli(["check", quest, "--cwd", workspace, "--json"])).stdout);

    writeFileSync(join(workspace, "test/add.sh"), "exit 0\n");
    const cheated = await check();
    expect(cheated.status).toBe("fail");
    expect(cheated.checks[0].evidence.verification.restored).toEqual(["test/add.sh"]);

    writeFileSync(join(workspace, "add.js"), "exports.add = (a, b) => a + b;\n");
    const fixed = await check();
    expect(fixed.status).toBe("pass");
    expect(fixed.checks[0].evidence).toMatchObject({ isolation: "worktree", exitCode: 0 });
  });

  describe("a pack", () => {
    it("needs --quest when it has more than one quest, and names them", async () => {
      const run = await runCli(["check", WORKSHOP]);
      expect(run.exitCode).toBe(3);
      expect(run.stderr).toContain(
        "this pack has 4 quests; choose one with --quest ID (config, commit, reflect, tools)",
      );
    });

    it("checks json_path and yaml_path against the sandbox files", async () => {
      const workspace = makeWorkspace({}, { copy: join(WORKSHOP, "sandboxes/config") });
      const before = await runCli(["check", WORKSHOP, "--quest", "config", "--cwd", workspace, "--json"]);
      expect(before.exitCode).toBe(1);
      expect(JSON.parse(before.stdout).checks.map((c: { status: string }) => c.status)).toEqual([
        "fail",
        "fail",
      ]);
      writeFileSync(join(workspace, "package.json"), '{"scripts":{"test":"vitest run"}}');
      writeFileSync(join(workspace, "config.yaml"), "server:\n  port: 8080\n");
      const after = await runCli(["check", WORKSHOP, "--quest", "config", "--cwd", workspace, "--json"]);
      expect(after.exitCode).toBe(0);
    });

    it("checks git against the baseline: --baseline pins it, HEAD is the default", async () => {
      const workspace = makeWorkspace({ "config.yaml": "server:\n  port: 3000\n" });
      const baseline = commitAll(workspace);
      const atHead = await runCli(["check", WORKSHOP, "--quest", "commit", "--cwd", workspace, "--json"]);
      expect(atHead.exitCode).toBe(1);
      writeFileSync(join(workspace, "config.yaml"), "server:\n  port: 8080\n");
      git(workspace, "commit", "-qam", "port 8080");
      const pinned = await runCli([
        "check",
        WORKSHOP,
        "--quest",
        "commit",
        "--cwd",
        workspace,
        "--baseline",
        baseline,
        "--json",
      ]);
      expect(pinned.exitCode).toBe(0);
      expect(JSON.parse(pinned.stdout).checks[0].evidence).toMatchObject({
        baseline,
        detail: { commits: 1 },
      });
      const unknown = await runCli([
        "check",
        WORKSHOP,
        "--quest",
        "commit",
        "--cwd",
        workspace,
        "--baseline",
        "no-such-rev",
      ]);
      expect(unknown.exitCode).toBe(3);
      expect(unknown.stderr).toMatch(/--baseline no-such-rev: .*no-such-rev/);
    });

    it("git checks outside a git repository are pending, not passed", async () => {
      const run = await runCli(["check", WORKSHOP, "--quest", "commit", "--cwd", makeWorkspace(), "--json"]);
      expect(run.exitCode).toBe(2);
    });

    it("confirm checks are pending until --confirm answers them", async () => {
      const events = join(makeWorkspace(), "events.jsonl");
      writeFileSync(
        events,
        [
          { name: "quest_completed", seq: 0, payload: { quest: "commit" } },
          { name: "input", seq: 1, payload: { text: "what did you change?" } },
        ]
          .map((event) => JSON.stringify(event))
          .join("\n"),
      );
      const base = ["check", WORKSHOP, "--quest", "reflect", "--events", events, "--json"];
      const unanswered = await runCli(base);
      expect(unanswered.exitCode).toBe(2);
      expect(JSON.parse(unanswered.stdout).counts).toEqual({ passed: 1, failed: 0, pending: 1 });
      expect((await runCli([...base, "--confirm", "read-diff"])).exitCode).toBe(0);
      const typo = await runCli([...base, "--confirm", "read-dif"]);
      expect(typo.exitCode).toBe(3);
      expect(typo.stderr).toContain(
        "--confirm read-dif: quest reflect has no such check (read-diff, after-commit)",
      );
    });
  });

  describe("paths", () => {
    it("a symbolic link out of the workspace fails without being read", async () => {
      const outside = makeWorkspace({ "secret.txt": "hello" });
      const workspace = makeWorkspace();
      symlinkSync(join(outside, "secret.txt"), join(workspace, "hello.txt"));
      const run = await runCli(["check", FIRST_FILE, "--cwd", workspace, "--events", DONE_EVENTS, "--json"]);
      expect(run.exitCode).toBe(1);
      expect(JSON.parse(run.stdout).checks[1]).toMatchObject({
        status: "fail",
        evidence: { kind: "path", problem: "escape" },
      });
    });
  });

  it("a command check is told Pi's package folder (PI_QUESTS_PI_PACKAGE), over the learner's own value", async () => {
    const pi = realpathSync(join(REPO, "node_modules/@earendil-works/pi-coding-agent"));
    const workspace = makeWorkspace({ "README.md": "a project\n" });
    commitAll(workspace);
    const quest = join(makeWorkspace(), "q.yaml");
    const sees = (isolation: string) =>
      `  - id: ${isolation}\n    type: command\n    isolation: ${isolation}\n    run: 'echo "pi at $PI_QUESTS_PI_PACKAGE"; test "$PI_QUESTS_PI_PACKAGE" = "${pi}"'\n`;
    writeFileSync(
      quest,
      `version: 1\nid: sdk\ntitle: T\ngoal: g\nchecks:\n${sees("worktree")}${sees("none")}`,
    );
    // What the agent could put in the learner's environment does not decide what Pi is.
    const run = await runCli(["check", quest, "--cwd", workspace, "--json"], {
      env: { PI_QUESTS_PI_PACKAGE: "/tmp/a-fake-pi" },
    });
    const checks = JSON.parse(run.stdout).checks;
    expect(checks.map((check: { evidence: { output: string } }) => check.evidence.output)).toEqual([
      `pi at ${pi}\n`,
      `pi at ${pi}\n`,
    ]);
    expect(run.exitCode).toBe(0);
  });
});

describe("pi-quests lint", () => {
  it("accepts valid files and packs: exit 0", async () => {
    const run = await runCli(["lint", FIRST_FILE, WORKSHOP]);
    expect(run).toMatchObject({ exitCode: 0, stdout: "5 quest(s) valid" });
  });
});

describe("help", () => {
  it.each([["--help"], ["help"], ["check", "--help"], ["lint", "--help"], ["help", "check"]])(
    "%j prints usage and exits 0",
    async (...args) => {
      const run = await runCli(args);
      expect(run.exitCode).toBe(0);
      expect(run.stdout).toMatch(/^(Usage|pi-quests)/);
    },
  );
});

describe("pi-quests check --session", () => {
  it("turns a Pi session file into the same events a recording has", async () => {
    const session = join(REPO, "fixtures/sessions/write-then-failing-test.jsonl");
    const workspace = makeWorkspace({ "hello.txt": "hi\n" });
    const quest = join(workspace, "q.yaml");
    writeFileSync(
      quest,
      `version: 1
id: from-session
title: From a session
goal: g
checks:
  - id: wrote
    type: event
    same_session: true
    match: { event: tool_result, tool: write, outcome: success, fields: { input.path: hello.txt } }
  - id: tests-failed-once
    type: event
    match: { event: tool_result, tool: bash, outcome: error, fields: { input.command: npm test } }
  - id: long-run
    type: event
    match: { event: agent_end, min_assistant_turns: 3 }
  - id: user-bash
    type: event
    count: 2
    match: { event: user_bash }
`,
    );
    const run = await runCli(["check", quest, "--cwd", workspace, "--session", session, "--json"]);
    expect(run.exitCode).toBe(0);
    expect(JSON.parse(run.stdout).checks[0].evidence).toMatchObject({
      sessionId: "0197a8e4-5c2b-7f3a-9d41-6b2e8c1f0a57",
      firstMatchSeq: 2,
    });
  });
});

describe("skills and MCP servers, for real", () => {
  it("the workshop's tools quest passes once the skill and the MCP server exist", async () => {
    const workspace = makeWorkspace();
    git(workspace, "init", "-q");
    const before = await runCli(["check", WORKSHOP, "--quest", "tools", "--cwd", workspace, "--json"]);
    expect(before.exitCode).toBe(1);
    expect(JSON.parse(before.stdout).checks.map((c: { status: string }) => c.status)).toEqual([
      "fail",
      "fail",
    ]);

    const skillDir = join(workspace, ".pi/skills/greeter");
    mkdirSync(skillDir, { recursive: true });
    writeFileSync(
      join(skillDir, "SKILL.md"),
      "---\nname: greeter\ndescription: Greets people warmly. Use when asked to say hello.\n---\n\n# Greeter\n",
    );
    mkdirSync(join(workspace, ".pi"), { recursive: true });
    writeFileSync(
      join(workspace, ".pi/mcp.json"),
      JSON.stringify({
        mcpServers: {
          "echo-tools": { command: process.execPath, args: [join(REPO, "fixtures/mcp/stdio-server.ts")] },
        },
      }),
    );
    const after = await runCli(["check", WORKSHOP, "--quest", "tools", "--cwd", workspace, "--json"]);
    expect(after.exitCode).toBe(0);
    const [skill, mcp] = JSON.parse(after.stdout).checks;
    expect(skill.evidence).toMatchObject({ kind: "skill", name: "greeter", violations: [] });
    expect(mcp.evidence).toMatchObject({ kind: "mcp", transport: "stdio", missingTools: [] });
    expect(mcp.evidence.tools).toContain("echo");
  });

  it("a skill check is pending, unavailable, with findPi's reason, when the CLI finds no Pi", async () => {
    const workspace = makeWorkspace();
    git(workspace, "init", "-q");
    const notPi = makeWorkspace({ "cli.js": "" });
    const run = await runCli(["check", WORKSHOP, "--quest", "tools", "--cwd", workspace, "--json"], {
      env: { PI_QUESTS_PI: join(notPi, "cli.js") },
    });
    const [skill] = JSON.parse(run.stdout).checks;
    expect(skill).toMatchObject({ status: "pending", evidence: { pending: "unavailable" } });
    expect(skill.evidence.summary).toBe(
      `Pi's skill loader is not available: PI_QUESTS_PI=${join(notPi, "cli.js")} is not Pi: give the path of Pi's cli.js (in @earendil-works/pi-coding-agent/dist/bundle/), a link to it, or the package's folder.`,
    );
  });
});
