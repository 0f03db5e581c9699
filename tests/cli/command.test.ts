import { describe, expect, it } from "vitest";
import { CHECK_COMMAND } from "../../src/cli/check.ts";
import { synopsisOf } from "../../src/cli/command.ts";
import { LINT_COMMAND } from "../../src/cli/lint.ts";
import { RECEIPTS_COMMAND } from "../../src/cli/receipts.ts";

describe("a command's synopsis", () => {
  it("is the first line of its usage, after `Usage: pi-quests `", () => {
    expect(synopsisOf(LINT_COMMAND)).toBe("lint PATH...");
    expect(synopsisOf(CHECK_COMMAND)).toBe("check QUEST.yaml|PACK_DIR [options]");
    expect(synopsisOf(RECEIPTS_COMMAND)).toBe("receipts [options]");
  });

  it("every command's usage starts with its own name", () => {
    for (const command of [LINT_COMMAND, CHECK_COMMAND, RECEIPTS_COMMAND]) {
      expect(command.usage.startsWith(`Usage: pi-quests ${command.name}`)).toBe(true);
    }
  });
});
