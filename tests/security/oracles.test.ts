/**
 * Red team, "where oracles come from": an agent with a shell commits a rewritten test or
 * package script while one quest is active, so that the next quest on the same sandbox pins
 * that commit as HEAD. Each case is the shell commands the agent would run, against real git,
 * real sandboxes and the real extension session (src/extension/session.ts) or the real CLI.
 * The oracle is the sandbox template's own commit; commits still count from activation.
 */
import { readFileSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";

import { workspaceHome } from "../../src/core/workspace-key.ts";
import { agentEndEvent, inputEvent, QUEST_ACTIVATED_EVENT } from "../../src/events/names.ts";
import type { QuestController } from "../../src/extension/controller.ts";
import { openQuestSession } from "../../src/extension/session.ts";
import type { Progress } from "../../src/runtime/progress.ts";
import { createQuestEvaluator } from "../../src/runtime/quest-evaluator.ts";
import { type Quest, QuestFileSchema } from "../../src/verifier/quest.ts";
import type { QuestResult } from "../../src/verifier/results.ts";
import { runCli } from "../support/cli.ts";
import { type FakeQuestUi, fakeQuestUi } from "../support/fake-quest-ui.ts";
import { dataDirOutside, expectCleanAfter, makeRepo, NPM_CLI, snapshot } from "../support/task-verifier.ts";
import { git, makeWorkspace, removeWorkspaces } from "../support/workspace.ts";

const TEST_SH =
  '#!/bin/bash\ngrep -q hello greeting.txt || { echo "greeting.txt must say hello"; exit 1; }\n';
const PACKAGE_JSON = `${JSON.stringify({ name: "practice", private: true, scripts: { test: "bash test.sh" } }, null, 2)}\n`;

/**
 * Two quests on one sandbox: `setup` passes on any message (the agent's chance to commit
 * something), `greet` runs the template's test in the isolated verifier and counts commits.
 */
function sharedSandboxPack(run = "bash test.sh"): string {
  return makeWorkspace({
    "10-setup.yaml": [
      "version: 1",
      "id: setup",
      "title: Look around",
      "goal: Ask Pi anything.",
      "sandbox: sandboxes/shared",
      "checks:",
      "  - id: asked",
      "    type: event",
      "    match: { event: input }",
      "",
    ].join("\n"),
    "20-greet.yaml": [
      "version: 1",
      "id: greet",
      "title: Make the test pass",
      "goal: Make the test pass by creating greeting.txt.",
      "requires: [setup]",
      "sandbox: sandboxes/shared",
      "checks:",
      "  - id: test-passes",
      "    type: command",
      `    run: ${run}`,
      "  - id: one-commit",
      "    type: git",
      "    assert: commit_count",
      "    count: { min: 1 }",
      "",
    ].join("\n"),
    "sandboxes/shared/test.sh": TEST_SH,
    "sandboxes/shared/package.json": PACKAGE_JSON,
    "sandboxes/shared/README.md": "# Practice\n",
  });
}

const sessions: QuestController[] = [];
afterEach(async () => {
  for (const controller of sessions.splice(0)) await controller.dispose();
  removeWorkspaces();
});

type Learner = {
  controller: QuestController;
  agentDir: string;
  ui: FakeQuestUi;
  workspace: string;
  dataDir: string;
  progress(): Progress;
  result(): QuestResult | undefined;
  check(id: string): QuestResult["checks"][number] | undefined;
};

/**
 * The extension's session over an empty folder and a throwaway agent dir, with the pack given;
 * `again` opens a later session on an earlier one's folder and agent dir.
 */
async function openLearner(pack: string, again?: Learner): Promise<Learner> {
  const workspace = again?.workspace ?? realpathSync(makeWorkspace());
  const agentDir = again?.agentDir ?? realpathSync(makeWorkspace());
  const gitHome = makeWorkspace({ ".gitconfig": "" });
  const ui = fakeQuestUi();
  const opened = await openQuestSession({
    cwd: workspace,
    env: {
      PATH: process.env.PATH ?? "/usr/bin:/bin",
      HOME: gitHome,
      GIT_CONFIG_GLOBAL: join(gitHome, ".gitconfig"),
      GIT_CONFIG_NOSYSTEM: "1",
      PI_QUESTS_PACK: pack,
      PI_CODING_AGENT_DIR: agentDir,
      PI_QUESTS_NPM_CLI: NPM_CLI,
    },
    ui,
    sessionId: () => "session-1",
    debounceMs: 5,
  });
  if (!opened.ok) throw new Error(opened.message);
  sessions.push(opened.controller);
  await opened.controller.idle();
  const dataDir = join(agentDir, "quests");
  const progress = (): Progress =>
    JSON.parse(readFileSync(join(workspaceHome(dataDir, workspace), "progress.json"), "utf8"));
  const result = () => progress().lastResult as QuestResult | undefined;
  return {
    controller: opened.controller,
    agentDir,
    ui,
    workspace,
    dataDir,
    progress,
    result,
    check: (id) => result()?.checks.find((check) => check.id === id),
  };
}

/** The first quest done: a message and a finished run, so the second quest activates on the sandbox. */
async function finishSetup(learner: Learner): Promise<void> {
  learner.controller.record(inputEvent({ content: "hi Pi" }));
  learner.controller.record(agentEndEvent({ assistantTurns: 1 }));
  await learner.controller.idle();
  expect(learner.progress().active?.questId).toBe("greet");
}

/** Runs `/quest check` and asserts the learner's files (and .git) were left exactly as they were. */
async function checkLeavingFilesAlone(learner: Learner): Promise<void> {
  const before = snapshot(learner.workspace);
  await learner.controller.command("check");
  expectCleanAfter(learner.workspace, before, learner.dataDir);
}

const head = (workspace: string) => git(workspace, "rev-parse", "HEAD").trim();

/** The agent starts history over: a new root commit holding an `exit 0` test, the old branch deleted. */
function rewriteHistory(workspace: string): void {
  const old = git(workspace, "symbolic-ref", "--short", "HEAD").trim();
  git(workspace, "checkout", "-q", "--orphan", "fresh");
  writeFileSync(join(workspace, "test.sh"), "#!/bin/bash\nexit 0\n");
  git(workspace, "add", "-A");
  git(workspace, "commit", "-q", "-m", "Start over");
  git(workspace, "branch", "-q", "-D", old);
}

describe("oracles of a sandbox quest come from the template's own commit", () => {
  it("a test rewritten to `exit 0` and committed during an earlier quest on the shared sandbox does not pass the next quest", async () => {
    const learner = await openLearner(sharedSandboxPack());
    const template = learner.progress().sandbox?.baseline ?? "";
    expect(template).toMatch(/^[0-9a-f]{40}$/);
    // The agent, while quest 1 is active: the test now always passes, and the lie is committed.
    writeFileSync(join(learner.workspace, "test.sh"), "#!/bin/bash\nexit 0\n");
    git(learner.workspace, "commit", "-q", "-am", "Simplify the test");
    const rewritten = head(learner.workspace);
    await finishSetup(learner);

    const active = learner.progress().active;
    expect(active).toMatchObject({ questId: "greet", baseline: rewritten, oracleBaseline: template });
    await checkLeavingFilesAlone(learner);
    expect(learner.check("test-passes")).toMatchObject({
      status: "fail",
      evidence: { summary: TEST_PUT_BACK, isolation: "worktree" },
    });
    expect(JSON.stringify(learner.check("test-passes")?.evidence)).toContain("greeting.txt must say hello");
    expect(learner.result()?.status).not.toBe("pass");
    expect(readFileSync(join(learner.workspace, "test.sh"), "utf8")).toBe("#!/bin/bash\nexit 0\n");
  });

  it("a package script rewritten to `exit 0` and committed during an earlier quest does not pass `npm test`", async () => {
    const learner = await openLearner(sharedSandboxPack("npm test"));
    const manifest = join(learner.workspace, "package.json");
    const scripts = { name: "practice", private: true, scripts: { test: "exit 0" } };
    writeFileSync(manifest, `${JSON.stringify(scripts, null, 2)}\n`);
    git(learner.workspace, "commit", "-q", "-am", "Faster tests");
    await finishSetup(learner);

    await checkLeavingFilesAlone(learner);
    const check = learner.check("test-passes");
    expect(check?.status).toBe("fail");
    expect(check?.evidence.summary).toMatch(/^exit code 1, expected = 0/);
    expect(JSON.stringify(check?.evidence)).toContain("greeting.txt must say hello");
  });

  it("the honest solution still passes the next quest, its work committed during the earlier quest", async () => {
    const learner = await openLearner(sharedSandboxPack());
    writeFileSync(join(learner.workspace, "greeting.txt"), "hello world\n");
    git(learner.workspace, "add", "greeting.txt");
    git(learner.workspace, "commit", "-q", "-m", "Greet early");
    await finishSetup(learner);
    await checkLeavingFilesAlone(learner);
    expect(learner.check("test-passes")).toMatchObject({ status: "pass" });
    // The commit came before this quest started: it is not this quest's commit.
    expect(learner.check("one-commit")?.status).toBe("fail");

    git(learner.workspace, "commit", "-q", "--allow-empty", "-m", "Quest 2's own commit");
    await learner.controller.command("check");
    expect(learner.progress().completed.greet).toBeDefined();
  });

  it("commit_count counts from the quest's activation, while the tests still come from the template", async () => {
    const learner = await openLearner(sharedSandboxPack());
    writeFileSync(join(learner.workspace, "test.sh"), "#!/bin/bash\nexit 0\n");
    git(learner.workspace, "commit", "-q", "-am", "Simplify the test");
    await finishSetup(learner);
    const activatedAt = head(learner.workspace).slice(0, 12);
    await learner.controller.command("check");
    expect(learner.check("one-commit")).toMatchObject({
      status: "fail",
      evidence: { summary: `0 commit(s) since ${activatedAt}; expected min 1` },
    });
    expect(learner.check("test-passes")?.status).toBe("fail");

    writeFileSync(join(learner.workspace, "greeting.txt"), "hello\n");
    git(learner.workspace, "add", "greeting.txt");
    git(learner.workspace, "commit", "-q", "-m", "Greet");
    await learner.controller.command("check");
    expect(learner.progress().completed.greet).toBeDefined();
  });

  it("history rewritten to a new root holding the `exit 0` test leaves the template commit unreachable but present: it is still the oracle", async () => {
    const learner = await openLearner(sharedSandboxPack());
    const template = learner.progress().sandbox?.baseline ?? "";
    // The agent: a fresh history whose only commit has the rewritten test; the old branch deleted.
    rewriteHistory(learner.workspace);
    expect(git(learner.workspace, "branch", "--contains", template).trim()).toBe("");
    expect(git(learner.workspace, "cat-file", "-t", template).trim()).toBe("commit");
    await finishSetup(learner);

    await checkLeavingFilesAlone(learner);
    expect(learner.check("test-passes")).toMatchObject({
      status: "fail",
      evidence: { summary: TEST_PUT_BACK },
    });
  });

  it("history rewritten and garbage-collected so the template commit is gone: the check is pending and says why, never run against HEAD", async () => {
    const learner = await openLearner(sharedSandboxPack());
    const template = learner.progress().sandbox?.baseline ?? "";
    rewriteHistory(learner.workspace);
    git(learner.workspace, "reflog", "expire", "--expire=now", "--all");
    git(learner.workspace, "gc", "-q", "--prune=now");
    expect(() => git(learner.workspace, "cat-file", "-t", template)).toThrow();
    await finishSetup(learner);

    await checkLeavingFilesAlone(learner);
    const check = learner.check("test-passes");
    expect(check?.status).toBe("pending");
    expect(check?.evidence.summary).toContain(`the sandbox template's commit ${template}`);
    expect(check?.evidence.summary).toContain("is no longer in this repository");
    // The quest cannot pass: its command check is pending (and no commit is this quest's yet).
    expect(learner.result()?.status).not.toBe("pass");
  });

  it("a new `.git` (rm -rf .git, git init, the `exit 0` test committed) loses the template commit: pending, never the new HEAD", async () => {
    const learner = await openLearner(sharedSandboxPack());
    const template = learner.progress().sandbox?.baseline ?? "";
    rmSync(join(learner.workspace, ".git"), { recursive: true, force: true });
    writeFileSync(join(learner.workspace, "test.sh"), "#!/bin/bash\nexit 0\n");
    git(learner.workspace, "init", "-q");
    git(learner.workspace, "add", "-A");
    git(learner.workspace, "commit", "-q", "-m", "Fresh start");
    await finishSetup(learner);

    await checkLeavingFilesAlone(learner);
    const check = learner.check("test-passes");
    expect(check?.status).toBe("pending");
    expect(check?.evidence.summary).toContain(`the sandbox template's commit ${template}`);
  });

  it("the pack's template folder edited to `exit 0` after the sandbox was set up changes nothing", async () => {
    const pack = sharedSandboxPack();
    const learner = await openLearner(pack);
    writeFileSync(join(pack, "sandboxes/shared/test.sh"), "#!/bin/bash\nexit 0\n");
    await finishSetup(learner);
    await checkLeavingFilesAlone(learner);
    expect(learner.check("test-passes")).toMatchObject({
      status: "fail",
      evidence: { summary: "exit code 1, expected = 0" },
    });
  });

  it("/quest reset after committing the rewritten test keeps the template commit as the oracle", async () => {
    const learner = await openLearner(sharedSandboxPack());
    const template = learner.progress().sandbox?.baseline ?? "";
    writeFileSync(join(learner.workspace, "test.sh"), "#!/bin/bash\nexit 0\n");
    git(learner.workspace, "commit", "-q", "-am", "Simplify the test");
    learner.ui.answer(true);
    await learner.controller.command("reset");
    expect(learner.progress().active).toMatchObject({ questId: "setup", oracleBaseline: template });
    await finishSetup(learner);
    expect(learner.progress().active?.oracleBaseline).toBe(template);
    await checkLeavingFilesAlone(learner);
    expect(learner.check("test-passes")?.status).toBe("fail");
  });

  it("a restart after committing the rewritten test (a later Pi session) still restores the template's test", async () => {
    const pack = sharedSandboxPack();
    const first = await openLearner(pack);
    writeFileSync(join(first.workspace, "test.sh"), "#!/bin/bash\nexit 0\n");
    git(first.workspace, "commit", "-q", "-am", "Simplify the test");
    await finishSetup(first);
    await first.controller.dispose();
    git(first.workspace, "commit", "-q", "--allow-empty", "-m", "Between sessions");

    const later = await openLearner(pack, first);
    await checkLeavingFilesAlone(later);
    expect(later.check("test-passes")).toMatchObject({
      status: "fail",
      evidence: { summary: TEST_PUT_BACK },
    });
    expect(later.check("one-commit")?.status).toBe("pass");
    expect(later.result()?.status).toBe("fail");
  });

  it("a passing receipt from a run against a later commit as oracle is not reused for the template's oracle", async () => {
    const workspace = makeRepo({ "test.sh": TEST_SH });
    const template = head(workspace);
    writeFileSync(join(workspace, "test.sh"), "#!/bin/bash\nexit 0\n");
    git(workspace, "commit", "-q", "-am", "Simplify the test");
    const rewritten = head(workspace);
    const dataDir = dataDirOutside();
    const file = QuestFileSchema.parse({
      version: 1,
      id: "greet",
      title: "Greet",
      goal: "Make the test pass.",
      checks: [{ id: "test-passes", type: "command", run: "bash test.sh" }],
    });
    const quest: Quest = {
      ...file,
      checks: file.checks.map((check) => ({ ...check, id: check.id ?? "test-passes" })),
      source: join(workspace, "greet.yaml"),
    };
    const evaluatorAt = (oracleBaseline: string) =>
      createQuestEvaluator({
        quest,
        workspace,
        baseline: rewritten,
        oracleBaseline,
        dataDir,
        writer: "pi",
        agentDir: dataDir,
        home: dataDir,
        env: { PATH: process.env.PATH ?? "/usr/bin:/bin", PI_QUESTS_NPM_CLI: NPM_CLI },
        confirmed: () => undefined,
      });
    const before = snapshot(workspace);
    // What an older pinning (or a forged activation) would give: the rewritten commit as oracle.
    const forged = await (await evaluatorAt(rewritten))({ events: [] });
    expect(forged.status).toBe("pass");
    const honest = await (await evaluatorAt(template))({ events: [] });
    expect(honest.checks[0]).toMatchObject({
      status: "fail",
      evidence: { summary: TEST_PUT_BACK },
    });
    expect(JSON.stringify(honest.checks[0]?.evidence)).not.toMatch(/not run again/);
    expectCleanAfter(workspace, before, dataDir);
  });
});

describe("pi-quests check --events: the activation's baselines", () => {
  const QUEST = [
    "version: 1",
    "id: greet",
    "title: Greet",
    "goal: Make the test pass.",
    "checks:",
    "  - id: test-passes",
    "    type: command",
    "    run: bash test.sh",
    "  - id: one-commit",
    "    type: git",
    "    assert: commit_count",
    "    count: { min: 1 }",
    "",
  ].join("\n");

  /** A workspace at its template commit, a quest file beside it, and an events log of its activation. */
  function recorded(options: { sandbox: boolean }) {
    const workspace = makeRepo({ "test.sh": TEST_SH });
    const template = head(workspace);
    const files = makeWorkspace({ "greet.yaml": QUEST });
    const events = join(files, "events.jsonl");
    const payload = {
      quest: "greet",
      baseline: template,
      ...(options.sandbox ? { oracleBaseline: template } : {}),
    };
    writeFileSync(events, `${JSON.stringify({ name: QUEST_ACTIVATED_EVENT, seq: 0, payload })}\n`);
    return { workspace, template, quest: join(files, "greet.yaml"), events, dataDir: dataDirOutside() };
  }

  const checkArgs = (r: ReturnType<typeof recorded>, ...extra: string[]) => [
    "check",
    r.quest,
    "--cwd",
    r.workspace,
    "--events",
    r.events,
    "--data-dir",
    r.dataDir,
    "--json",
    ...extra,
  ];

  it("a test rewritten to `exit 0` and committed after a sandbox quest's recorded activation does not pass", async () => {
    const r = recorded({ sandbox: true });
    writeFileSync(join(r.workspace, "test.sh"), "#!/bin/bash\nexit 0\n");
    git(r.workspace, "commit", "-q", "-am", "Simplify the test");
    const before = snapshot(r.workspace);
    const run = await runCli(checkArgs(r, "--baseline", "HEAD"), { env: { PI_QUESTS_NPM_CLI: NPM_CLI } });
    expect(run.exitCode).toBe(1);
    const result = JSON.parse(run.stdout);
    expect(result.checks[0]).toMatchObject({
      status: "fail",
      evidence: { summary: TEST_PUT_BACK },
    });
    expectCleanAfter(r.workspace, before, r.dataDir);
  });

  it("a commit made after activation, checked with the default baseline on a moved HEAD: the activation's commit is used and a warning names both", async () => {
    const r = recorded({ sandbox: false });
    writeFileSync(join(r.workspace, "greeting.txt"), "hello\n");
    git(r.workspace, "add", "greeting.txt");
    git(r.workspace, "commit", "-q", "-m", "Greet");
    const moved = head(r.workspace);
    const run = await runCli(checkArgs(r), { env: { PI_QUESTS_NPM_CLI: NPM_CLI } });
    const warning = `HEAD ${moved} moved since the events log records quest greet activated at ${r.template}`;
    expect(run.stderr).toContain(`pi-quests check: ${warning}`);
    const result = JSON.parse(run.stdout);
    expect(result.notes).toEqual([expect.stringContaining(warning)]);
    // Counted from the recorded activation, the learner's commit is the quest's work.
    expect(result.checks[1]).toMatchObject({ id: "one-commit", status: "pass" });
    expect(run.exitCode).toBe(0);
  });

  it("an explicit --baseline HEAD on a moved HEAD wins, and says that commits since the activation are not counted", async () => {
    const r = recorded({ sandbox: false });
    writeFileSync(join(r.workspace, "greeting.txt"), "hello\n");
    git(r.workspace, "add", "greeting.txt");
    git(r.workspace, "commit", "-q", "-m", "Greet");
    const moved = head(r.workspace);
    const run = await runCli(checkArgs(r, "--baseline", "HEAD"), { env: { PI_QUESTS_NPM_CLI: NPM_CLI } });
    expect(run.stderr).toContain(
      `pi-quests check: --baseline HEAD is HEAD ${moved}, which moved since the events log records quest greet activated at ${r.template}`,
    );
    const result = JSON.parse(run.stdout);
    expect(result.notes).toHaveLength(1);
    expect(result.checks[1]).toMatchObject({ id: "one-commit", status: "fail" });
    expect(run.exitCode).toBe(1);
  });

  it("an explicit --baseline REV naming the activation's commit gives no warning; a log naming no commit here is refused with a sentence", async () => {
    const r = recorded({ sandbox: false });
    const same = await runCli(checkArgs(r, "--baseline", r.template), {
      env: { PI_QUESTS_NPM_CLI: NPM_CLI },
    });
    expect(same.stderr).toBe("");
    expect(JSON.parse(same.stdout)).not.toHaveProperty("notes");

    const foreign = "f".repeat(40);
    const payload = { quest: "greet", baseline: foreign };
    writeFileSync(r.events, `${JSON.stringify({ name: QUEST_ACTIVATED_EVENT, seq: 0, payload })}\n`);
    const refused = await runCli(checkArgs(r));
    expect(refused.exitCode).toBe(3);
    expect(refused.stderr).toBe(
      `pi-quests check: the events log records quest greet activated at ${foreign}, which is not a commit in this workspace; give --baseline REV to choose one`,
    );
  });
});
/** The summary of the check when the rewritten test.sh was put back from the template: it says so. */
const TEST_PUT_BACK = "exit code 1, expected = 0; 1 change to a protected file not applied (test.sh)";
