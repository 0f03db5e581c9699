import { describe, expect, it } from "vitest";
import { synopsisOf } from "../../src/cli/command.ts";
import { COMMANDS } from "../../src/cli/main.ts";
import { CHECK_USAGE, LINT_USAGE, RECEIPTS_USAGE } from "../../src/cli/usage.ts";

describe("a command's synopsis", () => {
  it("is the first line of its usage, after `Usage: pi-quests `", () => {
    expect(synopsisOf({ usage: LINT_USAGE })).toBe("lint PATH...");
    expect(synopsisOf({ usage: CHECK_USAGE })).toBe("check QUEST.yaml|PACK_DIR [options]");
    expect(synopsisOf({ usage: RECEIPTS_USAGE })).toBe("receipts [options]");
  });

  it("every command's usage starts with its own name", () => {
    for (const command of COMMANDS) {
      expect(command.usage.startsWith(`Usage: pi-quests ${command.name}`)).toBe(true);
    }
  });

  it("every command's module loads and gives the function that runs it", async () => {
    for (const command of COMMANDS) expect(typeof (await command.load()), command.name).toBe("function");
  });
});
