import { describe, expect, it } from "vitest";
import { questCompletions, questHelp, readQuestCommand } from "../../src/extension/quest-command.ts";
import { QUEST_SUBCOMMANDS, type QuestSummary } from "../../src/extension/quest-subcommands.ts";

/** Each subcommand's help line, by name, in table order. */
const SUBCOMMANDS = Object.fromEntries(QUEST_SUBCOMMANDS.map(({ name, help }) => [name, help]));

/** A `/quest` line as data, the way a subcommand sees it: `start ID` is `{ kind: "start", questId: ID }`. */
function parseQuestCommand(args: string) {
  const line = readQuestCommand(args);
  if (line.kind !== "subcommand") return line;
  return { ...line.subcommand.parse(line.rest), kind: line.subcommand.name };
}

const QUESTS: QuestSummary[] = [
  { id: "first-prompt", title: "Say hello to Pi", standing: "available", debrief: false },
  { id: "first-file", title: "Make your first file", standing: "available", debrief: false },
  { id: "first-commit", title: "Commit it", standing: "available", debrief: false },
  { id: "skills", title: "Write a skill", standing: "available", debrief: false },
];

/** A pack midway: one done, one active, one skipped, one locked behind the skipped one, one available. */
const MIDWAY: QuestSummary[] = [
  { id: "first-prompt", title: "Say hello to Pi", standing: "done", minutes: 2, debrief: true },
  { id: "first-file", title: "Make your first file", standing: "active", minutes: 3, debrief: true },
  { id: "steer", title: "Steer a run", standing: "skipped", minutes: 5, debrief: true },
  { id: "fork", title: "Fork a session", standing: "locked", needs: ["steer"], minutes: 4, debrief: true },
  { id: "first-commit", title: "Commit it", standing: "available", debrief: false },
  { id: "notes", title: "Take notes", standing: "done", debrief: false },
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

  it("check all re-checks the completed quests; any other word is the active quest's check", () => {
    expect(parseQuestCommand("check all")).toEqual({ kind: "check", all: "yes" });
    expect(parseQuestCommand("check")).toEqual({ kind: "check", all: undefined });
    expect(parseQuestCommand("check nope")).not.toHaveProperty("all", "yes");
  });

  it("solution with or without a quest id", () => {
    expect(parseQuestCommand("solution")).toEqual({ kind: "solution", questId: undefined });
    expect(parseQuestCommand("solution first-file")).toEqual({ kind: "solution", questId: "first-file" });
  });

  it("skip and debrief with or without a quest id", () => {
    expect(parseQuestCommand("skip")).toEqual({ kind: "skip", questId: undefined });
    expect(parseQuestCommand("skip steer")).toEqual({ kind: "skip", questId: "steer" });
    expect(parseQuestCommand("debrief")).toEqual({ kind: "debrief", questId: undefined });
    expect(parseQuestCommand("debrief first-file")).toEqual({ kind: "debrief", questId: "first-file" });
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
    expect(lines).toContain("  /quest start     start a quest: /quest start ID");
    const columns = Object.values(SUBCOMMANDS).map((text, index) => lines[index]?.indexOf(text));
    expect(new Set(columns).size).toBe(1);
  });

  it("knows the eleven subcommands", () => {
    expect(Object.keys(SUBCOMMANDS)).toEqual([
      "list",
      "start",
      "check",
      "hint",
      "status",
      "skip",
      "debrief",
      "solution",
      "reset",
      "packs",
      "pack",
    ]);
  });
});

describe("completions", () => {
  it("after check: all; typed in full, no menu (the first Enter runs it)", () => {
    expect(questCompletions("check ", QUESTS)).toEqual([
      { value: "check all", label: "all", description: "re-check every completed quest" },
    ]);
    expect(questCompletions("check a", QUESTS)?.map((item) => item.value)).toEqual(["check all"]);
    expect(questCompletions("check all", QUESTS)).toBeNull();
    expect(questCompletions("check x", QUESTS)).toBeNull();
  });

  it("after solution: the quests done or skipped, whose solution is open", () => {
    expect(questCompletions("solution ", MIDWAY)?.map((item) => item.label)).toEqual([
      "first-prompt",
      "steer",
      "notes",
    ]);
  });

  it("nothing typed: every subcommand, with its description", () => {
    const items = questCompletions("", QUESTS);
    expect(items?.map((item) => item.value)).toEqual(Object.keys(SUBCOMMANDS));
    expect(items?.[0]).toEqual({ value: "list", label: "list", description: SUBCOMMANDS.list });
  });

  it("a prefix: the subcommands it starts", () => {
    expect(questCompletions("s", QUESTS)?.map((item) => item.value)).toEqual([
      "start",
      "status",
      "skip",
      "solution",
    ]);
    expect(questCompletions("h", QUESTS)?.map((item) => item.value)).toEqual(["hint"]);
    // Typed in full, a subcommand offers nothing: Pi's first Enter would only accept it.
    expect(questCompletions("start", QUESTS)).toBeNull();
    expect(questCompletions("hint", QUESTS)).toBeNull();
    expect(questCompletions("stat", QUESTS)?.map((item) => item.value)).toEqual(["status"]);
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
    // A whole id typed: no menu, so the first Enter starts it.
    expect(questCompletions("start first-file", QUESTS)).toBeNull();
  });

  it("after `start ` with nothing typed: every quest", () => {
    expect(questCompletions("start ", QUESTS)?.map((item) => item.label)).toEqual(QUESTS.map((q) => q.id));
  });

  it("after start: what can be started first, each saying where it stands unless simply available; locked ones last, naming what they need", () => {
    expect(questCompletions("start ", MIDWAY)).toEqual([
      { value: "start first-prompt", label: "first-prompt", description: "✓ done · Say hello to Pi · 2 min" },
      {
        value: "start first-file",
        label: "first-file",
        description: "▶ active · Make your first file · 3 min",
      },
      { value: "start steer", label: "steer", description: "↷ skipped · Steer a run · 5 min" },
      { value: "start first-commit", label: "first-commit", description: "Commit it" },
      { value: "start notes", label: "notes", description: "✓ done · Take notes" },
      { value: "start fork", label: "fork", description: "locked: needs steer · Fork a session · 4 min" },
    ]);
    expect(questCompletions("start f", MIDWAY)?.map((item) => item.label)).toEqual([
      "first-prompt",
      "first-file",
      "first-commit",
      "fork",
    ]);
  });

  it("after skip: the active quest first, then the others not done and not skipped", () => {
    expect(questCompletions("skip ", MIDWAY)?.map((item) => item.label)).toEqual([
      "first-file",
      "fork",
      "first-commit",
    ]);
  });

  it("after debrief: the done quests that have a debrief", () => {
    expect(questCompletions("debrief ", MIDWAY)?.map((item) => item.label)).toEqual(["first-prompt"]);
    expect(questCompletions("debrief x", MIDWAY)).toBeNull();
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
