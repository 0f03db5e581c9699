/**
 * Progress carried to a new, empty folder, as the learner meets it: the advice where a quest
 * needs an empty folder, the question in the new folder (only with a UI to ask), and the note
 * once the quests are carried.
 */
import { describe, expect, it } from "vitest";
import {
  carriedOverNote,
  EMPTY_FOLDER_COMMAND,
  emptyFolderAdvice,
  offerCarriedProgress,
} from "../../src/extension/carried-progress.ts";
import type { CarryOver } from "../../src/runtime/carry-over.ts";
import { QuestFileSchema } from "../../src/verifier/quest.ts";
import { fakeQuestUi } from "../support/fake-quest-ui.ts";

const file = QuestFileSchema.parse({
  version: 1,
  id: "read-first",
  title: "Point Pi at a file",
  goal: "Point Pi at a file.",
  checks: [{ id: "read", type: "event", match: { event: "input" } }],
});
const QUEST = {
  ...file,
  checks: file.checks.map((check) => ({ ...check, id: check.id ?? "?" })),
  source: "/p.yaml",
};

const at = "2030-01-01T00:00:00.000Z";
const CARRY: CarryOver = {
  version: 1,
  from: "/home/ada/project",
  quest: "read-first",
  completed: { "first-prompt": { at, definitionHash: "a".repeat(64) } },
  skipped: {},
  at,
};

describe("the advice where a quest needs an empty folder", () => {
  it("with the quests left for it: the quest starts there by itself, and they count", () => {
    expect(emptyFolderAdvice(QUEST, true)).toBe(
      `Start Pi in an empty folder, for example: ${EMPTY_FOLDER_COMMAND}. "Point Pi at a file" starts there by itself, and the quests you did here count there too.`,
    );
  });

  it("when they could not be left: how to start the quest there", () => {
    expect(emptyFolderAdvice(QUEST, false)).toBe(
      `Start Pi in an empty folder, for example: ${EMPTY_FOLDER_COMMAND}, then /quest start read-first.`,
    );
  });

  it("of a pack a new folder does not open on: how to reach it there first", () => {
    expect(emptyFolderAdvice(QUEST, true, "/quest pack acme")).toContain(
      `${EMPTY_FOLDER_COMMAND}, then /quest pack acme. "Point Pi at a file" starts there by itself`,
    );
  });

  it("makes the folder only when it is not there: the README's install line may have made it", () => {
    expect(EMPTY_FOLDER_COMMAND).toMatch(/^mkdir -p /);
  });
});

describe("the question in a new folder", () => {
  const store = (offered: CarryOver | undefined) => {
    const claimed: CarryOver[] = [];
    return {
      claimed,
      peek: async () => offered,
      claim: async (carry: CarryOver) => {
        claimed.push(carry);
        return carry;
      },
    };
  };
  const titleOf = (id: string) => (id === "read-first" ? "Point Pi at a file" : id);

  it("asks, naming the folder, what counts and what starts; Yes takes the quests", async () => {
    const ui = fakeQuestUi();
    ui.answer(true);
    const offered = store(CARRY);
    expect(await offerCarriedProgress(offered, ui, titleOf)).toEqual(CARRY);
    expect(ui.confirms()).toEqual([
      {
        title: "Carry on from /home/ada/project?",
        message:
          'The 1 quest done there counts here, and "Point Pi at a file" starts here: its practice files are set up in this folder. No starts this folder from the first quest.',
      },
    ]);
    expect(offered.claimed).toEqual([CARRY]);
  });

  it("No, or no answer, takes nothing", async () => {
    for (const answer of [false, undefined]) {
      const ui = fakeQuestUi();
      ui.answer(answer);
      const offered = store(CARRY);
      expect(await offerCarriedProgress(offered, ui, titleOf)).toBeUndefined();
      expect(offered.claimed).toEqual([]);
    }
  });

  it("without a UI to ask (print mode, a Pi the agent started), nothing is offered or taken", async () => {
    const ui = fakeQuestUi({ hasUI: false });
    ui.answer(true);
    const offered = store(CARRY);
    expect(await offerCarriedProgress(offered, ui, titleOf)).toBeUndefined();
    expect(ui.confirms()).toEqual([]);
  });

  it("nothing left for this folder: no question", async () => {
    const ui = fakeQuestUi();
    expect(await offerCarriedProgress(store(undefined), ui, titleOf)).toBeUndefined();
    expect(ui.confirms()).toEqual([]);
  });
});

describe("the note once carried", () => {
  it("says where from and what counts, and that the other folder keeps its own progress", () => {
    expect(carriedOverNote(CARRY)).toBe(
      "Carried on from /home/ada/project: 1 quest done there counts here. That folder keeps its own progress.",
    );
    const more = {
      ...CARRY,
      completed: { ...CARRY.completed, b: CARRY.completed["first-prompt"] },
      skipped: { c: { at } },
    };
    expect(carriedOverNote(more as CarryOver)).toBe(
      "Carried on from /home/ada/project: 2 quests done and 1 skipped there count here. That folder keeps its own progress.",
    );
  });
});
