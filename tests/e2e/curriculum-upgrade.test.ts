/**
 * A learner of the three-quest starter pack comes back to the built-in curriculum: the same
 * folder and agent dir, the real `pi` over RPC both times (scripts/tour.ts). The three quests
 * they did stay done (the ids are kept); the next quest's practice files are added on top of the
 * first-file sandbox in a commit of pi-quests' own, and nothing of theirs changes.
 */
import { execFileSync } from "node:child_process";
import { existsSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { openTour, planTour, type TourFolders } from "../../scripts/tour.ts";
import { STARTER_PACK } from "../support/cli.ts";

let folders: TourFolders | undefined;

afterAll(() => {
  for (const folder of Object.values(folders ?? {})) rmSync(folder, { recursive: true, force: true });
});

const git = (cwd: string, ...args: string[]) => execFileSync("git", args, { cwd, encoding: "utf8" }).trim();

describe("progress carries over from the starter pack to the curriculum", () => {
  it("the three quests stay done, the practice files come on top in pi-quests' commit, and the next quest plays", async () => {
    const starter = await planTour(["first-prompt", "first-file", "first-commit"], STARTER_PACK);
    const before = openTour(starter, { pack: STARTER_PACK, keep: true });
    folders = { workspace: before.workspace, home: before.home };
    try {
      await before.pi.waitFor((line) => line.type === "extension_ui_request" && line.method === "setWidget");
      for (const leg of starter) expect((await before.play(leg)).completed, leg.quest.id).toBe(true);
    } finally {
      await before.close();
    }
    const learnerHead = git(folders.workspace, "rev-parse", "HEAD");
    const hello = readFileSync(join(folders.workspace, "hello.txt"), "utf8");

    const [readFirst] = await planTour(["read-first"]);
    if (!readFirst) throw new Error("the curriculum has no read-first quest");
    const after = openTour([readFirst], { folders, keep: true });
    try {
      await after.pi.waitFor((line) => line.type === "extension_ui_request" && line.method === "setWidget");
      const from = after.pi.lines.length;
      await after.pi.prompt("/quest list");
      const list = after.pi.notifications(from).join("\n");
      for (const title of ["Say hello to Pi", "Make your first file", "Commit it"])
        expect(list).toMatch(new RegExp(`${title}.*✓ done`));

      const { from: played, completed } = await after.play(readFirst);
      expect(completed).toBe(true);
      const said = after.pi.notifications(0).join("\n");
      expect(said).toContain("the practice files were added on top");
      expect(played).toBeGreaterThan(0);
    } finally {
      await after.close();
    }
    // pi-quests' one commit, on top of the learner's; their file as it was.
    expect(git(folders.workspace, "log", "-1", "--format=%s")).toBe(
      "Quest sandbox: practice (on top of first-file)",
    );
    expect(git(folders.workspace, "rev-parse", "HEAD~1")).toBe(learnerHead);
    expect(existsSync(join(folders.workspace, "notes/meeting.md"))).toBe(true);
    expect(readFileSync(join(folders.workspace, "hello.txt"), "utf8")).toBe(hello);
  }, 120_000);
});
