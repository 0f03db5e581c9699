/**
 * A verification receipt: the record of one run of one check, on one snapshot of the workspace.
 * Versioned, so a reader can tell a receipt it understands from a legacy one. On disk each
 * receipt also carries a `seal` (src/core/seal.ts), which version 1 did not: a version 1
 * receipt is never trusted.
 */
import { z } from "zod";

export const RECEIPT_SCHEMA = "pi-quests.receipt/2";

export const RECEIPT_STATES = [
  "not_run",
  "running",
  "passed",
  "failed",
  "cancelled",
  "skipped",
  "stale",
] as const;
export type ReceiptState = (typeof RECEIPT_STATES)[number];

/**
 * How a run ended. A timeout is one of these, never a state: it cannot pass. `judged`: a review
 * came to a judgment the acceptance rules took (or refused).
 */
export const TERMINATIONS = [
  "exit",
  "signal",
  "timeout",
  "stopped",
  "unavailable",
  "interrupted",
  "judged",
] as const;
export type Termination = (typeof TERMINATIONS)[number];

export const FingerprintSchema = z.strictObject({
  /** Per file: git's blob id of the content (or link target); the whole: sha256 of the sorted list. */
  algorithm: z.literal("git-blob-sha1+sha256"),
  value: z.string().regex(/^[0-9a-f]{64}$/),
  entries: z.int().min(0),
  bytes: z.int().min(0),
});
export type Fingerprint = z.infer<typeof FingerprintSchema>;

export const ReceiptSchema = z.strictObject({
  schema: z.literal(RECEIPT_SCHEMA),
  id: z.string().min(1),
  quest: z.string().min(1),
  check: z.string().min(1),
  /** 1 for the first run of this check identity in this workspace, then 2, 3... */
  attempt: z.int().min(1),
  /** A stable hash of the normalized check definition and cwd, computed before redaction. */
  checkIdentity: z.string().regex(/^[0-9a-f]{64}$/),
  /** What ran: a command check's command (absent: written before reviews), or a review. */
  kind: z.enum(["command", "review"]).optional(),
  /** The command as persisted: secrets redacted (a review: `review: <criterion>`). */
  command: z.string(),
  /** Workspace-relative folder the command ran in ("." for the root). */
  cwd: z.string(),
  workspace: z.string().min(1),
  startedAt: z.iso.datetime(),
  endedAt: z.iso.datetime().nullable(),
  exitCode: z.int().nullable(),
  termination: z.enum(TERMINATIONS).nullable(),
  provenance: z.strictObject({
    /** Who ran it: the isolated verifier, in place, or (a review) on a snapshot of the workspace. */
    isolation: z.enum(["worktree", "none", "snapshot"]),
    runDir: z.string().nullable(),
    baseline: z.string().nullable(),
    head: z.string().nullable(),
    patchSha256: z.string().nullable(),
    host: z.strictObject({ pid: z.int(), hostname: z.string(), bootId: z.string().nullable() }),
    tool: z.string(),
  }),
  /** The workspace snapshot the run judged; null when it could not be taken (then never green). */
  fingerprint: FingerprintSchema.nullable(),
  /** Why there is no fingerprint, or anything else a reader should know. */
  note: z.string().nullable(),
  state: z.enum(RECEIPT_STATES),
  /** The check's verdict as the engine gave it, so a fresh receipt can answer the check again. */
  result: z
    .strictObject({ status: z.enum(["pass", "fail", "pending"]), summary: z.string(), evidence: z.unknown() })
    .nullable(),
});
export type Receipt = z.infer<typeof ReceiptSchema>;
