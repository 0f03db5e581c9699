/**
 * docs/quest-format.md says one thing about `review:` in plays (issue 27, item 10): a `command`
 * step may carry the reviewer's replies, and the page no longer also says a play cannot give
 * them. What it says holds: a play with `review:` on `command: /quest check` loads, its list
 * becomes the replies file's `reviews`.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { reviewsOf } from "../../src/cli/plays/chain-run.ts";
import { loadPlays } from "../../src/verifier/play-loader.ts";
import { REPO } from "../support/cli.ts";
import { makeWorkspace, removeWorkspaces } from "../support/workspace.ts";

afterAll(removeWorkspaces);

const PAGE = readFileSync(join(REPO, "docs/quest-format.md"), "utf8").replace(/\s+/g, " ");

describe("docs/quest-format.md on review: in plays", () => {
  it("says a command step gives the reviewer's replies, and nowhere that a play cannot", () => {
    expect(PAGE).toContain("A `command` step may carry `review`");
    expect(PAGE).toContain("A play file gives them with `review:` on a `command` step");
    expect(PAGE).not.toMatch(/cannot give `reviews`|no step syntax for it/);
  });

  it("as it says: a play's review list loads, and is the replies of one reviewer session", async () => {
    const pack = makeWorkspace({
      "solutions/q/pass.yaml": `version: 1
steps:
  - command: /quest check
    review:
      - tool: read
        args: { path: NOTES.md }
      - tool: submit_review
        args: { verdict: pass, evidence: [{ path: NOTES.md, quote: bug }] }
`,
    });
    const loaded = await loadPlays(pack, ["q"]);
    expect(loaded.ok).toBe(true);
    if (!loaded.ok) return;
    expect(reviewsOf(loaded.value[0] ?? { steps: [] })).toEqual([
      [
        { tool: "read", args: { path: "NOTES.md" } },
        { tool: "submit_review", args: { verdict: "pass", evidence: [{ path: "NOTES.md", quote: "bug" }] } },
      ],
    ]);
  });
});
