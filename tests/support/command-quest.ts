/**
 * A quest with one command check, as the loader makes it, and the runtime's evaluator of it
 * (task verifier and receipts, as the extension builds it), for tests of whole evaluations.
 */
import { join } from "node:path";
import {
  createQuestEvaluator,
  type QuestEvaluator,
  type QuestEvaluatorOptions,
} from "../../src/runtime/quest-evaluator.ts";
import { type Quest, QuestFileSchema } from "../../src/verifier/quest.ts";
import { git } from "./workspace.ts";

export function commandQuest(run: string): Quest {
  const file = QuestFileSchema.parse({
    version: 1,
    id: "add",
    title: "Add",
    goal: "Fix add.",
    checks: [{ id: "tests", type: "command", run }],
  });
  const checks = file.checks.map((check, index) => ({ ...check, id: check.id ?? `check-${index + 1}` }));
  return { ...file, checks, source: "/pack/add.yaml" };
}

/** The evaluator of `commandQuest(run)` in `workspace`, pinned to its HEAD, evidence in `dataDir`. */
export function evaluatorFor(
  workspace: string,
  dataDir: string,
  run: string,
  more: Partial<QuestEvaluatorOptions> = {},
): Promise<QuestEvaluator> {
  return createQuestEvaluator({
    quest: commandQuest(run),
    workspace,
    baseline: git(workspace, "rev-parse", "HEAD").trim(),
    dataDir,
    writer: "pi",
    agentDir: join(dataDir, "agent"),
    home: dataDir,
    env: { PATH: process.env.PATH ?? "/usr/bin:/bin" },
    confirmed: () => undefined,
    ...more,
  });
}
