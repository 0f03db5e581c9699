import { describe, expect, it } from "vitest";
import { ledgerOf, type SessionMessage } from "../../src/probes/review-ledger.ts";

const ROOT = "/snap";
const call = (id: string, name: string, args: Record<string, unknown>) => ({
  type: "toolCall",
  id,
  name,
  arguments: args,
});
const assistant = (...calls: ReturnType<typeof call>[]): SessionMessage => ({
  role: "assistant",
  content: calls,
});
const result = (id: string, text: string, isError = false, details?: unknown): SessionMessage => ({
  role: "toolResult",
  toolCallId: id,
  content: [{ type: "text", text }],
  isError,
  details,
});
const submit = (id: string) => call(id, "submit_review", { verdict: "pass", evidence: [] });

describe("ledgerOf", () => {
  it("counts successful reads issued before the judgment, with their first line, without Pi's notice", () => {
    const ledger = ledgerOf(ROOT, [
      assistant(
        call("1", "read", { path: "./NOTES.md" }),
        call("2", "read", { path: "src/a.js", offset: 3, limit: 1 }),
      ),
      result("1", "line one\n"),
      result("2", "  return 1;\n\n[4 more lines in file. Use offset=4 to continue.]"),
      assistant(submit("3")),
      result("3", "Judgment recorded."),
    ]);
    expect(ledger.reads).toEqual([
      { path: "NOTES.md", firstLine: 1, text: "line one\n" },
      { path: "src/a.js", firstLine: 3, text: "  return 1;" },
    ]);
    expect(ledger.submissions).toHaveLength(1);
  });

  it("leaves out failed reads, reads outside the root, a too-long first line, and reads in or after the judging message", () => {
    const ledger = ledgerOf(ROOT, [
      assistant(call("1", "read", { path: "missing.md" }), call("2", "read", { path: "/etc/hostname" })),
      result("1", "no such file", true),
      result("2", "host"),
      assistant(call("3", "read", { path: "big.txt" })),
      result("3", "[Line 1 is 60KB ...]", false, { truncation: { firstLineExceedsLimit: true } }),
      assistant(call("4", "read", { path: "NOTES.md" }), submit("5")),
      result("4", "written after the judgment"),
      result("5", "Judgment recorded."),
      assistant(call("6", "read", { path: "NOTES.md" }), call("7", "write", { path: "x" })),
      result("6", "later still"),
      result("7", "Tool write not found", true),
    ]);
    expect(ledger.reads).toEqual([]);
    expect(ledger.refusedTools).toEqual(["write"]);
  });
});
