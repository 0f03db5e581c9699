import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { extensionFolders } from "../../src/extension/extension-folders.ts";
import { makeWorkspace, removeWorkspaces } from "../support/workspace.ts";

afterEach(removeWorkspaces);

describe("where Pi loads extension code from", () => {
  it("the agent dir's extensions/, the trusted project's .pi/extensions/, and the local paths both settings name", () => {
    const cwd = makeWorkspace({
      ".pi/settings.json": JSON.stringify({
        extensions: ["./mine.ts", "-./off.ts", "!**/x.ts", "+./on.ts"],
        packages: ["../pkg", { source: "~/shared" }, "npm:left-pad", "git:github.com/a/b"],
      }),
    });
    const agentDir = makeWorkspace({
      "settings.json": JSON.stringify({
        extensions: ["/abs/ext.ts"],
        packages: ["file:///abs/pkg", "./local"],
      }),
    });
    const home = "/home/learner";
    expect(extensionFolders({ cwd, agentDir, home, projectTrusted: true })).toEqual([
      join(agentDir, "extensions"),
      join(cwd, ".pi", "extensions"),
      "/abs/ext.ts",
      "/abs/pkg",
      join(agentDir, "local"),
      join(cwd, ".pi", "mine.ts"),
      join(cwd, "pkg"),
      "/home/learner/shared",
    ]);
  });

  it("nothing of an untrusted project, which Pi does not load", () => {
    const cwd = makeWorkspace({ ".pi/settings.json": JSON.stringify({ packages: ["../pkg"] }) });
    const agentDir = makeWorkspace({ "settings.json": "not json" });
    expect(extensionFolders({ cwd, agentDir, home: "/h", projectTrusted: false })).toEqual([
      join(agentDir, "extensions"),
    ]);
  });
});
