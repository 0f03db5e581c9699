/**
 * The tool calls of a play that failed, each with the step that made it and the tool's own error
 * (`Could not find the exact text in src/sum.js`), read from Pi's RPC events
 * (`tool_execution_end` with `isError`). A pass play that does not complete its quest is most
 * often a scripted call that did not do what its author meant: the report says which, in the
 * tool's words, rather than only the check that then failed.
 */
import type { RpcLine } from "./pi-rpc.ts";

/** A tool call that ended with an error. */
export type FailedToolCall = {
  /** The step whose run made the call, as the report names steps: `step 2 (prompt "Fix it")`. */
  step: string;
  tool: string;
  /** The tool's error, its first lines, bounded. */
  error: string;
};

/** Where a step began: its name, and the index of the first RPC line it caused. */
export type StepMark = { name: string; from: number };

/** How many failed calls a play keeps, and how much of each error. */
const MAX_CALLS = 10;
const MAX_ERROR = 300;

/** The failed tool calls among `lines`, in order, each given to the last step begun before it. */
export function failedToolCalls(lines: readonly RpcLine[], marks: readonly StepMark[]): FailedToolCall[] {
  const failed: FailedToolCall[] = [];
  lines.forEach((line, index) => {
    if (line.type !== "tool_execution_end" || line.isError !== true) return;
    const step = marks.findLast((mark) => mark.from <= index)?.name ?? "before the first step";
    failed.push({ step, tool: String(line.toolName ?? "a tool"), error: errorText(line.result) });
  });
  return failed.slice(-MAX_CALLS);
}

/** One line for a report: `step 2 (prompt "Fix it"): edit failed: Could not find ...`. */
export function describeFailedCall(call: FailedToolCall): string {
  return `${call.step}: ${call.tool} failed: ${call.error}`;
}

/** A tool result's text (Pi's `{content: [{type: "text", text}]}`), on one line, bounded. */
function errorText(result: unknown): string {
  const content = (result as { content?: unknown } | null | undefined)?.content;
  const texts = Array.isArray(content)
    ? content.flatMap((part) =>
        typeof (part as { text?: unknown })?.text === "string" ? [(part as { text: string }).text] : [],
      )
    : typeof result === "string"
      ? [result]
      : [];
  const text = texts.join(" ").replace(/\s+/g, " ").trim() || "no message";
  return text.length > MAX_ERROR ? `${text.slice(0, MAX_ERROR - 1)}…` : text;
}
