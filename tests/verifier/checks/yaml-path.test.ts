import { describe, expect, it } from "vitest";
import { evaluateCheck } from "../../../src/verifier/evaluate.ts";
import { check } from "../../support/checks.ts";
import { context, WORKSPACE } from "../../support/fake-probes.ts";

describe("yaml_path checks", () => {
  it("reads YAML with the yaml library, and reports its parse errors with a line", async () => {
    const yamlCtx = context({}, { [`${WORKSPACE}/c.yaml`]: "server:\n  port: 8080\n  hosts: [a, b]\n" });
    const port = check({
      type: "yaml_path",
      file: "c.yaml",
      path: "$.server.port",
      assert: "equals",
      value: 8080,
    });
    expect((await evaluateCheck(port, yamlCtx)).status).toBe("pass");
    const brokenYaml = context({}, { [`${WORKSPACE}/c.yaml`]: "server:\n  port: [8080\n" });
    const result = await evaluateCheck(port, brokenYaml);
    expect(result.status).toBe("fail");
    expect(result.evidence).toMatchObject({ parseError: { line: expect.any(Number) } });
  });
});
