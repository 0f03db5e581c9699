/**
 * A learner's first Pi has no model: the real `pi` over RPC without the scripted model and with
 * no API key in its environment. pi-quests says once, as the session opens and before any
 * message is typed, how to set one up; a Pi with a model is told nothing.
 */
import { afterEach, describe, expect, it } from "vitest";
import { closeAllPis, startPiRpc } from "../support/pi-rpc.ts";
import { makeWorkspace } from "../support/workspace.ts";

afterEach(closeAllPis);

const ADVICE = /^Pi has no model to answer with yet, and the quests need one: .*\/login.*\/model/;

describe("a Pi with no model", () => {
  it("is told how to set one up, once, before the first message; the first quest still starts", async () => {
    const pi = startPiRpc({ workspace: makeWorkspace(), scriptedModel: false });
    await pi.settled();
    expect(pi.notifications().filter((text) => ADVICE.test(text))).toHaveLength(1);
    expect(pi.hud().widget?.[0]).toBe("Quest 1/29: Say hello to Pi");
    // A new session in the same Pi: not told again.
    const from = pi.lines.length;
    await pi.request({ type: "new_session" });
    await pi.settled();
    expect(pi.notifications(from).filter((text) => ADVICE.test(text))).toEqual([]);
  }, 60_000);

  it("a Pi with a model is told nothing about models", async () => {
    const pi = startPiRpc({ workspace: makeWorkspace(), script: [{ text: "Hello!" }] });
    await pi.settled();
    expect(pi.notifications().filter((text) => /model/i.test(text) && !/^Quest /.test(text))).toEqual([]);
  }, 60_000);
});
