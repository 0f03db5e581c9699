/**
 * Reports of `pi-quests test` built by hand for the reporters' tests: the starter pack's quests,
 * with results shaped as the engine makes them (src/verifier/results.ts, the check modules'
 * evidence), including a failing command whose output has terminal colors and `]]>`.
 */
import type { PlayReport, TestReport } from "../../../src/cli/plays/report.ts";
import type { QuestResult } from "../../../src/verifier/results.ts";

const ESC = String.fromCharCode(0x1b);

/** What the failing command printed: colors, a bell, a NUL, CDATA's end marker, a `#`. */
export const COLORED_OUTPUT = `${ESC}[31mFAIL${ESC}[0m hello.txt\u0007\u0000 says "bye" ]]> # not hello\r\n`;

export const FIRST_PROMPT_DONE: QuestResult = {
  quest: "first-prompt",
  status: "pass",
  counts: { passed: 2, failed: 0, pending: 0 },
  checks: [
    {
      id: "asked",
      type: "event",
      status: "pass",
      describe: "You sent Pi a prompt",
      evidence: { kind: "event", summary: "matching input event at seq 3", matched: 1, scanned: 9 },
    },
    {
      id: "answered",
      type: "event",
      status: "pass",
      describe: "Pi answered",
      evidence: { kind: "event", summary: "matching turn_end event at seq 8", matched: 1, scanned: 9 },
    },
  ],
};

export const FIRST_FILE_FAILING: QuestResult = {
  quest: "first-file",
  status: "fail",
  counts: { passed: 2, failed: 1, pending: 0 },
  checks: [
    {
      id: "wrote-it",
      type: "event",
      status: "pass",
      describe: "Pi wrote hello.txt with its write tool",
      evidence: { kind: "event", summary: "matching tool_result event at seq 6", matched: 1, scanned: 12 },
    },
    {
      id: "file-there",
      type: "file_exists",
      status: "pass",
      describe: "hello.txt exists",
      evidence: { kind: "file", summary: "hello.txt is a file", path: "hello.txt", found: "file" },
    },
    {
      id: "says-hello",
      type: "command",
      status: "fail",
      describe: "hello.txt says hello",
      evidence: {
        kind: "command",
        summary: "exit code 1, expected = 0",
        script: "first-file/says-hello",
        cwd: "/tmp/pi-quests-test-x/workspace",
        isolation: "worktree",
        containment: "pid-namespace",
        exitCode: 1,
        output: COLORED_OUTPUT,
        outputTruncated: false,
      },
    },
  ],
};

export const FIRST_FILE_DONE: QuestResult = {
  ...FIRST_FILE_FAILING,
  status: "pass",
  counts: { passed: 3, failed: 0, pending: 0 },
  checks: FIRST_FILE_FAILING.checks.map((check) =>
    check.id === "says-hello"
      ? { ...check, status: "pass", evidence: { ...check.evidence, summary: "exit code 0", exitCode: 0 } }
      : check,
  ) as QuestResult["checks"],
};

const play = (fields: Omit<PlayReport, "ok">): PlayReport => ({
  ...fields,
  ok: fields.outcome === fields.expected,
});

export const PROMPT_PASS = play({
  quest: "first-prompt",
  play: "pass",
  expected: "complete",
  outcome: "complete",
  durationMs: 1234,
  result: FIRST_PROMPT_DONE,
  containment: "pid-namespace",
});

/** A pass play that does not complete its quest: the command check fails. */
export const FILE_PASS_WRONG = play({
  quest: "first-file",
  play: "pass",
  expected: "complete",
  outcome: "not complete",
  reason: "first-file did not complete: says-hello failed",
  durationMs: 2051,
  result: FIRST_FILE_FAILING,
  containment: "pid-namespace",
});

/** A fail play that completes its quest anyway. */
export const FILE_CLAIM_WRONG = play({
  quest: "first-file",
  play: "fail-claim",
  expected: "not complete",
  outcome: "complete",
  reason: "first-file completed, though fail-claim expects it not to",
  durationMs: 1890,
  result: FIRST_FILE_DONE,
  containment: "process-group",
});

/** A play that could not be played to its end, and so has no result. */
export const COMMIT_ERROR = play({
  quest: "first-commit",
  play: "fail-uncommitted",
  expected: "not complete",
  outcome: "error",
  reason: 'the play ran out of model replies at step 2 (prompt "commit it")',
  durationMs: 45_000,
  containment: "pid-namespace",
});

/** Four plays (one ok, a wrong pass, a wrong fail, an error) and one unproven quest. */
export const MIXED: TestReport = {
  pack: "quests",
  plays: [PROMPT_PASS, FILE_PASS_WRONG, FILE_CLAIM_WRONG, COMMIT_ERROR],
  unproven: ["first-skill"],
  strict: false,
  piVersion: "1.6.0",
};

/** Every play ok, nothing unproven, no Pi version known. */
export const ALL_OK: TestReport = { pack: "./my-pack", plays: [PROMPT_PASS], unproven: [], strict: false };

/** Shard 2 of 3 of a run of three plays: one of them here, nothing unproven (shard 1 says those). */
export const SHARD_2_OF_3: TestReport = {
  ...ALL_OK,
  piVersion: "1.6.0",
  shard: {
    index: 2,
    count: 3,
    planned: ["first-prompt/pass", "first-file/pass", "first-file/fail-claim"],
    packDigest: "sha256:0123",
    piQuestsVersion: "0.9.0",
  },
};
