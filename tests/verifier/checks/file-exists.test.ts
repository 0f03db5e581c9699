import { describe, expect, it } from "vitest";
import { evaluateCheck } from "../../../src/verifier/evaluate.ts";
import { check } from "../../support/checks.ts";
import { context, WORKSPACE } from "../../support/fake-probes.ts";

describe("file_exists", () => {
  const files = { [`${WORKSPACE}/hello.txt`]: "hi", [`${WORKSPACE}/src`]: { dir: true as const } };
  it.each([
    [{ path: "hello.txt" }, "pass"],
    [{ path: "hello.txt", kind: "dir" }, "fail"],
    [{ path: "src", kind: "dir" }, "pass"],
    [{ path: "src" }, "fail"],
    [{ path: "src", kind: "any" }, "pass"],
    [{ path: "nope.txt" }, "fail"],
    [{ path: "{workspace}/hello.txt" }, "pass"],
  ])("%j is %s", async (fields, status) => {
    expect((await evaluateCheck(check({ type: "file_exists", ...fields }), context({}, files))).status).toBe(
      status,
    );
  });

  it("resolves {agent_dir} and {home} against their own roots", async () => {
    const ctx = context({}, { "/agent/skills/x/SKILL.md": "x", "/home/learner/.bashrc": "" });
    expect(
      (await evaluateCheck(check({ type: "file_exists", path: "{agent_dir}/skills/x/SKILL.md" }), ctx))
        .status,
    ).toBe("pass");
    expect((await evaluateCheck(check({ type: "file_exists", path: "{home}/.bashrc" }), ctx)).status).toBe(
      "pass",
    );
  });

  it.each(["../etc/passwd", "a/../../x", "/etc/passwd", "{agent_dir}/../secret"])(
    "%s escapes its root and fails with evidence saying so",
    async (path) => {
      const result = await evaluateCheck(check({ type: "file_exists", path }), context());
      expect(result).toMatchObject({ status: "fail", evidence: { kind: "path", problem: "escape" } });
    },
  );

  it("a symlink escape reported by the probe fails", async () => {
    const ctx = context({}, { [`${WORKSPACE}/link`]: { escape: "a symbolic link to /etc" } });
    const result = await evaluateCheck(check({ type: "file_exists", path: "link" }), ctx);
    expect(result).toMatchObject({
      status: "fail",
      evidence: { kind: "path", summary: "link: a symbolic link to /etc" },
    });
  });
});
