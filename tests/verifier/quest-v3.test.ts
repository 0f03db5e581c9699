/** The version 3 check fields: a git check's `committed` assertion, and `commit_count` on a branch. */
import { afterEach, describe, expect, it } from "vitest";
import { loadQuestText, questProblems } from "../support/quest-text.ts";
import { removeWorkspaces } from "../support/workspace.ts";

afterEach(removeWorkspaces);

const load = loadQuestText;
const problems = questProblems;

const quest = (version: number) => `version: ${version}
id: ship-it
title: Ship it
goal: Commit hello.txt on feature/x, twice.
checks:
  - id: committed
    type: git
    assert: committed
    path: hello.txt
  - id: commits
    type: git
    assert: commit_count
    branch: feature/x
    count: { min: 2 }
`;

describe("version 3 check fields", () => {
  it("a version 3 file may use them", async () => {
    const loaded = await load(quest(3));
    if (!loaded.ok) throw new Error(JSON.stringify(loaded.diagnostics));
    expect(loaded.value.checks).toMatchObject([
      { assert: "committed", path: "hello.txt" },
      { assert: "commit_count", branch: "feature/x" },
    ]);
  });

  it("an older file that uses one is an error at that field, naming the version to say", async () => {
    expect(await problems(quest(2))).toEqual([
      "q.yaml:8:13: checks[0].assert: assert: committed is a version 3 assertion of a git check; say version: 3 to use it",
      "q.yaml:13:13: checks[1].branch: a git check's branch is a version 3 field; say version: 3 to use it",
    ]);
  });

  it("a version the format does not have is refused", async () => {
    expect(await problems(quest(4))).toEqual([
      "q.yaml:1:10: version: version must be 1, 2 or 3 (the format versions so far)",
    ]);
  });
});

describe("an event check's after: {check} (version 3)", () => {
  const order = (version: number, afterOfFollowed: string, afterOfLoaded = "") => `version: ${version}
id: rules
title: House rules
goal: Load AGENTS.md, then follow it.
checks:
  - id: loaded
    type: event
${afterOfLoaded}    match: { event: context_loaded }
  - id: followed
    type: event
    after: { check: ${afterOfFollowed} }
    match: { event: tool_result }
`;

  it("names another event check of the quest", async () => {
    const loaded = await load(order(3, "loaded"));
    expect(loaded.ok).toBe(true);
  });

  it("is an error when it names no other event check (with the closest name), itself, or goes round in a circle", async () => {
    expect(await problems(order(3, "loadd"))).toEqual([
      'q.yaml:11:21: after names "loadd", which is no other event check of this quest; did you mean loaded?',
    ]);
    expect(await problems(order(3, "followed"))).toEqual([
      'q.yaml:11:21: after names "followed", which is no other event check of this quest; its event checks: loaded',
    ]);
    expect(await problems(order(3, "loaded", "    after: { check: followed }\n"))).toEqual([
      "q.yaml:8:21: after goes round in a circle: loaded after followed after loaded",
      "q.yaml:12:21: after goes round in a circle: followed after loaded after followed",
    ]);
  });

  it("needs version 3", async () => {
    expect(await problems(order(2, "loaded"))).toEqual([
      "q.yaml:11:12: checks[1].after: an event check's after is a version 3 field; say version: 3 to use it",
    ]);
  });
});
