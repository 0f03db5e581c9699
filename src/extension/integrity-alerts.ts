/**
 * The integrity alerts of one quest session: what pi-quests found altered in its own records
 * (and ignored), and the agent's tool calls it blocked. The HUD shows one warning line while
 * there are any, `/quest status` lists them, and the learner gets a notification: once for
 * altered records, and for each blocked call. Pure: the caller says how to notify.
 */
import { describeAlert, type IntegrityAlert } from "../core/integrity.ts";

export type IntegrityAlerts = {
  report(alert: IntegrityAlert): void;
  list(): readonly IntegrityAlert[];
  /** The HUD's warning line, when there is anything to say. */
  hudLine(): string | undefined;
  /** What `/quest status` adds: nothing, or a heading and a line an alert. */
  statusText(): string;
  /** Called after each new alert (the controller draws the HUD again). */
  onChange(listener: () => void): void;
};

/** Past this many, alerts are counted but not kept one by one (a flood of forged lines). */
const MAX_LISTED = 50;

export function createIntegrityAlerts(notify: (message: string) => void): IntegrityAlerts {
  const listed: IntegrityAlert[] = [];
  const counts = { receipt: 0, event: 0, progress: 0, blocked: 0 };
  const seen = new Set<string>();
  const listeners: Array<() => void> = [];
  let toldAltered = false;

  const total = () => counts.receipt + counts.event + counts.progress + counts.blocked;

  return {
    report(alert) {
      const key = JSON.stringify(alert);
      if (seen.has(key)) return;
      seen.add(key);
      if (alert.kind === "altered") counts[alert.record]++;
      else counts.blocked++;
      if (listed.length < MAX_LISTED) listed.push(alert);
      if (alert.kind === "blocked") {
        notify(`pi-quests blocked the agent's ${alert.toolName} call: ${alert.reason}`);
      } else if (!toldAltered) {
        toldAltered = true;
        notify(
          `pi-quests found records it did not write and ignored them (${describeAlert(alert)}). /quest status lists them.`,
        );
      }
      for (const listener of listeners) listener();
    },
    list: () => listed,
    hudLine() {
      if (total() === 0) return undefined;
      const altered = [
        plural(counts.receipt, "receipt"),
        plural(counts.event, "event"),
        plural(counts.progress, "progress file"),
      ].filter((part) => part !== "");
      const parts = [
        ...(altered.length > 0 ? [`ignored altered records: ${altered.join(", ")}`] : []),
        ...(counts.blocked > 0 ? [`blocked ${plural(counts.blocked, "tool call")} at its records`] : []),
      ];
      return `⚠ pi-quests ${parts.join("; ")} — /quest status`;
    },
    statusText() {
      if (total() === 0) return "";
      const more = total() - listed.length;
      return [
        "Records pi-quests ignored or protected this session:",
        ...listed.map((alert) => `  ⚠ ${describeAlert(alert)}`),
        ...(more > 0 ? [`  … and ${more} more`] : []),
        "",
      ].join("\n");
    },
    onChange(listener) {
      listeners.push(listener);
    },
  };
}

function plural(count: number, noun: string): string {
  if (count === 0) return "";
  return `${count} ${noun}${count === 1 ? "" : noun.endsWith("s") ? "es" : "s"}`;
}
