/**
 * The runtime's path resolution applies the loader's rule (core's parseQuestPath): what lint
 * refuses, a definition pinned before the lint existed is refused at run time too, and the rest
 * resolves inside its root.
 */
import { describe, expect, it } from "vitest";
import { parseQuestPath, type QuestPathRule } from "../../src/core/paths.ts";
import { resolveQuestPath } from "../../src/verifier/paths.ts";

const PATHS = { workspace: "/w/ws", sandbox: "/w/ws", agentDir: "/home/l/.pi/agent", home: "/home/l" };

describe("resolveQuestPath", () => {
  it("resolves against the root a leading template picks, else the workspace", () => {
    expect(resolveQuestPath("{agent_dir}/skills", PATHS)).toEqual({
      ok: true,
      path: {
        written: "{agent_dir}/skills",
        absolute: "/home/l/.pi/agent/skills",
        root: "/home/l/.pi/agent",
      },
    });
    expect(resolveQuestPath("a/b", PATHS)).toMatchObject({
      ok: true,
      path: { absolute: "/w/ws/a/b", root: "/w/ws" },
    });
    expect(resolveQuestPath("{workspace}", PATHS)).toMatchObject({ ok: true, path: { absolute: "/w/ws" } });
  });

  it("names the real root a .. path leaves", () => {
    expect(resolveQuestPath("{home}/../x", PATHS)).toEqual({
      ok: false,
      written: "{home}/../x",
      reason: 'leaves /home/l through ".."; it was not read',
    });
    expect(resolveQuestPath("../x", PATHS)).toMatchObject({
      ok: false,
      reason: 'leaves /w/ws through ".."; it was not read',
    });
  });

  it("applies the field's rule: {home} is refused where the path stays in the workspace", () => {
    expect(resolveQuestPath("{home}/app", PATHS).ok).toBe(true);
    expect(resolveQuestPath("{home}/app", PATHS, { templates: "workspace" })).toMatchObject({
      ok: false,
      reason: expect.stringMatching(/^starts with \{home\}, outside the workspace/),
    });
    expect(resolveQuestPath("{workspace}/a.txt", PATHS, { templates: "none" }).ok).toBe(false);
  });

  it.each<[string, QuestPathRule]>([
    ["../x", { templates: "any" }],
    ["/etc/passwd", { templates: "any" }],
    ["a/{home}/b", { templates: "any" }],
    ["a{b", { templates: "any" }],
    ["{home}x", { templates: "any" }],
    ["{agent_dir}/../x", { templates: "any" }],
    ["{home}/a", { templates: "workspace" }],
    ["{sandbox}/a", { templates: "workspace" }],
    ["{workspace}/a", { templates: "none" }],
    ["src/{id}.ts", { templates: "none" }],
    ["a/../b", { templates: "none" }],
    ["ok/file.txt", { templates: "any" }],
  ])("%s (%j): refused at run time exactly when lint refuses it", (written, rule) => {
    expect(resolveQuestPath(written, PATHS, rule).ok).toBe(parseQuestPath(written, rule).ok);
  });
});
