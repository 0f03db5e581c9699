import { describe, expect, it } from "vitest";
import {
  inLearnerPath,
  inLearnerPaths,
  inRepositoryPath,
  inRepositoryPaths,
} from "../../src/verifier/learner-paths.ts";
import type { QuestResult } from "../../src/verifier/results.ts";

const WORKTREE =
  "/home/me/.pi/agent/quests/workspaces/4cc2c9b94f61739b/worktrees/8edc704cc639b093ab7187bc555d988f";
const PLACE = { worktree: WORKTREE, repository: "/home/me/project" };

describe("a worktree path in what a run printed", () => {
  it("is the learner's file, relative to the workspace: stack traces, messages, a pwd", () => {
    const printed = [
      `    at Object.<anonymous> (${WORKTREE}/test.js:2:8)`,
      `ls: cannot access '${WORKTREE}/src/missing.js': No such file or directory`,
      WORKTREE,
      `file://${WORKTREE}/src/a.mjs:3`,
    ].join("\n");
    expect(inLearnerPath(printed, PLACE, "/home/me/project").split("\n")).toEqual([
      "    at Object.<anonymous> (test.js:2:8)",
      "ls: cannot access 'src/missing.js': No such file or directory",
      ".",
      "src/a.mjs:3",
    ]);
  });

  it("from a workspace inside the repository, is relative to that folder", () => {
    expect(inLearnerPath(`${WORKTREE}/lib/x.js and ${WORKTREE}/app`, PLACE, "/home/me/project/app")).toBe(
      "../lib/x.js and .",
    );
  });

  it("another worktree, or a path that only starts like it, is left as it is", () => {
    const other = `${WORKTREE.slice(0, -1)}0/test.js ${WORKTREE}00/test.js /tmp/x`;
    expect(inLearnerPath(other, PLACE, "/home/me/project")).toBe(other);
  });
});

describe("a result in the learner's paths", () => {
  const result: QuestResult = {
    quest: "q",
    status: "fail",
    counts: { passed: 0, failed: 2, pending: 0 },
    checks: [
      {
        id: "tests",
        type: "command",
        status: "fail",
        evidence: {
          kind: "command",
          summary: `could not start q/tests with bash in ${WORKTREE}/sub`,
          script: "q/tests",
          cwd: "/home/me/project",
          isolation: "worktree",
          output: `Error at ${WORKTREE}/test.js:1\n`,
          verification: {
            runDir: "/home/me/.pi/agent/quests/workspaces/4cc2c9b94f61739b/runs/r1",
            worktree: WORKTREE,
            repository: "/home/me/project",
            baseline: "b",
            head: "h",
            patchSha256: "p",
            patchBytes: 0,
            restored: [],
            manifestsMerged: [],
            removedConfigs: [],
            cleanup: { ok: true },
          },
        },
      },
      {
        id: "in-place",
        type: "command",
        status: "fail",
        evidence: {
          kind: "command",
          summary: `exit code 1 in ${WORKTREE}`,
          script: "q/in-place",
          cwd: "/home/me/project",
          isolation: "none",
          output: `${WORKTREE}\n`,
        },
      },
    ],
  };

  it("maps the summary and the output of a check that ran in a worktree; the rest of its evidence and other checks are as they were", () => {
    const before = structuredClone(result);
    const shown = inLearnerPaths(result, "/home/me/project");
    expect(shown.checks[0]?.evidence).toMatchObject({
      summary: "could not start q/tests with bash in sub",
      output: "Error at test.js:1\n",
      verification: {
        worktree: WORKTREE,
        runDir: "/home/me/.pi/agent/quests/workspaces/4cc2c9b94f61739b/runs/r1",
      },
    });
    // No worktree in its evidence: nothing to map from.
    expect(shown.checks[1]).toEqual(result.checks[1]);
    expect(result).toEqual(before);
  });
});

describe("a worktree path named at the source (the task verifier's outcome)", () => {
  const place = { worktrees: [WORKTREE], repository: "/home/me/project" };

  it("is the same file under the repository, plain or as a file:// URL, which stays one", () => {
    const printed = [
      `    at Object.<anonymous> (${WORKTREE}/test.js:2:8)`,
      WORKTREE,
      `file://${WORKTREE}/src/a.mjs:3`,
      `${WORKTREE}00/test.js ${WORKTREE.slice(0, -1)}0/x`,
    ].join("\n");
    expect(inRepositoryPath(printed, place).split("\n")).toEqual([
      "    at Object.<anonymous> (/home/me/project/test.js:2:8)",
      "/home/me/project",
      "file:///home/me/project/src/a.mjs:3",
      `${WORKTREE}00/test.js ${WORKTREE.slice(0, -1)}0/x`,
    ]);
  });

  it("also by another name of the worktree, and in an encoded URL (a space in the data dir)", () => {
    const spaced = "/home/me/my data/quests/workspaces/k/worktrees/w";
    const printed = `file:///home/me/my%20data/quests/workspaces/k/worktrees/w/t.mjs:1 and /real/w/t.mjs`;
    expect(
      inRepositoryPath(printed, { worktrees: [spaced, "/real/w"], repository: "/home/me/my project" }),
    ).toBe("file:///home/me/my%20project/t.mjs:1 and /home/me/my project/t.mjs");
  });

  it("maps a finished run's report, stdout and stderr, and a run that did not finish its message", () => {
    const done = inRepositoryPaths(
      {
        ok: true,
        passed: false,
        exitCode: 1,
        report: `${WORKTREE}/a\n`,
        stdout: `${WORKTREE}/b`,
        stderr: `${WORKTREE}/c`,
        truncated: false,
      },
      place,
    );
    expect(done).toMatchObject({
      report: "/home/me/project/a\n",
      stdout: "/home/me/project/b",
      stderr: "/home/me/project/c",
    });
    const stopped = inRepositoryPaths(
      {
        ok: false,
        kind: "unavailable",
        message: `could not start in ${WORKTREE}/sub`,
        report: "",
        truncated: false,
      },
      place,
    );
    expect(stopped).toMatchObject({ message: "could not start in /home/me/project/sub" });
  });

  it("reads, in /quest status, relative to the workspace like a worktree path", () => {
    expect(
      inLearnerPath(
        "/home/me/project/test.js:2 and file:///home/me/project/app/x.mjs",
        PLACE,
        "/home/me/project/app",
      ),
    ).toBe("../test.js:2 and x.mjs");
  });
});
