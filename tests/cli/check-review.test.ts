/** `pi-quests check` on a review check: `--review-model`, and no model. */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { runCli } from "../support/cli.ts";
import { makeWorkspace, removeWorkspaces } from "../support/workspace.ts";

afterEach(removeWorkspaces);

const QUEST = [
  "version: 2",
  "id: explain",
  "title: Explain",
  "goal: g",
  "checks:",
  "  - type: review",
  "    criterion: NOTES.md explains the bug",
  "",
].join("\n");

function setup() {
  const workspace = makeWorkspace({ "NOTES.md": "add() subtracts.\n" });
  const quest = join(makeWorkspace(), "q.yaml");
  writeFileSync(quest, QUEST);
  return { workspace, quest };
}

describe("pi-quests check with a review check", () => {
  it("refuses a --review-model that is not provider/id: exit 3", async () => {
    const { workspace, quest } = setup();
    const run = await runCli(["check", quest, "--cwd", workspace, "--review-model", "gpt"]);
    expect(run.exitCode).toBe(3);
    expect(run.stderr).toContain("--review-model gpt: give provider/model-id");
  });

  it("without a model, or with one Pi does not know, is pending and says how to get one: exit 2", async () => {
    const { workspace, quest } = setup();
    const none = await runCli(["check", quest, "--cwd", workspace, "--json"]);
    expect(none.exitCode).toBe(2);
    expect(JSON.parse(none.stdout).checks[0].evidence).toMatchObject({
      pending: "no_model",
      summary: expect.stringContaining("--review-model provider/id"),
    });
    const unknown = await runCli([
      "check",
      quest,
      "--cwd",
      workspace,
      "--review-model",
      "nowhere/none",
      "--json",
    ]);
    expect(unknown.exitCode).toBe(2);
    expect(JSON.parse(unknown.stdout).checks[0].evidence.summary).toContain(
      "nowhere/none is not known to Pi",
    );
  });
});
