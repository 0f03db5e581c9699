/**
 * The one port through which the engine touches the world. The engine itself reads no file and
 * spawns no process: tests inject fakes, and src/probes has the real Node adapters.
 */
import type { Containment, IsolationEvidence, RunFingerprint } from "./checks/command.ts";
import type { ConfirmCheck } from "./checks/confirm.ts";
import type { McpHandshakeCheck, McpLaunch } from "./checks/mcp-handshake.ts";
import type { ReviewRead, ReviewSubmission } from "./review-judgment.ts";

export type { McpLaunch };

/** A quest path after templates, with the root it must stay inside. */
export type ResolvedPath = {
  /** As the quest wrote it, for evidence. */
  written: string;
  /** Absolute, normalized. */
  absolute: string;
  /** Absolute folder the path must not leave (through `..` or a symbolic link). */
  root: string;
};

export type FileKindProbe =
  | { kind: "file"; size: number }
  | { kind: "dir" }
  | { kind: "other" }
  | { kind: "missing" }
  | { kind: "escape"; reason: string }
  | { kind: "error"; message: string };

export type ReadFileProbe =
  | { ok: true; bytes: Buffer }
  | { ok: false; problem: "missing" | "not_file" | "escape" | "error"; message: string }
  | { ok: false; problem: "too_large"; message: string; size: number };

/** A check script, for the script runner. Its content was read before the run and is never read again. */
export type ScriptRequest = {
  /** The script's name: `$0` inside it, and what a report names. */
  script: string;
  content: string;
  cwd: string;
  timeoutMs: number;
  signal?: AbortSignal;
  /** Variables to set on top of the inherited environment (the task verifier's PATH and npm isolation). */
  env?: Readonly<Record<string, string>>;
};

/**
 * How a check script ended. `ok: true` is a finished run (any exit code); `ok: false` is a run
 * that did not finish, which no change to the code can answer.
 */
export type ScriptOutcome =
  | {
      ok: true;
      passed: boolean;
      exitCode: number | null;
      signal?: string;
      /** stdout and stderr mixed in the order they came (bounded: the tail is kept). */
      report: string;
      stdout: string;
      stderr: string;
      truncated: boolean;
      /** Set by the isolated task verifier: where the run happened and on what. */
      verification?: IsolationEvidence;
      /** How the script's processes were kept from outliving it, and why not better. */
      containment?: Containment;
      containmentNote?: string;
    }
  | {
      ok: false;
      kind: "unavailable" | "timeout" | "stopped";
      message: string;
      report: string;
      truncated: boolean;
      verification?: IsolationEvidence;
      containment?: Containment;
      containmentNote?: string;
    };

/**
 * A command check for the isolated task verifier, named by its pinned identity: the verifier runs
 * the definition it pinned when the quest started, never one sent with the request.
 */
export type IsolatedRunRequest = {
  questId: string;
  checkId: string;
  /** The check's folder as the engine resolved it; it must be the pinned check's folder. */
  cwd: string;
  signal?: AbortSignal;
};

export type GitAnswer<T> = { ok: true; value: T } | { ok: false; message: string };

/** Read-only questions about a git repository; none of them writes to it. */
export type GitProbe = {
  resolveRevision(cwd: string, revision: string): Promise<GitAnswer<string>>;
  /**
   * The commits since `baseline` on HEAD, or on `branch` when one is named; `branch` not found is
   * the answer `missing_branch`.
   */
  countCommitsSince(
    cwd: string,
    baseline: string,
    branch?: string,
  ): Promise<GitAnswer<number | "missing_branch">>;
  /**
   * Where `path` stands in HEAD against the baseline: `committed` when HEAD holds it and it was
   * added or changed since the baseline, `unchanged` when HEAD holds it as the baseline did,
   * `not_in_head` when HEAD does not hold it.
   */
  committedSince(
    cwd: string,
    baseline: string,
    path: string,
  ): Promise<GitAnswer<"committed" | "unchanged" | "not_in_head">>;
  /** Tracked changes and untracked, non-ignored files (porcelain status lines). */
  changedPaths(cwd: string): Promise<GitAnswer<string[]>>;
  branchExists(cwd: string, branch: string): Promise<GitAnswer<boolean>>;
  /** The branch HEAD is on (`main` for refs/heads/main); null when HEAD is detached. */
  currentBranch(cwd: string): Promise<GitAnswer<string | null>>;
  /** The baseline-to-working-tree diff text, untracked files included as additions. */
  diffSince(cwd: string, baseline: string, path?: string): Promise<GitAnswer<string>>;
  compareWithBaseline(
    cwd: string,
    baseline: string,
    path: string,
  ): Promise<GitAnswer<"same" | "different" | "missing_now" | "missing_in_baseline">>;
};

