/**
 * Red team: the verifier's own worktree, written by the agent. The worktree lives in the data
 * dir, which the learner's user can write, so a process the agent left in the background can
 * look for it and put the fix into its copy of the code (or a no-op into its test) after
 * pi-quests prepared it. Every file the check is given is recorded by lstat when git checks it
 * out and when the check starts; a change pi-quests did not make is never a pass.
 */
import { spawn } from "node:child_process";
import { afterEach, describe, expect, it } from "vitest";
import type { ScriptOutcome } from "../../src/verifier/probes.ts";
import { ADD_TEST, BUGGY_ADD, FIXED_ADD } from "../support/add-project.ts";
import { expectCleanAfter, makeRepo, request, snapshot, verifierFor } from "../support/task-verifier.ts";
import { removeWorkspaces } from "../support/workspace.ts";

const attackers: Array<ReturnType<typeof spawn>> = [];
afterEach(() => {
  for (const attacker of attackers.splice(0)) attacker.kill("SIGKILL");
  removeWorkspaces();
});

/** The agent's background process: waits for `wanted` in a worktree of the data dir, then writes the fix beside it. */
function leaveAttacker(dataDir: string, wanted: string): void {
  const script = [
    "while true; do",
    `  for f in $(find "${dataDir}" -path '*/worktrees/*/${wanted}' 2>/dev/null); do`,
    `    tree=\${f%/${wanted}}`,
    `    printf '%s' '${FIXED_ADD.trim()}' > "$tree/src/add.js"`,
    "    exit 0",
    "  done",
    "  sleep 0.005",
    "done",
  ].join("\n");
  attackers.push(spawn("bash", ["-c", script], { stdio: "ignore", detached: true }));
}

const notPass = (outcome: ScriptOutcome) => {
  expect(outcome.ok && outcome.passed).toBe(false);
  if (outcome.ok) throw new Error(`expected the run not to count, got exit ${outcome.exitCode}`);
  return outcome.message;
};

describe("the verifier's worktree written by another process", () => {
  it("the fix written into the worktree's copy of the code while the check runs: not a pass, and the evidence says which file changed", async () => {
    const workspace = makeRepo({ "src/add.js": BUGGY_ADD, "test/add.test.js": ADD_TEST });
    const before = snapshot(workspace);
    const { verifier, dataDir } = await verifierFor(workspace, {
      pin: [request(workspace, "touch started; sleep 1; node test/add.test.js", { timeoutMs: 20_000 })],
    });
    // The check marks that it started, then waits a little: the attacker writes in between.
    leaveAttacker(dataDir, "started");
    const outcome = await verifier.run(
      request(workspace, "touch started; sleep 1; node test/add.test.js", { timeoutMs: 20_000 }),
    );
    const message = notPass(outcome);
    expect(message).toMatch(/^files pi-quests gave the check changed while it ran \(src\/add\.js/);
    expect(outcome.report).toContain("PASS add");
    expectCleanAfter(workspace, before, dataDir);
  });

  it("the fix written into the worktree as soon as git checks it out: the check never counts", async () => {
    const workspace = makeRepo({ "src/add.js": BUGGY_ADD, "test/add.test.js": ADD_TEST });
    const before = snapshot(workspace);
    const { verifier, dataDir } = await verifierFor(workspace, {
      pin: [request(workspace, "sleep 0.5; node test/add.test.js")],
    });
    leaveAttacker(dataDir, "test/add.test.js");
    const outcome = await verifier.run(request(workspace, "sleep 0.5; node test/add.test.js"));
    // Before the check starts or while it runs, whichever the attacker hit: never a pass.
    expect(notPass(outcome)).toMatch(
      /changed (right after git checked them out|after git checked them out and before the check ran|while it ran) \(src\/add\.js/,
    );
    expectCleanAfter(workspace, before, dataDir);
  });

  it("a check that rewrites a file it was given is not a pass either: pi-quests cannot tell its write from another process's", async () => {
    const workspace = makeRepo({ "src/add.js": FIXED_ADD, "test/add.test.js": ADD_TEST, "notes.txt": "a\n" });
    const before = snapshot(workspace);
    const { verifier, dataDir } = await verifierFor(workspace, {
      pin: [request(workspace, "node test/add.test.js && echo b >> notes.txt")],
    });
    const outcome = await verifier.run(request(workspace, "node test/add.test.js && echo b >> notes.txt"));
    expect(notPass(outcome)).toContain("changed while it ran (notes.txt)");
    expectCleanAfter(workspace, before, dataDir);
  });

  it("honest: the fix in the workspace passes, and files the check adds (a cache, a build) are its own", async () => {
    const workspace = makeRepo({ "src/add.js": BUGGY_ADD, "test/add.test.js": ADD_TEST });
    const before = snapshot(workspace);
    const { verifier, dataDir } = await verifierFor(workspace, {
      pin: [request(workspace, "mkdir -p .cache && echo x > .cache/run && node test/add.test.js")],
    });
    const { writeFileSync } = await import("node:fs");
    writeFileSync(`${workspace}/src/add.js`, FIXED_ADD);
    const after = snapshot(workspace);
    const outcome = await verifier.run(
      request(workspace, "mkdir -p .cache && echo x > .cache/run && node test/add.test.js"),
    );
    expect(outcome.ok && outcome.passed).toBe(true);
    expectCleanAfter(workspace, after, dataDir);
    expect(after).not.toEqual(before);
  });
});
