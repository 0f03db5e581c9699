/**
 * The pack digest `--merge` compares: the same for the same quests, plays and sandboxes wherever
 * the pack is and whatever else its folder holds; another when any of those files changes.
 */
import { appendFileSync, cpSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { packDigest } from "../../../src/cli/plays/pack-digest.ts";
import { loadQuests } from "../../../src/verifier/loader.ts";
import { loadPlays } from "../../../src/verifier/play-loader.ts";
import { STARTER_PACK } from "../../support/cli.ts";
import { makeWorkspace, removeWorkspaces } from "../../support/workspace.ts";

afterEach(removeWorkspaces);

/** A copy of the starter pack, and the digest of what is in it now. */
function copy(): { pack: string; digest: () => Promise<string> } {
  const pack = join(makeWorkspace(), "pack");
  cpSync(STARTER_PACK, pack, { recursive: true });
  const digest = async () => {
    const quests = await loadQuests(pack);
    if (!quests.ok) throw new Error("the pack does not load");
    const plays = await loadPlays(
      pack,
      quests.value.map((quest) => quest.id),
    );
    if (!plays.ok) throw new Error("the plays do not load");
    return packDigest({ pack, quests: quests.value, plays: plays.value });
  };
  return { pack, digest };
}

describe("packDigest", () => {
  it("is the same for a copy elsewhere, with a report and a README written beside the quests", async () => {
    const a = copy();
    const b = copy();
    writeFileSync(join(b.pack, "shard-2.json"), "{}\n");
    writeFileSync(join(b.pack, "README.md"), "# notes\n");
    expect(await b.digest()).toBe(await a.digest());
    expect(await a.digest()).toMatch(/^sha256:[0-9a-f]{64}$/);
  });

  it.each([
    ["a quest file", "20-first-file.yaml"],
    ["a play", "solutions/first-file/fail-claim.yaml"],
    ["a sandbox template's file", "sandboxes/first-file/README.md"],
  ])("changes when %s changes", async (_what, path) => {
    const { pack, digest } = copy();
    const before = await digest();
    appendFileSync(join(pack, path), "\n# changed\n");
    expect(await digest()).not.toBe(before);
  });
});
