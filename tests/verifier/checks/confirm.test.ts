import { describe, expect, it } from "vitest";
import { evaluateCheck } from "../../../src/verifier/evaluate.ts";
import { check } from "../../support/checks.ts";
import { context, fakeProbes } from "../../support/fake-probes.ts";

describe("confirm", () => {
  it("confirm passes on yes and is pending otherwise", async () => {
    const confirm = check({ type: "confirm", prompt: "Did you read the docs?" });
    const answer = (value: boolean | undefined) =>
      context({ probes: fakeProbes({}, { confirm: async () => value }) });
    expect((await evaluateCheck(confirm, answer(true))).status).toBe("pass");
    expect((await evaluateCheck(confirm, answer(false))).status).toBe("pending");
    expect((await evaluateCheck(confirm, answer(undefined))).status).toBe("pending");
  });
});
