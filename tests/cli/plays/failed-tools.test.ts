/**
 * The tool calls of a play that failed, read from Pi's RPC lines (`tool_execution_end` with
 * `isError`): each with the step that made it and the tool's own error, on one line, bounded.
 */
import { describe, expect, it } from "vitest";
import { describeFailedCall, failedToolCalls } from "../../../src/cli/plays/failed-tools.ts";
import type { RpcLine } from "../../../src/cli/plays/pi-rpc.ts";
import type { PlayReport, TestReport } from "../../../src/cli/plays/report.ts";
import { jsonReport } from "../../../src/cli/plays/report-json.ts";
import { formatJunitReport } from "../../../src/cli/plays/report-junit.ts";
import { formatPlayText } from "../../../src/cli/plays/report-text.ts";

const ended = (toolName: string, isError: boolean, text: string): RpcLine => ({
  type: "tool_execution_end",
  toolCallId: `call-${toolName}`,
  toolName,
  isError,
  result: { content: [{ type: "text", text }] },
});

const LINES: RpcLine[] = [
  { type: "agent_start" },
  ended("read", false, "function sum(a, b) {"),
  ended("edit", true, "Could not find the exact text in src/sum.js.\nThe old text must match exactly."),
  { type: "agent_end" },
  { type: "agent_start" },
  ended("bash", true, "Command exited with code 1"),
];
const MARKS = [
  { name: 'step 1 (prompt "Fix sum")', from: 0 },
  { name: 'step 2 (prompt "Run the tests")', from: 4 },
];

describe("the tool calls that failed in a play", () => {
  it("keeps only the failed ones, each given to the step that made it, the error on one line", () => {
    expect(failedToolCalls(LINES, MARKS)).toEqual([
      {
        step: 'step 1 (prompt "Fix sum")',
        tool: "edit",
        error: "Could not find the exact text in src/sum.js. The old text must match exactly.",
      },
      { step: 'step 2 (prompt "Run the tests")', tool: "bash", error: "Command exited with code 1" },
    ]);
  });

  it("says a call is before the first step when no step had begun, and bounds a long error", () => {
    const [call] = failedToolCalls([ended("write", true, "x".repeat(1000))], []);
    expect(call?.step).toBe("before the first step");
    expect(call?.error).toHaveLength(300);
    expect(call?.error.endsWith("…")).toBe(true);
  });

  it("reads as the report prints it: the step, the tool, its words", () => {
    const [call] = failedToolCalls(LINES, MARKS);
    expect(call && describeFailedCall(call)).toBe(
      'step 1 (prompt "Fix sum"): edit failed: Could not find the exact text in src/sum.js. The old text must match exactly.',
    );
  });
});

describe("the failed tool calls in the reports, under the play that did not end as named", () => {
  const step = 'step 1 (prompt "Fix sum")';
  const error = "Could not find the exact text in src/sum.js.";
  const play: PlayReport = {
    quest: "fix-sum",
    play: "pass-wrong-text",
    expected: "complete",
    outcome: "not complete",
    ok: false,
    reason: `${step}: edit failed: ${error}`,
    durationMs: 2000,
    failedTools: [{ step, tool: "edit", error }],
  };
  const report: TestReport = { pack: "./pack", plays: [play], unproven: [], strict: false };

  it("text: the reason, then each failed call", () => {
    expect(formatPlayText(play).split("\n")).toEqual([
      "✗ fix-sum/pass-wrong-text: expected complete, got not complete (2.0 s)",
      `    ${step}: edit failed: ${error}`,
      "    tool calls that failed:",
      `      ${step}: edit failed: ${error}`,
      "",
    ]);
    // A play that ended as named shows none, even when a call failed on the way.
    expect(formatPlayText({ ...play, outcome: "complete", ok: true })).not.toContain("failed");
  });

  it("json: failedTools on the play; junit: the failure's message and system-out", async () => {
    expect(jsonReport(report).plays[0]).toMatchObject({
      reason: `${step}: edit failed: ${error}`,
      failedTools: [{ step, tool: "edit", error }],
    });
    const xml = await formatJunitReport(report);
    expect(xml).toContain(`message="${step.replaceAll('"', "&quot;")}: edit failed: ${error}"`);
    expect(xml).toContain(`tool calls that failed:\n  ${step}: edit failed: ${error}\n]]></system-out>`);
  });
});
