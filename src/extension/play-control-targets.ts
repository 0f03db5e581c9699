/**
 * What the play controls (play-controls.ts) pick, as a learner picks it in the terminal UI's
 * dialogs: the message `/tree` goes back to, the session `/resume` opens. Pure: the entries and
 * the session list are given.
 */

/** A session entry as far as the tree's choice needs it. */
export type EntryLike = { id: string; type: string; message?: { role?: string; content?: unknown } };

export type TreeTarget = {
  id: string;
  role: "user" | "assistant";
  text: string;
  matched: "equals" | "contains";
};

/**
 * The last user or assistant message whose text equals `target`, or, when none does, the last one
 * whose text contains it; undefined when none does.
 */
export function treeTarget(entries: readonly EntryLike[], target: string): TreeTarget | undefined {
  const messages = entries.flatMap((entry) => {
    const role = entry.type === "message" ? entry.message?.role : undefined;
    if (role !== "user" && role !== "assistant") return [];
    return [{ id: entry.id, role: role as TreeTarget["role"], text: textOf(entry.message?.content).trim() }];
  });
  const wanted = target.trim();
  const equal = messages.findLast((message) => message.text === wanted);
  if (equal) return { ...equal, matched: "equals" };
  const containing = messages.findLast((message) => message.text.includes(wanted));
  return containing ? { ...containing, matched: "contains" } : undefined;
}

/** A message's text: a string, or its text parts (thinking and tool calls are not its text). */
function textOf(content: unknown): string {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  return content
    .flatMap((part) =>
      typeof part === "object" && part !== null && (part as { type?: unknown }).type === "text"
        ? [String((part as { text?: unknown }).text ?? "")]
        : [],
    )
    .join("\n");
}

/** A saved session as far as `/resume`'s choice needs it. */
export type SessionLike = { path: string; name?: string; modified: Date };

/** The newest session named `name`, as the picker would show it first; undefined when none is. */
export function sessionNamed(sessions: readonly SessionLike[], name: string): SessionLike | undefined {
  return sessions
    .filter((session) => session.name === name)
    .sort((a, b) => b.modified.getTime() - a.modified.getTime())[0];
}

/** The names of the sessions, for a reason that says what there was to pick from. */
export function sessionNames(sessions: readonly SessionLike[]): string {
  const names = [...new Set(sessions.flatMap((session) => (session.name ? [session.name] : [])))];
  return names.length > 0 ? names.map((name) => `"${name}"`).join(", ") : "none has a name";
}
