/**
 * A Pi started with code loaded before pi-quests (src/extension/start-trust.ts): its sessions keep
 * receipts in memory only, and the learner is told once, whatever the number of sessions.
 */
import { describe, expect, it } from "vitest";
import { judge } from "../../src/extension/start-trust.ts";
import { fakeQuestUi } from "../support/fake-quest-ui.ts";

describe("the trust of Pi's start", () => {
  it("a start with a preload is untrusted, and told once, naming it and what follows", () => {
    const trust = judge(["NODE_OPTIONS --import /tmp/patch.mjs"]);
    expect(trust.untrusted).toBe(true);
    const ui = fakeQuestUi();
    trust.tellOnce(ui);
    trust.tellOnce(fakeQuestUi());
    trust.tellOnce(ui);
    expect(ui.notes()).toEqual([
      {
        level: "warning",
        message: expect.stringMatching(
          /^pi-quests: this process was started with code that runs before pi-quests \(NODE_OPTIONS --import \/tmp\/patch\.mjs\): .*not kept for the next session/,
        ),
      },
    ]);
  });

  it("a plain start is trusted, and says nothing", () => {
    const trust = judge([]);
    const ui = fakeQuestUi();
    trust.tellOnce(ui);
    expect([trust.untrusted, ui.notes()]).toEqual([false, []]);
  });
});
