/**
 * What a learner whose Pi has no model is told as the session opens: how to set one up, in Pi's
 * own commands, instead of a first message that fails.
 */
import { describe, expect, it } from "vitest";
import { modelSetupAdvice, modelSetupOf } from "../../src/extension/model-setup.ts";

describe("model setup advice", () => {
  it("no model: says the quests need one, and how to set one up (/login, /model, or an API key)", () => {
    const advice = modelSetupAdvice({ kind: "none" }) ?? "";
    expect(advice).toMatch(/^Pi has no model to answer with yet, and the quests need one: type \/login/);
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

describe("what Pi has to answer with", () => {
  const registry = (known: Record<string, boolean>) => ({
    find: (provider: string, id: string) =>
      `${provider}/${id}` in known ? { provider, id, auth: known[`${provider}/${id}`] } : undefined,
    hasConfiguredAuth: (model: never) => (model as { auth: boolean }).auth,
  });

  it("no model, or Pi's placeholder its registry does not know: none", () => {
    expect(modelSetupOf({ model: undefined, modelRegistry: registry({}) })).toEqual({ kind: "none" });
    const placeholder = { provider: "unknown", id: "unknown" };
    expect(modelSetupOf({ model: placeholder, modelRegistry: registry({}) })).toEqual({ kind: "none" });
  });

  it("a known model with a key or login: ready; without: no-key, named", () => {
    const model = { provider: "anthropic", id: "claude-x" };
    expect(modelSetupOf({ model, modelRegistry: registry({ "anthropic/claude-x": true }) })).toEqual({
      kind: "ready",
    });
    expect(modelSetupOf({ model, modelRegistry: registry({ "anthropic/claude-x": false }) })).toEqual({
      kind: "no-key",
      provider: "anthropic",
      model: "claude-x",
    });
  });

  it("a registry that throws (an untested Pi): unknown, so nothing is said", () => {
    const broken = {
      find: () => {
        throw new Error("no such method");
      },
      hasConfiguredAuth: () => true,
    };
    expect(modelSetupOf({ model: { provider: "a", id: "b" }, modelRegistry: broken })).toEqual({
      kind: "unknown",
    });
  });
});
