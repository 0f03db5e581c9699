import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { hashDefinition, pinQuest, unpinQuest } from "../../src/extension/pinned-quest.ts";
import { loadQuestPack } from "../../src/verifier/loader.ts";
import type { Quest } from "../../src/verifier/quest.ts";

const PACK_DIR = join(import.meta.dirname, "../../fixtures/packs/starter");
let pack: Quest[];

beforeAll(async () => {
  const loaded = await loadQuestPack(PACK_DIR);
  if (!loaded.ok) throw new Error(`the starter pack does not load: ${JSON.stringify(loaded.diagnostics)}`);
  pack = loaded.value;
});

const byId = (id: string) => {
  const quest = pack.find((q) => q.id === id);
  if (!quest) throw new Error(`no quest ${id}`);
  return quest;
};

describe("pin, then unpin", () => {
  it("gives back the loaded quest, for every quest of the starter pack", () => {
    expect(pack.map((quest) => quest.id)).toEqual(["first-prompt", "first-file", "first-commit"]);
    for (const quest of pack) {
      const unpinned = unpinQuest(pinQuest(quest));
      expect(unpinned, quest.id).toEqual({ ok: true, quest });
    }
  });

  it("survives the trip through the progress file (JSON)", () => {
    const quest = byId("first-file");
    const stored = JSON.parse(JSON.stringify(pinQuest(quest)));
    expect(unpinQuest(stored)).toEqual({ ok: true, quest });
  });

  it("keeps the source file and the sandbox template, which the quest file alone does not hold", () => {
    const quest = byId("first-file");
    const unpinned = unpinQuest(pinQuest(quest));
    expect(unpinned.ok && unpinned.quest.source).toBe(join(PACK_DIR, "20-first-file.yaml"));
    expect(unpinned.ok && unpinned.quest.sandboxDir).toBe(join(PACK_DIR, "sandboxes/first-file"));
  });

  it("the pinned definition is a copy: editing the quest afterwards does not change it", () => {
    const quest = structuredClone(byId("first-file"));
    const pinned = pinQuest(quest);
    const hash = pinned.definitionHash;
    quest.title = "Edited";
    quest.checks.pop();
    expect(pinned.definition.title).toBe("Make your first file");
    expect(hashDefinition(pinned.definition)).toBe(hash);
    expect(unpinQuest(pinned)).toEqual({ ok: true, quest: byId("first-file") });
  });

  it("the hash is a sha256 in hex", () => {
    expect(pinQuest(byId("first-prompt")).definitionHash).toMatch(/^[0-9a-f]{64}$/);
  });

  it("different quests hash differently", () => {
    const hashes = new Set(pack.map((quest) => pinQuest(quest).definitionHash));
    expect(hashes.size).toBe(pack.length);
  });
});

describe("a tampered definition", () => {
  it("whose content no longer matches its hash is refused", () => {
    const pinned = pinQuest(byId("first-file"));
    const tampered = { ...pinned, definition: { ...pinned.definition, checks: [] } };
    expect(unpinQuest(tampered)).toEqual({
      ok: false,
      problem: "the pinned definition does not match its hash",
    });
  });

  it("an edited title is enough to be refused", () => {
    const pinned = pinQuest(byId("first-prompt"));
    const tampered = { ...pinned, definition: { ...pinned.definition, title: "Something else" } };
    expect(unpinQuest(tampered).ok).toBe(false);
  });

  it("with a matching hash but not a quest is refused too", () => {
    const definition = { id: "first-file", checks: "none" };
    expect(unpinQuest({ definition, definitionHash: hashDefinition(definition) })).toEqual({
      ok: false,
      problem: "the pinned definition is not a quest",
    });
  });

  it("without its source file is not a quest", () => {
    const { source: _source, ...rest } = pinQuest(byId("first-prompt")).definition;
    expect(unpinQuest({ definition: rest, definitionHash: hashDefinition(rest) })).toEqual({
      ok: false,
      problem: "the pinned definition is not a quest",
    });
  });
});

describe("the hash is of the content, not the layout", () => {
  it("key order does not change it, at any depth", () => {
    const a = { id: "q", checks: [{ type: "event", match: { event: "input", tool: "write" } }], title: "T" };
    const b = { title: "T", checks: [{ match: { tool: "write", event: "input" }, type: "event" }], id: "q" };
    expect(hashDefinition(a)).toBe(hashDefinition(b));
  });

  it("a reordered pinned quest still unpins", () => {
    const pinned = pinQuest(byId("first-commit"));
    const reversed = Object.fromEntries(Object.entries(pinned.definition).reverse());
    expect(Object.keys(reversed)).not.toEqual(Object.keys(pinned.definition));
    expect(unpinQuest({ definition: reversed, definitionHash: pinned.definitionHash })).toEqual({
      ok: true,
      quest: byId("first-commit"),
    });
  });

  it("array order does change it: checks run in order", () => {
    expect(hashDefinition({ list: [1, 2] })).not.toBe(hashDefinition({ list: [2, 1] }));
  });

  it("a key whose value is undefined is the same as no key, as in JSON", () => {
    expect(hashDefinition({ a: 1, b: undefined })).toBe(hashDefinition({ a: 1 }));
  });

  it("a changed value changes it", () => {
    expect(hashDefinition({ a: "1" })).not.toBe(hashDefinition({ a: 1 }));
    expect(hashDefinition({ a: { b: null } })).not.toBe(hashDefinition({ a: {} }));
  });
});
