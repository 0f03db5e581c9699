/**
 * "This Pi is untested": the one module that says it, in one shape for every reading of Pi, once
 * per process.
 */
import { describe, expect, it } from "vitest";
import { couldNotRead, createPiNotices, PI_READINGS, unreadText } from "../../src/core/untested-pi.ts";

describe("what pi-quests says when something of Pi could not be read", () => {
  it("names the Pi, the reading and what was found instead", () => {
    expect(couldNotRead("1.7.0", "refusals", 'a call not run, for: "Unknown tool: nope"')).toBe(
      'this Pi (1.7.0) is untested: the text of Pi\'s own refusal of a tool call could not be read (a call not run, for: "Unknown tool: nope")',
    );
    expect(couldNotRead(undefined, "sessionEntry")).toBe(
      "this Pi is untested: an entry of this Pi's session file could not be read",
    );
    expect(unreadText("1.7.0", "origin")).toBe(
      "pi-quests: this Pi (1.7.0) is untested: who changed the model, the thinking level or the session's name could not be read. What needs it stays unmet rather than judged on a guess; a newer pi-quests may know this Pi.",
    );
  });

  it("has words for every reading docs/architecture.md lists", () => {
    expect(Object.keys(PI_READINGS).sort()).toEqual(
      ["modules", "origin", "piAi", "piTui", "refusals", "sessionEntry"].sort(),
    );
  });
});

describe("the notices of one Pi process", () => {
  it("say each reading once, whatever the detail, and a newer Pi's untested start once", () => {
    const told = new Set<string>();
    const said: string[] = [];
    const tell = (text: string) => said.push(text);
    const notices = createPiNotices("1.7.0", told);
    notices.unread("refusals", tell, "first");
    notices.unread("refusals", tell, "second");
    notices.unread("origin", tell);
    notices.sessionStarted(tell);
    // Pi calls the factory again (a new session, /reload): the same memory, nothing said twice.
    const again = createPiNotices("1.7.0", told);
    again.sessionStarted(tell);
    again.unread("origin", tell);
    expect(said).toEqual([
      unreadText("1.7.0", "refusals", "first"),
      unreadText("1.7.0", "origin"),
      expect.stringMatching(
        /^pi-quests was tested with Pi 1\.5 and 1\.6 .*this is Pi 1\.7\.0, which is untested/,
      ),
    ]);
  });

  it("say nothing at the start of a tested Pi", () => {
    const said: string[] = [];
    for (const version of ["1.6.0", "1.5.2"])
      createPiNotices(version, new Set()).sessionStarted((text) => said.push(text));
    expect(said).toEqual([]);
  });
});
