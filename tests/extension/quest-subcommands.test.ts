import { describe, expect, it } from "vitest";
import { questCompletions } from "../../src/extension/quest-command.ts";
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
    expect(completing).toEqual(["start", "check", "skip", "debrief", "solution", "pack"]);
    const start = QUEST_SUBCOMMANDS.find((entry) => entry.name === "start");
    expect(
      start?.complete?.(
        "b",
        [
          { id: "alpha", title: "A", standing: "available", debrief: false },
          { id: "beta", title: "B", standing: "available", debrief: false },
        ],
        [],
      ),
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

describe("/quest packs and /quest pack ID", () => {
  const entry = (name: string) => QUEST_SUBCOMMANDS.find((each) => each.name === name);
  const choices = [
    { id: "built-in", title: "Pi basics", source: "built-in", active: true },
    { id: "team", title: "Team onboarding", source: "package", active: false },
  ];

  it("completes pack ids after `pack`, with the title, the source and which is active", () => {
    expect(entry("pack")?.complete?.("t", [], choices)).toEqual([
      { value: "team", label: "team", description: "Team onboarding · package" },
    ]);
    expect(
      entry("pack")
        ?.complete?.("", [], choices)
        .map((each) => each.description),
    ).toEqual(["Pi basics · built-in · active", "Team onboarding · package"]);
    expect(questCompletions("pack te", [], choices)).toEqual([
      { value: "pack team", label: "team", description: "Team onboarding · package" },
    ]);
  });

  it("say the list, switch, or name what is missing", async () => {
    const said: string[] = [];
    const switched: string[] = [];
    const context = {
      ui: { say: (text: string) => said.push(text), confirm: async () => undefined },
      packs: {
        list: async () => "Quest packs: …",
        switchTo: async (id: string) => {
          switched.push(id);
          return id === "nope" ? 'No pack "nope".' : "";
        },
      },
    } as unknown as Parameters<NonNullable<ReturnType<typeof entry>>["run"]>[0];
    await entry("packs")?.run(context, []);
    await entry("pack")?.run(context, ["team"]);
    await entry("pack")?.run(context, ["nope"]);
    await entry("pack")?.run(context, []);
    expect(switched).toEqual(["team", "nope"]);
    expect(said).toEqual([
      "Quest packs: …",
      'No pack "nope".',
      "Which pack? /quest pack ID.\nQuest packs: …",
    ]);
  });
});

describe("/quest list and the active pack", () => {
  it("names a pack other than the built-in one first", () => {
    const said: string[] = [];
    const session = {
      pack: [],
      active: undefined,
      standingOf: () => "available",
      missingRequirements: () => [],
      isDone: () => false,
      isSkipped: () => false,
    };
    const list = QUEST_SUBCOMMANDS.find((each) => each.name === "list");
    const context = (packName?: string) =>
      ({
        session,
        ui: { say: (text: string) => said.push(text) },
        ...(packName ? { packName } : {}),
      }) as never;
    list?.run(context("Acme onboarding"), []);
    list?.run(context(), []);
    expect(said[0]?.split("\n")[0]).toBe("Pack: Acme onboarding (/quest packs lists the others)");
    expect(said[1]?.startsWith("Quests: ")).toBe(true);
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
