/**
 * What pi-quests found altered in its own records, or kept the agent from: the one kind of
 * message every record store and the tool-call guard report, and the HUD and `/quest status`
 * show. A record in an alert was ignored, never used.
 */
export type AlteredRecord = "receipt" | "event" | "progress";

export type IntegrityAlert =
  /** A record on disk that pi-quests did not write as it is: ignored. */
  | { kind: "altered"; record: AlteredRecord; where: string; reason: string }
  /** A tool call of the agent that reached for pi-quests' records: it never ran. */
  | { kind: "blocked"; toolName: string; reason: string };

export type IntegrityReporter = (alert: IntegrityAlert) => void;

/** One sentence for a learner or an author. */
export function describeAlert(alert: IntegrityAlert): string {
  return alert.kind === "altered"
    ? `altered ${alert.record} ignored: ${alert.where} (${alert.reason})`
    : `blocked the agent's ${alert.toolName} call: ${alert.reason}`;
}
