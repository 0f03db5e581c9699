/**
 * Where the extension tells "this Pi is untested": the session it happens in, once per process;
 * a Pi's refusal texts read as untested only on a Pi newer than tested.
 */
import type { ExtensionContext } from "@earendil-works/pi-coding-agent";
import { beforeEach, describe, expect, it, vi } from "vitest";
import { extensionPiNotices } from "../../src/extension/pi-notices.ts";
import { processMemory } from "../../src/extension/process-memory.ts";

beforeEach(() => processMemory().told.clear());

const ctxOf = (name: string, hasUI = true) => ({ name, hasUI }) as unknown as ExtensionContext;

function notices(version: string) {
  const said: [string, string][] = [];
  const notify = (ctx: ExtensionContext, text: string) =>
    said.push([(ctx as unknown as { name: string }).name, text]);
  return { said, notices: extensionPiNotices(version, notify) };
}

describe("the extension's notices of an untested Pi", () => {
  it("on a newer Pi: refusal texts read as untested; what could not be read goes to the latest session, once", () => {
    const { said, notices: newer } = notices("1.7.0");
    expect(newer.translatorOptions.refusals).toBe("untested");
    newer.sessionStarted(ctxOf("first"));
    newer.translatorOptions.unread?.("refusals", 'a call not run, for: "Unknown tool"');
    newer.translatorOptions.unread?.("refusals", "again");
    newer.originUnread(ctxOf("first"), "act-origin's own text");
    newer.originUnread(ctxOf("first"), "act-origin's own text");
    expect(said.map(([ctx, text]) => [ctx, text.split(" is untested")[0]])).toEqual([
      ["first", "pi-quests was tested with Pi 1.5 and 1.6 (up to 1.6.0); this is Pi 1.7.0, which"],
      ["first", "pi-quests: this Pi (1.7.0)"],
      ["first", "pi-quests: this Pi (1.7.0)"],
    ]);
    expect(said[1]?.[1]).toContain("the text of Pi's own refusal of a tool call could not be read");
    expect(said[2]?.[1]).toContain(
      "who changed the model, the thinking level or the session's name could not be read",
    );
  });

  it("on a tested Pi: refusal texts known, nothing said at start, an unknown origin in act-origin's words", () => {
    const { said, notices: tested } = notices("1.6.0");
    expect(tested.translatorOptions.refusals).toBe("known");
    tested.sessionStarted(ctxOf("s"));
    tested.originUnread(ctxOf("s"), "act-origin's own text");
    expect(said).toEqual([["s", "act-origin's own text"]]);
  });

  it("in print mode (no UI), says what could not be read on stderr", () => {
    const write = vi.spyOn(process.stderr, "write").mockImplementation(() => true);
    try {
      const { said, notices: newer } = notices("1.7.0");
      newer.sessionStarted(ctxOf("print", false));
      newer.translatorOptions.unread?.("refusals", "x");
      expect(write).toHaveBeenCalledWith(
        expect.stringMatching(/^pi-quests: this Pi \(1\.7\.0\) is untested: .*\n$/),
      );
      expect(said.map(([, text]) => text)).toEqual([expect.stringMatching(/which is untested/)]);
    } finally {
      write.mockRestore();
    }
  });
});
