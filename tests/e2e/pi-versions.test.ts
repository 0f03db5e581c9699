/**
 * pi-quests in a Pi outside the range it was tested on (src/core/pi-versions.ts), in the real
 * `pi` over RPC: a copy of the installed Pi that says it is older, or newer
 * (tests/support/pi-copies.ts). An older Pi: one sentence naming the supported versions, no
 * quest, no stack trace. A newer one: the quests run, and it says once that it is untested.
 */
import { afterEach, describe, expect, it } from "vitest";
import { piClaiming } from "../support/pi-copies.ts";
import { closeAllPis, startPiRpc } from "../support/pi-rpc.ts";
import { makeWorkspace } from "../support/workspace.ts";

afterEach(closeAllPis);

const SCRIPT = [{ text: "Hello!" }, { text: "Hello again!" }];

describe("pi-quests in a Pi it was not tested on", () => {
  it("an older Pi: one sentence naming the supported versions, no quest started, no stack trace", async () => {
    const old = piClaiming("1.4.0");
    const pi = startPiRpc({ workspace: makeWorkspace(), pi: old.cli, script: SCRIPT });
    await pi.prompt("Hi");
    await pi.request({ type: "new_session" });
    await pi.prompt("Hi again");
    expect(pi.notifications()).toEqual([
      "pi-quests supports Pi 1.5 and 1.6 (1.5.0 or later), not Pi 1.4.0: no quest starts here; update Pi (npm install -g @earendil-works/pi-coding-agent) and start it again.",
    ]);
    expect(pi.widgets()).toEqual([]);
    expect(pi.statuses()).toEqual([]);
    expect(pi.stderr()).not.toMatch(/\n\s+at |Error:/);
  }, 60_000);

  it("a newer Pi than tested: the quests run, and it says once, not at every session, that it is untested", async () => {
    const newer = piClaiming("1.7.0");
    const pi = startPiRpc({ workspace: makeWorkspace(), pi: newer.cli, script: SCRIPT });
    await pi.prompt("Hi");
    await pi.settled();
    await pi.request({ type: "new_session" });
    await pi.prompt("Hi again");
    await pi.settled();
    const untested = pi.notifications().filter((text) => text.includes("untested"));
    expect(untested).toEqual([
      "pi-quests was tested with Pi 1.5 and 1.6 (up to 1.6.0); this is Pi 1.7.0, which is untested: the quests run, and anything of this Pi that pi-quests cannot read is said when it happens.",
    ]);
    // The first quest of the built-in pack started, and the prompt completed it.
    expect(pi.widgets().flat().join("\n")).toMatch(/Quest 1\/\d+:/);
    expect(pi.notifications().some((text) => /Quest complete/.test(text))).toBe(true);
  }, 60_000);
});
