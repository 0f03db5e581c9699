import type { VerifierEvent } from "../events/schema.ts";
import type { Probes } from "./probes.ts";
import type { ReceiptPort } from "./receipts-port.ts";

/** The folders quest paths may name, all absolute. */
export type QuestPaths = {
  /** The quest workspace: the sandbox when the quest has one, else the project Pi runs in. */
  workspace: string;
  sandbox?: string;
  agentDir: string;
  home: string;
};

/** Everything one evaluation needs; the engine reads nothing else. */
export type EvaluationContext = {
  probes: Probes;
  /** Recorded events, in `seq` order. */
  events: readonly VerifierEvent[];
  /** The session `same_session` means; defaults to the last event's session. */
  sessionId?: string;
  paths: QuestPaths;
  /** Explicit boundaries: `eventRefs[ref][event]` is a seq. Recorded events are searched otherwise. */
  eventRefs?: Readonly<Record<string, Readonly<Record<string, number>>>>;
  /** The pinned baseline commit (a full object id) git checks compare against. */
  baseline?: string;
  /** The quest being evaluated (names the scripts it runs). */
  questId: string;
  /** Its checks: an event check's `after: {check}` is another one's first match. */
  questChecks?: readonly { id: string; type: string }[];
  /** Aborting stops running commands and leaves the remaining checks pending. */
  signal?: AbortSignal;
  /** Receipts for command checks: reuse of fresh ones, a record of every run. */
  receipts?: ReceiptPort;
  /**
   * Why this evaluation runs: the learner asked (`/quest check`, the CLI), a quest was activated,
   * or a turn ended. Absent means manual. A review check reviews only when asked (or, with
   * `on_turn_end: true`, at a turn end too).
   */
  trigger?: EvaluationTrigger;
};

export type EvaluationTrigger = "manual" | "activation" | "turn_end";
