/** `--keep`: each run's folder is named after what it plays, never a bare number. */
import { describe, expect, it } from "vitest";
import { runFolderNames } from "../../../src/cli/plays/run-folder-names.ts";
import { emptyPlay } from "../../support/plays.ts";

describe("the folders of a test run", () => {
  it("a chain is QUEST--PLAY; the advised order, and chains sharing their requirements, say so", () => {
    const first = emptyPlay("first-file", "pass");
    const names = runFolderNames([
      { kind: "runnable", play: emptyPlay("exact-edit", "pass-sed"), before: [first] },
      { kind: "unplayable", play: emptyPlay("later", "pass"), reason: "no pass play" },
      { kind: "sequence", plays: [first] },
      {
        kind: "shared",
        before: [first],
        plays: [emptyPlay("second", "pass"), emptyPlay("second", "fail-claim")],
      },
      { kind: "shared", before: [first], plays: [emptyPlay("third", "pass")] },
    ]);
    expect(names).toEqual([
      "exact-edit--pass-sed",
      "later--pass",
      "advised-order",
      "after-first-file--second--pass-and-1-more",
      "after-first-file--third--pass",
    ]);
  });

  it("a name given twice gets a number, so no two runs share a folder", () => {
    const play = emptyPlay("q", "pass");
    expect(
      runFolderNames([
        { kind: "sequence", plays: [play] },
        { kind: "sequence", plays: [play] },
      ]),
    ).toEqual(["advised-order", "advised-order-2"]);
  });
});