export type McpRequest = {
  check: McpHandshakeCheck;
  workspace: string;
  agentDir: string;
  signal?: AbortSignal;
};

export type McpOutcome =
  | {
      ok: true;
      server: string;
      transport: "stdio" | "http";
      serverInfo: { name: string; version: string };
      /** What the server answered `initialize` with ("" if the client never heard one). */
      protocolVersion: string;
      tools: string[];
      launched: McpLaunch;
    }
  | {
      ok: false;
      server: string;
      /** `config`: the learner can fix it (unknown, disabled or invalid server); the rest are pending. */
      kind: "config" | "unavailable" | "timeout" | "stopped";
      /** One line: what failed, and how the server ended (its exit, the stderr line that says why). */
      message: string;
      /** How a stdio server ended, line by line, its stderr tail included: for the evidence. */
      detail?: string[];
    };

export type SkillRequest = {
  name?: string;
  path?: string;
  /** The root `path` must not leave through a link (the workspace when not given). */
  root?: string;
  workspace: string;
  agentDir: string;
};

/** A SKILL.md found near a skill Pi did not find, and why it is not that skill. */
export type SkillCandidate = { filePath: string; reason: string };

export type SkillOutcome =
  | {
      ok: true;
      /** The skill Pi's discovery found, if it did. */
      found?: { name: string; filePath: string };
      violations: string[];
      diagnostics: string[];
      /** When Pi does not find it: the SKILL.md files found around it, each with why it is not the one. */
      candidates?: SkillCandidate[];
    }
  /** Not checked: `unavailable` when what checks it (Pi's skill loader) is not there. */
  | { ok: false; message: string; unavailable?: true }
  /** The skill (its folder or SKILL.md) leads outside its root through a link: refused, never read. */
  | { ok: false; problem: "escape"; path: string; message: string };

/** A `review` check for the reviewer: a fresh session judges the criterion on a snapshot of the workspace. */
export type ReviewRequest = {
  questId: string;
  checkId: string;
  criterion: string;
  /** Where the reviewer should start (workspace-relative); it may read any other file. */
  files: readonly string[];
  /** `provider/id` the check asks for; absent, the learner's current model. */
  model?: string;
  timeoutMs: number;
  signal?: AbortSignal;
};

/** Where the review's record is: its folder in the data dir and its redacted transcript. */
export type ReviewRecord = {
  runDir: string;
  transcript: { file: string; sha256: string; messages: number };
};

/**
 * What the reviewer did, as facts: the engine's rules (review-judgment.ts) decide what they are
 * worth. `ok: false` is a review that did not come to an end the rules can judge.
 */
export type ReviewOutcome =
  | {
      ok: true;
      /** `provider/id` the reviewer ran with. */
      model: string;
      /** Its own successful `read` calls, issued before its first `submit_review`. */
      reads: ReviewRead[];
      submissions: ReviewSubmission[];
      /** The fingerprint (receipts' algorithm) of the snapshot it read, taken as the snapshot was made. */
      fingerprint: RunFingerprint;
      record?: ReviewRecord;
      /** Tool calls the reviewer made that are not among its tools (refused): `write`, `bash`... */
      refusedTools?: string[];
    }
  | {
      ok: false;
      kind: "no_model" | "timeout" | "stopped" | "unavailable" | "error" | "changed";
      message: string;
      model?: string;
      record?: ReviewRecord;
    };

export type Probes = {
  fileExists(path: ResolvedPath): Promise<FileKindProbe>;
  readFile(path: ResolvedPath, maxBytes: number): Promise<ReadFileProbe>;
  /** Runs a script in place (`isolation: none`). */
  runCommand(request: ScriptRequest): Promise<ScriptOutcome>;
  /** Runs a pinned command check in the isolated task verifier; absent where there is none. */
  runIsolated?: (request: IsolatedRunRequest) => Promise<ScriptOutcome>;
  git: GitProbe;
  mcpHandshake(request: McpRequest): Promise<McpOutcome>;
  skillValid(request: SkillRequest): Promise<SkillOutcome>;
  /** The learner's answer, or undefined when there is none yet. */
  confirm(check: ConfirmCheck): Promise<boolean | undefined>;
  /** Has an independent reviewer judge a criterion; absent where there is no reviewer. */
  review?: (request: ReviewRequest) => Promise<ReviewOutcome>;
};
