import { describe, expect, it } from "vitest";
import { questCompletions, questHelp, readQuestCommand } from "../../src/extension/quest-command.ts";
import { QUEST_SUBCOMMANDS } from "../../src/extension/quest-subcommands.ts";

/** Each subcommand's help line, by name, in table order. */
const SUBCOMMANDS = Object.fromEntries(QUEST_SUBCOMMANDS.map(({ name, help }) => [name, help]));

/** A `/quest` line as data, the way a subcommand sees it: `start ID` is `{ kind: "start", questId: ID }`. */
function parseQuestCommand(args: string) {
  const line = readQuestCommand(args);
  if (line.kind !== "subcommand") return line;
  return { ...line.subcommand.parse(line.rest), kind: line.subcommand.name };
}

const QUESTS = [
  { id: "first-prompt", title: "Say hello to Pi" },
  { id: "first-file", title: "Make your first file" },
  { id: "first-commit", title: "Commit it" },
  { id: "skills", title: "Write a skill" },
];

describe("parsing /quest arguments", () => {
  it.each(["list", "check", "hint", "status", "reset"] as const)("%s", (word) => {
    expect(parseQuestCommand(word)).toEqual({ kind: word });
  });

  it("start with a quest id", () => {
    expect(parseQuestCommand("start first-file")).toEqual({ kind: "start", questId: "first-file" });
  });

  it("start without an id asks which (questId undefined)", () => {
    expect(parseQuestCommand("start")).toEqual({ kind: "start", questId: undefined });
  });

  it("ignores surrounding and repeated spaces, and words after the id", () => {
    expect(parseQuestCommand("   start \t first-file   extra  ")).toEqual({
      kind: "start",
      questId: "first-file",
    });
    expect(parseQuestCommand("  list  ")).toEqual({ kind: "list" });
  });

  it("nothing, or help, is help", () => {
    expect(parseQuestCommand("")).toEqual({ kind: "help" });
    expect(parseQuestCommand("   ")).toEqual({ kind: "help" });
    expect(parseQuestCommand("help")).toEqual({ kind: "help" });
  });

  it("any other word is unknown, and named", () => {
    expect(parseQuestCommand("frobnicate now")).toEqual({ kind: "unknown", word: "frobnicate" });
  });

  it("subcommands are lower case: LIST is unknown", () => {
    expect(parseQuestCommand("LIST")).toEqual({ kind: "unknown", word: "LIST" });
  });
});

describe("help", () => {
  it("lists every subcommand with what it does, aligned", () => {
    const help = questHelp();
    const [title, ...lines] = help.split("\n");
    expect(title).toBe("/quest commands:");
    expect(lines).toHaveLength(Object.keys(SUBCOMMANDS).length);
    for (const [name, text] of Object.entries(SUBCOMMANDS)) {
      expect(lines.some((line) => line.startsWith(`  /quest ${name}`) && line.endsWith(text))).toBe(true);
    }
    expect(lines).toContain("  /quest start   start a quest: /quest start ID");
    const columns = Object.values(SUBCOMMANDS).map((text, index) => lines[index]?.indexOf(text));
    expect(new Set(columns).size).toBe(1);
  });

  it("knows the six subcommands", () => {
    expect(Object.keys(SUBCOMMANDS)).toEqual(["list", "start", "check", "hint", "status", "reset"]);
  });
});

describe("completions", () => {
  it("nothing typed: every subcommand, with its description", () => {
    const items = questCompletions("", QUESTS);
    expect(items?.map((item) => item.value)).toEqual(Object.keys(SUBCOMMANDS));
    expect(items?.[0]).toEqual({ value: "list", label: "list", description: SUBCOMMANDS.list });
  });

  it("a prefix: the subcommands it starts", () => {
    expect(questCompletions("s", QUESTS)?.map((item) => item.value)).toEqual(["start", "status"]);
    expect(questCompletions("h", QUESTS)?.map((item) => item.value)).toEqual(["hint"]);
    expect(questCompletions("start", QUESTS)?.map((item) => item.value)).toEqual(["start"]);
  });

  it("after start: the quest ids, each value the whole argument text", () => {
    expect(questCompletions("start f", QUESTS)).toEqual([
      { value: "start first-prompt", label: "first-prompt", description: "Say hello to Pi" },
      { value: "start first-file", label: "first-file", description: "Make your first file" },
      { value: "start first-commit", label: "first-commit", description: "Commit it" },
    ]);
    expect(questCompletions("start first-f", QUESTS)?.map((item) => item.value)).toEqual([
      "start first-file",
    ]);
  });

  it("after `start ` with nothing typed: every quest", () => {
    expect(questCompletions("start ", QUESTS)?.map((item) => item.label)).toEqual(QUESTS.map((q) => q.id));
  });

  it("no match is null, not an empty list", () => {
    expect(questCompletions("he", QUESTS)).toBeNull();
    expect(questCompletions("zzz", QUESTS)).toBeNull();
    expect(questCompletions("start nope", QUESTS)).toBeNull();
    expect(questCompletions("start ", [])).toBeNull();
  });

  it("nothing to complete after a finished argument", () => {
    expect(questCompletions("list more", QUESTS)).toBeNull();
    expect(questCompletions("start first-file ", QUESTS)).toBeNull();
    expect(questCompletions("start first-file x", QUESTS)).toBeNull();
  });
});
