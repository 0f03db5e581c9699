import { describe, expect, it } from "vitest";
import { readJsonPath } from "../../../src/verifier/checks/structured-path.ts";
import { evaluateCheck } from "../../../src/verifier/evaluate.ts";
import { check } from "../../support/checks.ts";
import { context, WORKSPACE } from "../../support/fake-probes.ts";

const doc = {
  name: "demo",
  scripts: { test: "vitest", "build:prod": "tsc" },
  tags: ["a", "b"],
  nested: [
    { id: 1, ok: true },
    { id: 2, ok: false },
  ],
  "odd key": { "with.dot": 7 },
};

describe("JSONPath (jsonpath-plus)", () => {
  it.each([
    ["$", [doc]],
    ["$.name", ["demo"]],
    ["$['name']", ["demo"]],
    ['$["scripts"]["build:prod"]', ["tsc"]],
    ["$.tags[1]", ["b"]],
    ["$.nested[0].id", [1]],
    ["$['odd key']['with.dot']", [7]],
    ["$.tags[*]", ["a", "b"]],
    ["$.nested[*].id", [1, 2]],
    ["$.scripts.*", ["vitest", "tsc"]],
    ["$.absent", []],
    ["$.tags[5]", []],
  ])("%s", async (path, expected) => {
    expect(await readJsonPath(doc, path)).toEqual(expected);
  });

  it("never evaluates script filters from a quest file", async () => {
    await expect(readJsonPath(doc, "$.nested[?(@.ok)]")).rejects.toThrow();
  });
});

const jsonFile = (assertion: Record<string, unknown>) =>
  check({ type: "json_path", file: "package.json", path: "$.scripts.test", ...assertion });

describe("json_path checks", () => {
  const files = { [`${WORKSPACE}/package.json`]: JSON.stringify(doc, null, 2) };
  const ctx = context({}, files);

  it.each([
    [{ assert: "exists" }, "pass"],
    [{ assert: "non_empty" }, "pass"],
    [{ assert: "equals", value: "vitest" }, "pass"],
    [{ assert: "equals", value: "jest" }, "fail"],
    [{ assert: "contains", value: "test" }, "pass"],
    [{ assert: "contains", value: "mocha" }, "fail"],
    [{ assert: "matches", value: "^vi" }, "pass"],
    [{ assert: "matches", value: "^je" }, "fail"],
    [{ assert: "missing" }, "fail"],
  ])("%j is %s", async (assertion, status) => {
    expect((await evaluateCheck(jsonFile(assertion), ctx)).status).toBe(status);
  });

  it("passes when any wildcard match satisfies the assertion", async () => {
    const anyTag = check({
      type: "json_path",
      file: "package.json",
      path: "$.tags[*]",
      assert: "equals",
      value: "b",
    });
    expect((await evaluateCheck(anyTag, ctx)).status).toBe("pass");
    const arrayContains = check({
      type: "json_path",
      file: "package.json",
      path: "$.tags",
      assert: "contains",
      value: "a",
    });
    expect((await evaluateCheck(arrayContains, ctx)).status).toBe("pass");
  });

  it("missing passes when nothing matches", async () => {
    const noLint = check({
      type: "json_path",
      file: "package.json",
      path: "$.scripts.lint",
      assert: "missing",
    });
    expect((await evaluateCheck(noLint, ctx)).status).toBe("pass");
  });

  it("non_empty fails on empty strings, lists and maps", async () => {
    const emptyFile = { [`${WORKSPACE}/e.json`]: '{"s":"","l":[],"m":{}}' };
    for (const path of ["$.s", "$.l", "$.m"]) {
      const result = await evaluateCheck(
        check({ type: "json_path", file: "e.json", path, assert: "non_empty" }),
        context({}, emptyFile),
      );
      expect(result.status).toBe("fail");
    }
  });

  it("a parse error fails with the parser's message and line", async () => {
    const broken = context({}, { [`${WORKSPACE}/package.json`]: '{\n  "name": "x",\n  oops\n}' });
    const result = await evaluateCheck(jsonFile({ assert: "exists" }), broken);
    expect(result.status).toBe("fail");
    expect(result.evidence).toMatchObject({ kind: "structured_path", parseError: { line: 3 } });
  });

  it("a missing file fails; a binary file fails; an oversized file is pending and not read", async () => {
    const exists = jsonFile({ assert: "exists" });
    expect((await evaluateCheck(exists, context())).status).toBe("fail");
    const binary = await evaluateCheck(
      exists,
      context({}, { [`${WORKSPACE}/package.json`]: Buffer.from([0x7b, 0, 1, 2]) }),
    );
    expect(binary).toMatchObject({ status: "fail", evidence: { kind: "path", problem: "binary" } });
    const huge = await evaluateCheck(
      exists,
      context({}, { [`${WORKSPACE}/package.json`]: { size: 5 * 1024 * 1024 } }),
    );
    expect(huge).toMatchObject({ status: "pending", evidence: { pending: "too_large" } });
  });

  it("a path leaving the workspace fails without being read", async () => {
    const outside = check({ type: "json_path", file: "../outside.json", path: "$", assert: "exists" });
    const result = await evaluateCheck(outside, context({}, { "/work/outside.json": "{}" }));
    expect(result).toMatchObject({ status: "fail", evidence: { kind: "path", problem: "escape" } });
  });
});
