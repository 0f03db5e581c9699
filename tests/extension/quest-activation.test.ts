import { describe, expect, it } from "vitest";
import { questRunsInTaskVerifier } from "../../src/extension/quest-activation.ts";
import { type Quest, QuestFileSchema } from "../../src/verifier/quest.ts";

function quest(checks: unknown[]): Quest {
  const file = QuestFileSchema.parse({ version: 1, id: "q", title: "Q", goal: "g", checks });
  return {
    ...file,
    checks: file.checks.map((check, index) => ({ ...check, id: check.id ?? `check-${index + 1}` })),
    source: "/pack/q.yaml",
  };
}

describe("which quests pin node_modules at activation", () => {
  it("a quest with a command check in the isolated task verifier", () => {
    expect(
      questRunsInTaskVerifier(quest([{ type: "command", run: "npm test", isolation: "worktree" }])),
    ).toBe(true);
  });

  it("not a quest whose command checks run in the workspace, nor one without command checks", () => {
    expect(questRunsInTaskVerifier(quest([{ type: "command", run: "npm test", isolation: "none" }]))).toBe(
      false,
    );
    expect(questRunsInTaskVerifier(quest([{ type: "event", match: { event: "input" } }]))).toBe(false);
  });
});
