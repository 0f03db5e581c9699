import { describe, expect, it } from "vitest";
import { QUEST_SUBCOMMANDS } from "../../src/extension/quest-subcommands.ts";
import { type Check, CheckSchema, confirmationPrompt } from "../../src/verifier/checks/registry.ts";

describe("the /quest subcommand table", () => {
  it("names each subcommand once, in lower case, each with a help line", () => {
    const names = QUEST_SUBCOMMANDS.map((entry) => entry.name);
    expect(new Set(names).size).toBe(names.length);
    for (const entry of QUEST_SUBCOMMANDS) {
      expect(entry.name).toMatch(/^[a-z]+$/);
      expect(entry.help.length).toBeGreaterThan(0);
    }
  });

  it("help is a built-in, not an entry (it lists the entries)", () => {
    expect(QUEST_SUBCOMMANDS.map((entry) => entry.name)).not.toContain("help");
  });

  it("start, skip, debrief and solution complete a quest id; check completes `all`", () => {
    const completing = QUEST_SUBCOMMANDS.filter((entry) => entry.complete).map((entry) => entry.name);
    expect(completing).toEqual(["start", "check", "skip", "debrief", "solution"]);
    const start = QUEST_SUBCOMMANDS.find((entry) => entry.name === "start");
    expect(
      start?.complete?.("b", [
        { id: "alpha", title: "A", standing: "available", debrief: false },
        { id: "beta", title: "B", standing: "available", debrief: false },
      ]),
    ).toEqual([{ value: "beta", label: "beta", description: "B" }]);
  });

  it("reads the words after a name: start takes the first as its quest id; the others take none", () => {
    const parse = (name: string, rest: string[]) =>
      QUEST_SUBCOMMANDS.find((entry) => entry.name === name)?.parse(rest);
    expect(parse("start", ["alpha", "extra"])).toEqual({ questId: "alpha" });
    expect(parse("start", [])).toEqual({ questId: undefined });
    expect(parse("skip", ["beta"])).toEqual({ questId: "beta" });
    expect(parse("debrief", [])).toEqual({ questId: undefined });
    expect(parse("list", ["extra"])).toEqual({});
  });
});

describe("confirm checks on /quest check", () => {
  it("a confirm check asks its prompt; any other check asks nothing", () => {
    const check = (fields: Record<string, unknown>): Check => ({ ...CheckSchema.parse(fields), id: "c" });
    const confirm = check({ type: "confirm", prompt: "Did you read it?" });
    const event = check({ type: "event", match: { event: "input" } });
    expect(confirmationPrompt(confirm)).toBe("Did you read it?");
    expect(confirmationPrompt(event)).toBeUndefined();
  });
});
