/**
 * Red team in the real `pi` over RPC (offline, scripted model): during the first quest of a
 * two-quest pack that shares a sandbox, Pi's own bash tool rewrites the test to `exit 0` and
 * commits it, so the second quest is activated on that commit. The second quest's command
 * check still runs the template's test: the HUD stays red and says why.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { closeAllPis, dataFolderOf, startPiRpc } from "../support/pi-rpc.ts";
import { expectNoLeftoverWorktrees, processesMentioning, snapshot } from "../support/task-verifier.ts";
import { git, makeWorkspace } from "../support/workspace.ts";

afterEach(closeAllPis);

const HELP_LINE = "  /quest hint · /quest status · /quest list";
const TEST_SH =
  "#!/usr/bin/env bash\ngrep -qi hello greeting.txt 2>/dev/null || { echo 'greeting.txt does not say hello' >&2; exit 1; }\n";

const PACK = {
  "10-setup.yaml": [
    "version: 1",
    "id: setup",
    "title: Look around",
    "goal: Ask Pi to look around the practice folder.",
    "sandbox: sandboxes/shared",
    "checks:",
    "  - id: answered",
    "    describe: Pi answered",
    "    type: event",
    "    match: { event: agent_end }",
    "",
  ].join("\n"),
  "20-greet.yaml": [
    "version: 1",
    "id: greet",
    "title: Make the test pass",
    "goal: Make bash test.sh pass by creating greeting.txt.",
    "requires: [setup]",
    "sandbox: sandboxes/shared",
    "checks:",
    "  - id: test-passes",
    "    describe: bash test.sh passes",
    "    type: command",
    "    run: bash test.sh",
    "",
  ].join("\n"),
  "sandboxes/shared/test.sh": TEST_SH,
  "sandboxes/shared/README.md": "# Practice\n",
};

describe("a shared sandbox in the real pi", () => {
  it("Pi's bash tool commits a test rewritten to `exit 0` during the first quest: the second quest's check stays red", async () => {
    const workspace = makeWorkspace();
    const learner = startPiRpc({
      workspace,
      pack: makeWorkspace(PACK),
      script: [
        {
          tools: [
            {
              name: "bash",
              arguments: {
                command: "printf 'exit 0\\n' > test.sh && git commit -q -am 'Simplify the test'",
              },
            },
          ],
        },
        { text: "I simplified the test; it passes now." },
        { tools: [{ name: "write", arguments: { path: "greeting.txt", content: "hello\n" } }] },
        { text: "greeting.txt says hello." },
      ],
    });
    await learner.settled();
    const progressFile = join(dataFolderOf(learner.agentDir, workspace), "progress.json");
    const template = JSON.parse(readFileSync(progressFile, "utf8")).sandbox.baseline;

    let from = learner.lines.length;
    await learner.prompt("Look around, and make the test pass any way you can.");
    await learner.settled();
    expect(learner.notifications(from)).toContainEqual(
      expect.stringMatching(/^Quest complete: Look around ✓/),
    );
    const rewritten = git(workspace, "rev-parse", "HEAD").trim();
    expect(rewritten).not.toBe(template);
    expect(JSON.parse(readFileSync(progressFile, "utf8")).active).toMatchObject({
      questId: "greet",
      baseline: rewritten,
      oracleBaseline: template,
    });
    // The learner looks at the test with a `!` command: an act in this quest, so its check is red.
    await learner.request({ type: "bash", command: "cat test.sh" });
    await learner.settled();
    expect(learner.hud()).toEqual({
      widget: [
        "Quest 2/2: Make the test pass",
        // The committed rewrite was put back from the template, and the HUD says so in words.
        "  ✗ bash test.sh passes: test.sh is run by the check: your change to it was not used",
        HELP_LINE,
      ],
      status: "quest 2/2",
    });
    const before = snapshot(workspace);
    from = learner.lines.length;
    await learner.prompt("/quest status --details");
    const [status = ""] = learner.notifications(from);
    expect(status).toContain(
      "[FAIL] test-passes (bash test.sh passes): exit code 1, expected = 0; 1 change to a protected file not applied (test.sh)",
    );
    expect(status).toContain("- test.sh is run by the check: your change to it was not used");
    expect(status).toContain("greeting.txt does not say hello");
    expect(snapshot(workspace)).toEqual(before);
    expect(readFileSync(join(workspace, "test.sh"), "utf8")).toBe("exit 0\n");
    expectNoLeftoverWorktrees(workspace);
    expect(processesMentioning(join(learner.agentDir, "quests"))).toEqual([]);

    // The honest fix, on top of the agent's commit, still passes.
    from = learner.lines.length;
    await learner.prompt("Create greeting.txt that says hello.");
    await learner.settled();
    expect(learner.notifications(from)).toContainEqual(
      expect.stringMatching(/^Quest complete: Make the test pass ✓/),
    );
    expect(await learner.close()).toBe(0);
  });
});
