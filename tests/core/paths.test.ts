import { describe, expect, it } from "vitest";
import { isInside, parseQuestPath, type QuestPathRule } from "../../src/core/paths.ts";

describe("isInside", () => {
  it("holds for the root itself and what is below it", () => {
    expect(isInside("/a/b", "/a/b")).toBe(true);
    expect(isInside("/a/b/c/d", "/a/b")).toBe(true);
    expect(isInside("/a/b/..c", "/a/b")).toBe(true);
  });

  it("does not hold for a parent, a sibling or a name that only starts like the root", () => {
    expect(isInside("/a", "/a/b")).toBe(false);
    expect(isInside("/a/c", "/a/b")).toBe(false);
    expect(isInside("/a/bc", "/a/b")).toBe(false);
    expect(isInside("/a/b/../c", "/a/b")).toBe(false);
  });
});

describe("parseQuestPath: what can never resolve, whatever the roots", () => {
  const reasonOf = (written: string, rule?: QuestPathRule) => {
    const parsed = parseQuestPath(written, rule);
    return parsed.ok ? "ok" : parsed.reason;
  };

  it("splits a path into its leading template and the rest, normalized", () => {
    expect(parseQuestPath("{agent_dir}/skills/x/")).toEqual({
      ok: true,
      template: "agent_dir",
      rest: "skills/x/",
    });
    expect(parseQuestPath("{workspace}")).toEqual({ ok: true, template: "workspace", rest: "." });
    expect(parseQuestPath("a/../b")).toEqual({ ok: true, rest: "b" });
    expect(parseQuestPath("./notes.md")).toEqual({ ok: true, rest: "notes.md" });
  });

  it.each([
    ["../x", 'leaves the workspace through ".."; a quest path stays inside its root'],
    ["a/../../x", 'leaves the workspace through ".."; a quest path stays inside its root'],
    ["{agent_dir}/../secret", 'leaves {agent_dir} through ".."; a quest path stays inside its root'],
    ["/etc/passwd", "is an absolute path; start it with {workspace}, {agent_dir} or {home}"],
    ["a/{home}/b", "has {home} in the middle; a template may only start a path"],
    ["{workspace}/a/{sandbox}", "has {sandbox} in the middle; a template may only start a path"],
    ["a{b", "has a { in it; a template may only start a path"],
    [
      "{project}/a",
      "starts with {project}, which is not a template: use {sandbox}, {workspace}, {agent_dir}, {home}",
    ],
    ["{home}x", "has no / after {home}; write {home}/x"],
  ])("refuses %s: %s", (written, reason) => {
    expect(reasonOf(written)).toBe(reason);
  });

  it("a field that stays in the workspace takes only {workspace} and {sandbox}", () => {
    const rule: QuestPathRule = { templates: "workspace" };
    expect(reasonOf("{workspace}/app", rule)).toBe("ok");
    expect(reasonOf("{sandbox}/app", rule)).toBe("ok");
    expect(reasonOf("{home}/app", rule)).toBe(
      "starts with {home}, outside the workspace; this path stays in the workspace: write it relative to it (or start it with {workspace})",
    );
    expect(reasonOf("/srv/app", rule)).toBe("is an absolute path; write it relative to the workspace");
  });

  it("a field that takes no template names the fix, and keeps other braces as part of a name", () => {
    const rule: QuestPathRule = { templates: "none", relativeTo: "the repository" };
    expect(reasonOf("{workspace}/a.txt", rule)).toBe(
      "starts with {workspace}; this path takes no template: write it relative to the repository (a.txt)",
    );
    expect(reasonOf("{home}/a.txt", rule)).toBe(
      "starts with {home}; this path takes no template: write it relative to the repository",
    );
    expect(reasonOf("src/{id}.ts", rule)).toBe("ok");
    expect(reasonOf("{id}/a.ts", rule)).toBe("ok");
    expect(reasonOf("src/{home}", rule)).toBe("has {home} in the middle; a template may only start a path");
    expect(reasonOf("../a", rule)).toBe(
      'leaves the repository through ".."; a quest path stays inside its root',
    );
  });
});
