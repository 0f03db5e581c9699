/** A complete receipt of a passed command check, for tests that write receipts by hand. */
import { hostname } from "node:os";
import { RECEIPT_SCHEMA, type Receipt } from "../../src/receipts/schema.ts";

export function sampleReceipt(fields: Partial<Receipt> & { id: string }): Receipt {
  return {
    schema: RECEIPT_SCHEMA,
    quest: "fix",
    check: "answer-fixed",
    attempt: 1,
    checkIdentity: "a".repeat(64),
    command: "bash check.sh",
    cwd: ".",
    workspace: "/work/learner",
    startedAt: "2030-01-01T00:00:00.000Z",
    endedAt: "2030-01-01T00:00:01.000Z",
    exitCode: 0,
    termination: "exit",
    provenance: {
      isolation: "worktree",
      runDir: null,
      baseline: null,
      head: null,
      patchSha256: null,
      host: { pid: process.pid, hostname: hostname(), bootId: null },
      tool: "pi-quests 0.2.0",
    },
    fingerprint: { algorithm: "git-blob-sha1+sha256", value: "c".repeat(64), entries: 3, bytes: 42 },
    note: null,
    state: "passed",
    result: { status: "pass", summary: "exit code 0", evidence: { kind: "command", summary: "exit code 0" } },
    ...fields,
  };
}
