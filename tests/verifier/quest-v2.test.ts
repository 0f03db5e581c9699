/** The version 2 quest fields: chapter, minutes, editable (globs), debrief, and a check's editable. */
import { afterEach, describe, expect, it } from "vitest";
import { loadQuestText, questProblems } from "../support/quest-text.ts";
import { removeWorkspaces } from "../support/workspace.ts";

afterEach(removeWorkspaces);

const load = loadQuestText;
const problems = questProblems;

const quest = (version: number, fields: string, checkFields = "") => `version: ${version}
id: fix-add
title: Fix add
goal: Make add add.
${fields}checks:
  - id: tests
    type: command
    run: npm test
${checkFields}  - id: said
    type: event
    match: { event: turn_end }
`;

describe("version 2 quest fields", () => {
  it("loads chapter, minutes, editable and debrief; a command check inherits the quest's editable", async () => {
    const loaded = await load(
      quest(2, 'chapter: Tests\nminutes: 5\neditable: [src/add.js, "lib/**"]\ndebrief: |\n  Well done.\n'),
    );
    if (!loaded.ok) throw new Error(loaded.diagnostics.map((d) => d.message).join("\n"));
    expect(loaded.value).toMatchObject({
      version: 2,
      chapter: "Tests",
      minutes: 5,
      editable: ["src/add.js", "lib/**"],
      debrief: "Well done.\n",
    });
    expect(loaded.value.checks[0]).toMatchObject({ type: "command", editable: ["src/add.js", "lib/**"] });
    expect(loaded.value.checks[1]).not.toHaveProperty("editable");
  });

  it("a command check's own editable wins over the quest's", async () => {
    const loaded = await load(quest(2, "editable: [src/**]\n", "    editable: [src/add.js]\n"));
    if (!loaded.ok) throw new Error("expected a quest");
    expect(loaded.value.checks[0]).toMatchObject({ editable: ["src/add.js"] });
  });

  it("a version 1 file that uses a version 2 field is an error at that field", async () => {
    expect(await problems(quest(1, "chapter: Tests\nminutes: 5\n", "    editable: [src/add.js]\n"))).toEqual([
      "q.yaml:5:10: chapter: chapter is a version 2 field; say version: 2 to use it",
      "q.yaml:6:10: minutes: minutes is a version 2 field; say version: 2 to use it",
      "q.yaml:11:15: checks[0].editable: a command check's editable is a version 2 field; say version: 2 to use it",
    ]);
  });

  it("refuses absolute, escaping, empty and backslashed globs, each where it is written", async () => {
    expect(
      await problems(quest(2, 'editable: [/etc/passwd, "../x", "", "src\\\\a.js", "a/../../b"]\n')),
    ).toEqual([
      "q.yaml:5:12: editable[0]: /etc/passwd is an absolute path; editable paths are relative to the quest workspace",
      "q.yaml:5:25: editable[1]: ../x goes up through ..; editable paths stay inside the quest workspace",
      "q.yaml:5:33: editable[2]: a glob must not be empty",
      "q.yaml:5:37: editable[3]: src\\a.js has a backslash; separate folders with /",
      "q.yaml:5:50: editable[4]: a/../../b goes up through ..; editable paths stay inside the quest workspace",
    ]);
  });

  it("refuses minutes outside 1..600, an empty editable list and an empty chapter", async () => {
    expect(await problems(quest(2, 'minutes: 0\neditable: []\nchapter: ""\n'))).toEqual([
      "q.yaml:5:10: minutes: minutes is at least 1",
      "q.yaml:6:11: editable: editable lists at least one path; leave it out to let the work change any path",
      "q.yaml:7:10: chapter: chapter must not be empty",
    ]);
    expect(await problems(quest(2, "minutes: 601\n"))).toEqual([
      "q.yaml:5:10: minutes: minutes is at most 600",
    ]);
    expect(await problems(quest(2, "minutes: 2.5\n"))).toEqual([
      "q.yaml:5:10: minutes: must be int, not number 2.5",
    ]);
  });
});
