import type { CheckType } from "../core/checks.ts";

export type CheckStatus = "pass" | "fail" | "pending";

/** Why a check could not be decided: every pending result names one. */
export type PendingKind =
  | "unavailable" // a tool, a process or a service could not start
  | "timeout"
  | "stopped" // cancelled or disposed
  | "awaiting_confirmation"
  | "not_reached" // an event boundary that has not happened yet
  | "too_large"
  | "isolation_unavailable"
  | "stale" // a pass whose receipt no longer matches the files
  | "no_fingerprint" // ran, but the workspace could not be fingerprinted: never green
  | "error"; // any other infrastructure error

/** Typed evidence: each check type says what it saw. `summary` is the one line a person reads. */
/** Where an isolated run happened and what it ran on (the task verifier's provenance). */
/**
 * What made sure a check's processes did not outlive it: its own PID namespace, or (where
 * namespaces are not available) its process group, which a process that leaves it escapes.
 */
export type Containment = "pid-namespace" | "process-group";

export type IsolationEvidence = {
  runDir: string;
  baseline: string;
  head: string;
  patchSha256: string;
  patchBytes: number;
  restored: string[];
  manifestsMerged: string[];
  removedConfigs: string[];
  /** With `editable`: the changed paths outside it, whose changes were not applied. */
  leftOut?: string[];
  cleanup: { ok: true } | { ok: false; message: string; keptWorktree: string };
  /**
   * The receipts' fingerprint of the files this run used (baseline plus patch, before anything
   * was restored): the receipt records this one. Absent when the run stopped before the patch.
   */
  fingerprint?: RunFingerprint;
  /** Changed paths in generated folders (dist/, build/...) that the candidate left out. */
  generatedLeftOut?: string[];
};

export type RunFingerprint =
  | { ok: true; algorithm: "git-blob-sha1+sha256"; value: string; entries: number; bytes: number }
  | { ok: false; reason: string };

/** The receipt a command check's result rests on (docs/quest-format.md, "Receipts"). */
export type ReceiptEvidence = {
  id: string;
  state: "not_run" | "running" | "passed" | "failed" | "cancelled" | "skipped" | "stale";
  /** True when a fresh receipt answered the check and nothing ran. */
  reused: boolean;
  /** The workspace fingerprint the receipt judged, when there is one. */
  fingerprint?: string;
  note?: string;
};

/**
 * What an MCP check started or reached, as evidence may show it: secrets in the command line or
 * URL masked, env variables and headers by name only (their values are never shown).
 */
export type McpLaunch =
  | { transport: "stdio"; commandLine: string; cwd: string; envNames: string[] }
  | { transport: "http"; url: string; headerNames: string[] };

export type Evidence =
  | {
      kind: "event";
      summary: string;
      matched: number;
      scanned: number;
      boundarySeq?: number;
      firstMatchSeq?: number;
      sessionId?: string;
    }
  | { kind: "file"; summary: string; path: string; found: "file" | "dir" | "other" | "none" }
  | {
      kind: "structured_path";
      summary: string;
      file: string;
      path: string;
      matched: unknown[];
      parseError?: { message: string; line?: number; column?: number };
    }
  | {
      kind: "command";
      summary: string;
      script: string;
      cwd: string;
      isolation: "worktree" | "none";
      /** How the run's processes were kept from outliving it (absent when nothing ran). */
      containment?: Containment;
      exitCode?: number;
      signal?: string;
      output?: string;
      outputTruncated?: boolean;
      failed?: string[];
      verification?: IsolationEvidence;
      receipt?: ReceiptEvidence;
      /** Set on a result answered by a receipt, or made pending by one. */
      pending?: PendingKind;
    }
  | { kind: "git"; summary: string; assert: string; baseline: string; detail?: Record<string, unknown> }
  | {
      kind: "mcp";
      summary: string;
      server: string;
      transport?: "stdio" | "http";
      tools: string[];
      missingTools: string[];
      serverInfo?: { name: string; version: string };
      /** What the server answered `initialize` with. */
      protocolVersion?: string;
      /** What ran (or was reached) for the check; secrets masked, env and headers by name only. */
      launched?: McpLaunch;
      /** What a pass proves: the server answered the handshake and listed these tools, nothing more. */
      proved?: "handshake";
    }
  | {
      kind: "skill";
      summary: string;
      name?: string;
      filePath?: string;
      violations: string[];
      diagnostics: string[];
    }
  | { kind: "confirm"; summary: string; prompt: string; answer?: boolean }
  | { kind: "path"; summary: string; path: string; problem: "escape" | "too_large" | "binary" | "unreadable" }
  | { kind: "pending"; summary: string; pending: PendingKind; detail?: Record<string, unknown> };

export type CheckResult = {
  id: string;
  type: CheckType;
  status: CheckStatus;
  describe?: string;
  evidence: Evidence;
};

export type QuestCounts = { passed: number; failed: number; pending: number };

export type QuestResult = {
  quest: string;
  status: CheckStatus;
  counts: QuestCounts;
  checks: CheckResult[];
};
