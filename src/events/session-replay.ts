/**
 * A saved Pi session replayed through the translator: its messages, in file order, become the
 * events the extension would have recorded live. A file has no turn or run boundaries, so they
 * are read from the messages: a turn ends when the next message that is not one of its tool
 * results arrives, or at the end of the file; it ends the run when Pi's loop would stop there.
 */
import type { PiEvent } from "./names.ts";
import {
  type AssistantMessageRead,
  type BashExecutionRead,
  createPiEventTranslator,
  type ToolResultMessageRead,
  type UserMessageRead,
} from "./translator.ts";

/** The messages of a session file the replay uses, as the session-file reader checked them. */
export type SessionMessage =
  | UserMessageRead
  | (AssistantMessageRead & { stopReason: string })
  | ToolResultMessageRead
  | (BashExecutionRead & { role: "bashExecution" });

export function replaySession(
  header: { sessionId: string; cwd: string },
  messages: readonly SessionMessage[],
): PiEvent[] {
  const translator = createPiEventTranslator();
  const events: PiEvent[] = [translator.sessionStart(header)];
  const add = (event: PiEvent | undefined) => {
    if (event) events.push(event);
  };
  let openTurn: { endsRun: boolean } | undefined;
  const closeTurn = () => {
    if (openTurn === undefined) return;
    add(translator.turnEnd({}));
    if (openTurn.endsRun) add(translator.agentEnd());
    openTurn = undefined;
  };

  for (const message of messages) {
    switch (message.role) {
      case "user":
        closeTurn();
        add(translator.messageEnd(message));
        break;
      case "assistant":
        closeTurn();
        add(translator.messageEnd(message));
        openTurn = { endsRun: endsRun(message) };
        break;
      case "toolResult":
        add(translator.messageEnd(message));
        break;
      case "bashExecution":
        closeTurn();
        add(translator.bashExecution(message));
        break;
    }
  }
  closeTurn();
  return events;
}

/** Pi's loop stops after an error or an abort, or when the model asked for no tool. */
function endsRun(message: AssistantMessageRead & { stopReason: string }): boolean {
  const { stopReason, content } = message;
  return (
    stopReason === "error" || stopReason === "aborted" || !content.some((block) => block.type === "toolCall")
  );
}
