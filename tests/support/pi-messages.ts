/** Pi's own messages and session entries, whole, as Pi types them: what the translator is fed. */
import type { AssistantMessage, ToolCall, ToolResultMessage, UserMessage } from "@earendil-works/pi-ai";
import type { MessageEndEvent, SessionEntry } from "@earendil-works/pi-coding-agent";

type AgentMessage = MessageEndEvent["message"];

const USAGE: AssistantMessage["usage"] = {
  input: 10,
  output: 5,
  cacheRead: 0,
  cacheWrite: 0,
  totalTokens: 15,
  cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 },
};

export const user = (content: UserMessage["content"]): UserMessage => ({
  role: "user",
  content,
  timestamp: 1,
});

export const toolCall = (id: string, name: string, args: ToolCall["arguments"]): ToolCall => ({
  type: "toolCall",
  id,
  name,
  arguments: args,
});

export const assistant = (
  content: AssistantMessage["content"],
  stopReason: AssistantMessage["stopReason"] = content.some((block) => block.type === "toolCall")
    ? "toolUse"
    : "stop",
): AssistantMessage => ({
  role: "assistant",
  content,
  api: "anthropic-messages",
  provider: "anthropic",
  model: "claude-test",
  usage: USAGE,
  stopReason,
  timestamp: 2,
});

export const toolResult = (toolCallId: string, toolName: string, isError = false): ToolResultMessage => ({
  role: "toolResult",
  toolCallId,
  toolName,
  content: [{ type: "text", text: isError ? "failed" : "ok" }],
  isError,
  timestamp: 3,
});

export const bashExecution = (
  command: string,
  exitCode: number | undefined,
  excludeFromContext?: boolean,
): Extract<AgentMessage, { role: "bashExecution" }> => ({
  role: "bashExecution",
  command,
  output: "",
  exitCode,
  cancelled: exitCode === undefined,
  truncated: false,
  timestamp: 4,
  ...(excludeFromContext !== undefined ? { excludeFromContext } : {}),
});

/** A session entry holding `message`, as a resumed session has them. */
export const messageEntry = (id: string, message: AgentMessage): SessionEntry => ({
  type: "message",
  id,
  parentId: null,
  timestamp: "2026-03-14T09:30:00.000Z",
  message,
});
