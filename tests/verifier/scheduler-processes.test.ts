import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { afterEach, describe, expect, it } from "vitest";
import { createNodeProbes } from "../../src/probes/index.ts";
import { processAlive } from "../../src/probes/os/process-group.ts";
import { evaluateQuest } from "../../src/verifier/evaluate.ts";
import type { QuestResult } from "../../src/verifier/results.ts";
import { createScheduler } from "../../src/verifier/scheduler.ts";
import { check } from "../support/checks.ts";
import { SELF } from "../support/host-pid.ts";
import { makeWorkspace, removeWorkspaces } from "../support/workspace.ts";

afterEach(removeWorkspaces);

describe("the scheduler with real processes", () => {
  it("dispose kills a running command's whole process group and waits for it", async () => {
    const workspace = makeWorkspace();
    const pids = join(workspace, "pids");
    // The script starts a grandchild, records both pids, then waits for ever.
    const longRunning = check({
      type: "command",
      isolation: "none",
      run: `${SELF}; echo $self > pids.tmp; sh -c '${SELF}; echo $self >> pids.tmp; mv pids.tmp pids; exec sleep 300' & wait`,
      timeout_ms: 600_000,
    });
    const results: QuestResult[] = [];
    const scheduler = createScheduler({
      evaluate: async (signal) => {
        results.push(
          await evaluateQuest(
            { id: "q", checks: [longRunning] },
            {
              probes: createNodeProbes(),
              events: [],
              paths: { workspace, agentDir: join(workspace, "agent"), home: workspace },
              questId: "q",
              signal,
            },
          ),
        );
      },
    });
    scheduler.manualCheck();
    for (let i = 0; i < 500 && !existsSync(pids); i++) await sleep(10);
    const [script, grandchild] = readFileSync(pids, "utf8").trim().split(/\s+/).map(Number);
    expect(processAlive(script ?? 0)).toBe(true);
    expect(processAlive(grandchild ?? 0)).toBe(true);

    await scheduler.dispose();

    expect(processAlive(script ?? 0)).toBe(false);
    expect(processAlive(grandchild ?? 0)).toBe(false);
    expect(results[0]?.checks[0]).toMatchObject({ status: "pending", evidence: { kind: "command" } });
    expect(results[0]?.checks[0]?.evidence.summary).toMatch(/^stopped: /);
  });
});
