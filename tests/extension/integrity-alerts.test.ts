import { describe, expect, it } from "vitest";
import { createIntegrityAlerts } from "../../src/extension/integrity-alerts.ts";

describe("integrity alerts", () => {
  it("count what was altered by kind, list it for /quest status, and notify once for altered records", () => {
    const notes: string[] = [];
    const alerts = createIntegrityAlerts((message) => notes.push(message));
    let changes = 0;
    alerts.onChange(() => changes++);
    expect(alerts.hudLine()).toBeUndefined();
    expect(alerts.statusText()).toBe("");
    alerts.report({ kind: "altered", record: "receipt", where: "r.json", reason: "it has no seal" });
    alerts.report({ kind: "altered", record: "receipt", where: "r.json", reason: "it has no seal" });
    alerts.report({ kind: "altered", record: "event", where: "events.jsonl:3", reason: "no seal" });
    alerts.report({ kind: "altered", record: "event", where: "events.jsonl:4", reason: "no seal" });
    alerts.report({ kind: "blocked", toolName: "bash", reason: "its command names seal.key" });
    expect(changes).toBe(4);
    expect(alerts.hudLine()).toBe(
      "⚠ pi-quests ignored altered records: 1 receipt, 2 events; blocked 1 tool call at its records — /quest status",
    );
    expect(alerts.statusText()).toBe(
      [
        "Records pi-quests ignored or protected this session:",
        "  ⚠ altered receipt ignored: r.json (it has no seal)",
        "  ⚠ altered event ignored: events.jsonl:3 (no seal)",
        "  ⚠ altered event ignored: events.jsonl:4 (no seal)",
        "  ⚠ blocked the agent's bash call: its command names seal.key",
        "",
      ].join("\n"),
    );
    expect(notes).toEqual([
      "pi-quests found records it did not write and ignored them (altered receipt ignored: r.json (it has no seal)). /quest status lists them.",
      "pi-quests blocked the agent's bash call: its command names seal.key",
    ]);
  });
});
