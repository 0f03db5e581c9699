/**
 * The built-in curriculum as one learner meets it, in one real `pi` session over RPC with
 * pi-quests' scripted model: chapter 1 end to end from its solution plays (first-file's claim
 * without the work on the way), the HUD asserted quest by quest; `/quest list`, `skip` and
 * `debrief`; then one quest of each later chapter from its pass play, in the same session and
 * folder. Every play of every quest is proven on its own by tests/quests/solutions-chapters-*.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { firstChapter, type Leg, openTour, planTour, type TourPi } from "../../scripts/tour.ts";

/** One quest of each chapter after the first, played after chapter 1 in the same session. */
const LATER = ["stop-a-run", "tree", "skill", "mcp-server", "capstone"];
/** Skipped on the way: the first quest of chapter 2. */
const SKIPPED = "steer-and-queue";

/** The check lines of a widget: `  ✓ describe`, `  ✗ describe: why`, `  ○ describe`. */
const checkLines = (widget: string[]) => widget.filter((line) => /^ {2}[✓✗○…]/.test(line));
const allGreen = (widget: string[]) =>
  checkLines(widget).length > 0 && checkLines(widget).every((line) => line.startsWith("  ✓"));

let chapter: Leg[] = [];
let later: Leg[] = [];
let tour: TourPi;

beforeAll(async () => {
  const ids = await firstChapter();
  chapter = await planTour(ids.flatMap((id) => (id === "first-file" ? [`${id}/fail-claim`, id] : [id])));
  later = await planTour(LATER);
  tour = openTour([...chapter, ...later]);
  await tour.pi.waitFor((line) => line.type === "extension_ui_request" && line.method === "setWidget");
});

afterAll(async () => {
  await tour?.close();
});

/** The widgets the HUD showed for `leg`'s quest from line `from` on. */
function widgetsOf(leg: Leg, from: number): string[][] {
  return tour.pi.widgets(from).filter((widget) => widget[0]?.endsWith(`: ${leg.quest.title}`));
}

describe("the curriculum in one session", () => {
  it("chapter 1 end to end: each quest red until its work is done, then green and complete; the claim stays red", async () => {
    for (const leg of chapter) {
      const before = tour.pi.lines.length;
      const { from, completed } = await tour.play(leg);
      const shown = widgetsOf(leg, before);
      expect.soft(shown.length, `${leg.quest.id}: the HUD showed it`).toBeGreaterThan(0);
      if (leg.completes) {
        expect.soft(completed, `${leg.quest.id} completes`).toBe(true);
        expect.soft(allGreen(shown.at(-1) ?? []), `${leg.quest.id}: last HUD all ✓`).toBe(true);
        expect
          .soft(checkLines(shown[0] ?? []).length, `${leg.quest.id}: one HUD line per check`)
          .toBe(leg.quest.checks.length);
        // The completion comes with the debrief, then the next quest's goal.
        const notice = tour.pi.notifications(from).find((text) => text.startsWith("Quest complete:"));
        expect.soft(notice, leg.quest.id).toContain(leg.quest.debrief?.split("\n")[0]?.trim() ?? "");
      } else {
        expect.soft(completed, `${leg.quest.id}/${leg.play.name} does not complete`).toBe(false);
        expect.soft(shown.some(allGreen), `${leg.quest.id}/${leg.play.name}: never all ✓`).toBe(false);
      }
    }
    const status = tour.pi.hud().status ?? "";
    expect(status).toMatch(new RegExp(`^quest ${chapter.filter((leg) => leg.completes).length + 1}/\\d+`));
  }, 240_000);

  it("/quest list shows chapter 1 done and minutes left; skip leaves a quest not done; debrief shows it again", async () => {
    const from = tour.pi.lines.length;
    await tour.pi.prompt("/quest list");
    const list = tour.pi.notifications(from).join("\n");
    expect(list).toContain("Talk, read, write");
    for (const leg of chapter.filter((candidate) => candidate.completes))
      expect(list).toMatch(new RegExp(`✓ done.*${leg.quest.id}|${leg.quest.title}.*✓ done`));
    expect(list).toMatch(/min left/);

    const skipFrom = tour.pi.lines.length;
    await tour.pi.prompt(`/quest skip ${SKIPPED}`);
    expect(tour.pi.notifications(skipFrom).join("\n")).toMatch(/skipped/i);
    const after = tour.pi.lines.length;
    await tour.pi.prompt("/quest list");
    expect(tour.pi.notifications(after).join("\n")).toMatch(/↷ skipped/);

    const firstFile = chapter.find((leg) => leg.quest.id === "first-file")?.quest;
    const debriefFrom = tour.pi.lines.length;
    await tour.pi.prompt("/quest debrief first-file");
    expect(tour.pi.notifications(debriefFrom)).toEqual([
      `Debrief: ${firstFile?.title}\n\n${firstFile?.debrief?.trim()}`,
    ]);
  }, 60_000);

  it("one quest of each later chapter, from its pass play, in the same session", async () => {
    for (const leg of later) {
      const { completed } = await tour.play(leg);
      expect.soft(completed, `${leg.quest.id} completes`).toBe(true);
    }
  }, 300_000);
});
