/** `/quest` arguments: parsing, argument completion and help, all read from the subcommand table. Pure. */
import {
  type Completion,
  type PackChoice,
  QUEST_SUBCOMMANDS,
  type QuestSubcommand,
  type QuestSummary,
} from "./quest-subcommands.ts";

export type { Completion } from "./quest-subcommands.ts";

type TableEntry = (typeof QUEST_SUBCOMMANDS)[number];
export type Subcommand = TableEntry["name"];

const findSubcommand = (name: string): TableEntry | undefined =>
  QUEST_SUBCOMMANDS.find((entry) => entry.name === name);

/** A `/quest` line as read: help, a word that names no subcommand, or a subcommand and the words after it. */
export type QuestCommandLine =
  | { kind: "help" }
  | { kind: "unknown"; word: string }
  | { kind: "subcommand"; subcommand: QuestSubcommand<Subcommand>; rest: readonly string[] };

export function readQuestCommand(args: string): QuestCommandLine {
  const [word = "", ...rest] = args.trim().split(/\s+/).filter(Boolean);
  if (word === "" || word === "help") return { kind: "help" };
  const subcommand = findSubcommand(word);
  return subcommand ? { kind: "subcommand", subcommand, rest } : { kind: "unknown", word };
}

/** `/quest help`: every subcommand and what it does, aligned, in table order. */
export function questHelp(): string {
  const width = Math.max(...QUEST_SUBCOMMANDS.map(({ name }) => name.length));
  return [
    "/quest commands:",
    ...QUEST_SUBCOMMANDS.map(({ name, help }) => `  /quest ${name.padEnd(width)}  ${help}`),
  ].join("\n");
}

/**
 * Completions for what follows `/quest `: the subcommands, then a subcommand's argument (the
 * quest ids after `start`, the pack ids after `pack`). Each value is the whole argument text, so
 * accepting one replaces what was typed. None when what is typed is already one of them in full:
 * Pi's editor takes the first Enter on an open argument menu as accepting its choice, so a
 * `/quest hint` typed whole would need a second Enter; without a menu the first Enter runs it, as
 * Pi's own commands run.
 */
export function questCompletions(
  prefix: string,
  quests: readonly QuestSummary[],
  packs: readonly PackChoice[] = [],
): Completion[] | null {
  const items = completionsFor(prefix, quests, packs);
  const typed = prefix.trim();
  if (items === null || items.some((item) => item.value === typed)) return null;
  return items;
}

function completionsFor(
  prefix: string,
  quests: readonly QuestSummary[],
  packs: readonly PackChoice[],
): Completion[] | null {
  const argument = /^(\S+)\s+(\S*)$/.exec(prefix.trimStart());
  const completing = argument ? findSubcommand(argument[1] ?? "") : undefined;
  if (completing?.complete) {
    const typed = argument?.[2] ?? "";
    const items = completing
      .complete(typed, quests, packs)
      .map((item) => ({ ...item, value: `${completing.name} ${item.value}` }));
    return items.length > 0 ? items : null;
  }
  if (/\s/.test(prefix.trim())) return null;
  const typed = prefix.trim();
  const items = QUEST_SUBCOMMANDS.filter(({ name }) => name.startsWith(typed)).map(({ name, help }) => ({
    value: name,
    label: name,
    description: help,
  }));
  return items.length > 0 ? items : null;
}
