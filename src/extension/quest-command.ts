/** `/quest` arguments: parsing, argument completion and help. Pure. */

export const SUBCOMMANDS = {
  list: "all quests and where you stand",
  start: "start a quest: /quest start ID",
  check: "check the active quest now",
  hint: "the next hint for the active quest",
  status: "the last result, with evidence",
  reset: "start over (asks first; your files are kept)",
} as const;
export type Subcommand = keyof typeof SUBCOMMANDS;

export type QuestCommand =
  | { kind: Exclude<Subcommand, "start"> }
  | { kind: "start"; questId: string | undefined }
  | { kind: "help" }
  | { kind: "unknown"; word: string };

export function parseQuestCommand(args: string): QuestCommand {
  const [word = "", ...rest] = args.trim().split(/\s+/).filter(Boolean);
  switch (word) {
    case "":
    case "help":
      return { kind: "help" };
    case "start":
      return { kind: "start", questId: rest[0] };
    case "list":
    case "check":
    case "hint":
    case "status":
    case "reset":
      return { kind: word };
    default:
      return { kind: "unknown", word };
  }
}

export function questHelp(): string {
  const width = Math.max(...Object.keys(SUBCOMMANDS).map((name) => name.length));
  return [
    "/quest commands:",
    ...Object.entries(SUBCOMMANDS).map(([name, text]) => `  /quest ${name.padEnd(width)}  ${text}`),
  ].join("\n");
}

export type Completion = { value: string; label: string; description?: string };

/**
 * Completions for what follows `/quest `: the subcommands, then quest ids after `start`. Each
 * value is the whole argument text, so accepting one replaces what was typed.
 */
export function questCompletions(
  prefix: string,
  quests: ReadonlyArray<{ id: string; title: string }>,
): Completion[] | null {
  const startMatch = /^start\s+(\S*)$/.exec(prefix.trimStart());
  if (startMatch) {
    const typed = startMatch[1] ?? "";
    const items = quests
      .filter((quest) => quest.id.startsWith(typed))
      .map((quest) => ({ value: `start ${quest.id}`, label: quest.id, description: quest.title }));
    return items.length > 0 ? items : null;
  }
  if (/\s/.test(prefix.trim())) return null;
  const typed = prefix.trim();
  const items = Object.entries(SUBCOMMANDS)
    .filter(([name]) => name.startsWith(typed))
    .map(([name, description]) => ({ value: name, label: name, description }));
  return items.length > 0 ? items : null;
}
