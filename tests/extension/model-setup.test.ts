/**
 * What a learner whose Pi has no model is told as the session opens: how to set one up, in Pi's
 * own commands, instead of a first message that fails.
 */
import { describe, expect, it } from "vitest";
import { modelSetupAdvice } from "../../src/extension/model-setup.ts";

describe("model setup advice", () => {
  it("no model: says the quests need one, and how to set one up (/login, /model, or an API key)", () => {
    const advice = modelSetupAdvice({ kind: "none" }) ?? "";
    expect(advice).toMatch(/^Pi has no model to answer with yet, and the quests need one/);
    expect(advice).toContain("/login");
    expect(advice).toContain("/model");
    expect(advice).toContain("ANTHROPIC_API_KEY");
  });

  it("a model without a key or login: names it, and the same way to set one up", () => {
    const advice = modelSetupAdvice({ kind: "no-key", provider: "anthropic", model: "claude-x" }) ?? "";
    expect(advice).toMatch(/^Pi's model anthropic\/claude-x has no API key or login/);
    expect(advice).toContain("/login");
  });

  it("a model ready, or a Pi whose model API could not be read: nothing to say", () => {
    expect(modelSetupAdvice({ kind: "ready" })).toBeUndefined();
    expect(modelSetupAdvice({ kind: "unknown" })).toBeUndefined();
  });
});
