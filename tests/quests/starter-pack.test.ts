/**
 * The starter pack (fixtures/packs/starter, the copy of what quests/ held before the curriculum),
 * played in the real pi with a scripted model, each quest checked from the session file Pi wrote,
 * in a sandbox made the way `/quest start` makes it (the template copied into a fresh git
 * repository, the baseline committed).
 */
import { appendFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { runCli, STARTER_PACK } from "../support/cli.ts";
import { runPi } from "../support/pi.ts";
import { commitAll, makeWorkspace, removeWorkspaces } from "../support/workspace.ts";

afterEach(removeWorkspaces);

const PACK = STARTER_PACK;

async function check(quest: string, workspace: string, session?: string, baseline?: string) {
  const run = await runCli([
    "check",
    PACK,
    "--quest",
    quest,
    "--cwd",
    workspace,
    ...(session ? ["--session", session] : []),
    // The extension pins the baseline when the quest starts; the CLI is told it.
    ...(baseline ? ["--baseline", baseline] : []),
    "--json",
  ]);
  return { exitCode: run.exitCode, result: JSON.parse(run.stdout) };
}

/** A sandbox as `/quest start` makes one; returns it and its baseline commit. */
function sandboxWithBaseline(): { workspace: string; baseline: string } {
  const workspace = makeWorkspace({}, { copy: join(PACK, "sandboxes/first-file") });
  return { workspace, baseline: commitAll(workspace, "The first-file sandbox") };
}

const sandbox = () => sandboxWithBaseline().workspace;

describe("the starter pack", () => {
  it("lints clean", async () => {
    expect(await runCli(["lint", PACK])).toMatchObject({
      exitCode: 0,
      stdout: "3 quest(s) and 7 play(s) valid",
    });
  });

  it("first-prompt: red before any message, green once Pi answered one", async () => {
    const workspace = makeWorkspace();
    expect((await check("first-prompt", workspace)).exitCode).toBe(1);
    const session = await runPi(workspace, "Hi Pi, what can you do here?", [
      { text: "Hello! I can read, write and run things here." },
    ]);
    expect(await check("first-prompt", workspace, session)).toMatchObject({
      exitCode: 0,
      result: { status: "pass" },
    });
  });

  it("first-file: red when Pi only claims it, green when Pi writes hello.txt (checked in the isolated verifier)", async () => {
    const claimed = sandbox();
    const claim = await runPi(claimed, "Create hello.txt that says hello", [
      { text: "Done! hello.txt says hello." },
    ]);
    expect(await check("first-file", claimed, claim)).toMatchObject({
      exitCode: 1,
      result: { counts: { passed: 0, failed: 3 } },
    });

    const workspace = sandbox();
    const session = await runPi(workspace, "Create hello.txt that says hello", [
      { tools: [{ name: "write", arguments: { path: "hello.txt", content: "Hello, world!\n" } }] },
      { text: "I created hello.txt." },
    ]);
    const done = await check("first-file", workspace, session);
    expect(done).toMatchObject({ exitCode: 0, result: { status: "pass" } });
    expect(done.result.checks[2].evidence).toMatchObject({ isolation: "worktree", exitCode: 0 });

    // editable: [hello.txt]. A change elsewhere is not applied, and the evidence says so.
    appendFileSync(join(workspace, "README.md"), "An unrelated edit.\n");
    const withEdit = await check("first-file", workspace, session);
    expect(withEdit).toMatchObject({ exitCode: 0, result: { status: "pass" } });
    expect(withEdit.result.checks[2].evidence).toMatchObject({
      summary: "exit code 0; 1 change outside editable not applied (README.md)",
      verification: { leftOut: ["README.md"] },
    });
  });

  it("first-commit: red with hello.txt uncommitted, green once Pi commits it", async () => {
    const { workspace, baseline } = sandboxWithBaseline();
    await runPi(workspace, "Create hello.txt", [
      { tools: [{ name: "write", arguments: { path: "hello.txt", content: "Hello, world!\n" } }] },
      { text: "Created." },
    ]);
    // The diff since the baseline already holds the uncommitted hello.txt; the other two do not pass.
    const before = await check("first-commit", workspace);
    expect(before.exitCode).toBe(1);
    expect(before.result.checks.map((c: { id: string; status: string }) => [c.id, c.status])).toEqual([
      ["committed", "fail"],
      ["has-hello", "pass"],
      ["clean", "fail"],
    ]);
    await runPi(workspace, "Commit hello.txt with the message: Say hello", [
      {
        tools: [
          { name: "bash", arguments: { command: "git add hello.txt && git commit -q -m 'Say hello'" } },
        ],
      },
      { text: "Committed." },
    ]);
    const after = await check("first-commit", workspace, undefined, baseline);
    expect(after, JSON.stringify(after.result.checks)).toMatchObject({
      exitCode: 0,
      result: { status: "pass" },
    });
  });
});
