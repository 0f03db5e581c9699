/**
 * Chapter 1 of the built-in pack ("Talk, read, write"), walked through as a learner in Pi's
 * terminal UI: the real `pi` under tmux (tests/support/tmux.ts; started as in
 * curriculum-tui.test.ts), offline with the fixture scripted model, pi-quests on the built-in pack
 * (quests/), a throwaway agent dir and HOME, one Pi for the whole chapter. Each quest's reference
 * play (quests/solutions/ID/pass.yaml) says what the learner types (a prompt, a `!` or `!!`
 * command) and what the model answers (its replies become the scripted model's turns, in order).
 *
 * For each of the six quests, the screen is polled and the HUD (the widget above the editor, from
 * "Quest N/M: TITLE" to the row above the editor) read at every poll:
 * 1. once the quest is announced and before the learner's first act in it, no HUD shows ✗, and
 *    nothing waits on an act not yet made: every check passes already or is "○ …: not yet";
 * 2. no HUD line, at any poll of the walk, speaks the author's language (JARGON below);
 * 3. the quest completes ("Quest complete: TITLE ✓", sent only for a result whose every check
 *    passed) and the next quest of the pack is announced. At the end, `/quest check all` shows
 *    that each of the six quests still passes (every check of it).
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { loadQuests } from "../../src/verifier/loader.ts";
import type { Play, PlayStep } from "../../src/verifier/play.ts";
import { readPlayFile } from "../../src/verifier/play-loader.ts";
import type { Quest } from "../../src/verifier/quest.ts";
import { REPO } from "../support/cli.ts";
import { scriptedPiEnv } from "../support/pi.ts";
import { PI, type ScriptedTurn, scriptedPiArgs } from "../support/pi-rpc.ts";
import {
  cleanUpTmuxTest,
  editorText,
  isBorderRow,
  requireTmux,
  startTmux,
  type TmuxPane,
} from "../support/tmux.ts";
import { makeWorkspace } from "../support/workspace.ts";

afterEach(cleanUpTmuxTest);

/** Starting Pi, a sandbox set up, a check run in a worktree: slow on a loaded machine. */
const WAIT = { timeoutMs: 60_000 };
const CHAPTER = "Talk, read, write";
const CHAPTER_QUESTS = [
  "first-prompt",
  "read-first",
  "first-file",
  "first-commit",
  "exact-edit",
  "shell-commands",
];
const HINT_LINE = "  /quest hint · /quest status · /quest list";

/**
 * What an author reads and a learner should not: each is a piece of a check's evidence summary
 * (src/verifier/checks/*.ts, shown by `/quest status --details` and the CLI's `check`), of the
 * author's report (src/verifier/report.ts), or of the quest file's own vocabulary. The HUD shows
 * the check type's learner wording instead (quest-hud-state.ts, registry.ts `learnerReason`).
 */
const JARGON: { pattern: RegExp; why: string }[] = [
  // command.ts: "exit code 1, expected 0"; git.ts: "...; expected at least 1", "HEAD is on x; expected y".
  { pattern: /exit code/i, why: "a command check's exit status (command.ts summary)" },
  { pattern: /\bexpected\b/, why: "a predicate compared (command.ts, git.ts summaries)" },
  { pattern: /\bstdout\b|\bstderr\b/, why: "a command check's output streams (command.ts summary)" },
  // event.ts: "no matching input event (12 events recorded)", "matching input event at seq 3 after seq 2".
  { pattern: /\bevents? recorded\b/, why: "the event log's size (event.ts summary)" },
  { pattern: /no matching/i, why: "the event matcher (event.ts summary)" },
  { pattern: /\bmatching \w+ events?\b/, why: "an event name matched (event.ts summary)" },
  { pattern: /\bseq\b/, why: "event sequence numbers (event.ts summary)" },
  { pattern: /count must/i, why: "an event check's count predicate (event.ts summary)" },
  { pattern: /\bin session\b|same_session/, why: "a session id or the field (event.ts summary)" },
  // git.ts: "2 commit(s) since 1a2b3c4d5e6f; expected ...", "the changes since 1a2b3c4d5e6f ...".
  { pattern: /\bsince [0-9a-f]{7,}\b|\b[0-9a-f]{40}\b/, why: "a commit id (git.ts summary)" },
  { pattern: /\bcommit\(s\)/, why: "the git check's count (git.ts summary)" },
  { pattern: /\bbaseline\b/, why: "the commit pinned at activation (git.ts summaries)" },
  // Event names and fields of the recorded events, as quest files match them.
  {
    pattern:
      /\btool_result\b|\buser_bash\b|\bagent_end\b|\bturn_end\b|\bchangedPaths\b|\bexcludeFromContext\b/,
    why: "a recorded event's name or field (src/events/names.ts)",
  },
  {
    pattern: /\bfields\b|\bmin_assistant_turns\b|\bends_with\b|\bregex\b|\binput\.path\b/,
    why: "a quest file's match keys",
  },
  // report.ts: "  [FAIL] asked (You sent Pi a message): no matching input event ...".
  { pattern: /\[(FAIL|PASS|pass|pending)\]/, why: "the author report's status tags (report.ts)" },
  // command.ts withNotApplied: "; 1 change outside editable not applied (x.js)".
  { pattern: /outside editable|\bnot applied\b/, why: "the isolated run's author note (command.ts)" },
  {
    pattern: /\bisolation\b|\bworktree\b|task verifier|\btimeout:/,
    why: "the check runner's own terms (command.ts pending summaries)",
  },
  { pattern: /\bcheck id\b/i, why: "ids are the author's handle on a check" },
  { pattern: /\$\.|JSONPath/, why: "a structured-path check's query (structured-path.ts summary)" },
  { pattern: /\bundefined\b|\bnull\b|\bNaN\b|\[object /, why: "a value leaked from code, not words" },
];

let pack: Quest[];
let plays: Map<string, Play>;
beforeAll(async () => {
  const loaded = await loadQuests(join(REPO, "quests"));
  if (!loaded.ok) throw new Error(JSON.stringify(loaded.diagnostics));
  pack = loaded.value;
  plays = new Map();
  for (const id of CHAPTER_QUESTS) {
    const play = await readPlayFile(join(REPO, "quests/solutions", id, "pass.yaml"), id, "pass");
    if (!play.ok) throw new Error(JSON.stringify(play.diagnostics));
    plays.set(id, play.value);
  }
});
const questOf = (id: string): Quest => {
  const quest = pack.find((each) => each.id === id);
  if (!quest) throw new Error(`no quest ${id} in quests/`);
  return quest;
};
/** The title row of a quest's widget, as the HUD draws it: its position in the pack, from 1. */
const titleRow = (quest: Quest) => `Quest ${pack.indexOf(quest) + 1}/${pack.length}: ${quest.title}`;

/** What a check's row may be before the learner acts: passed, or "○ …: not yet". */
function beforeActing(check: Quest["checks"][number]): (line: string) => boolean {
  return (line) => line === `  ✓ ${check.describe}` || line === `  ○ ${check.describe}: not yet`;
}

/** Quest ids and check ids of the chapter, as an author's report names them: `[id]`, `(id)`, `quest/check`. */
function idPatterns(): RegExp[] {
  const ids = CHAPTER_QUESTS.flatMap((id) => [id, ...questOf(id).checks.map((check) => check.id)]);
  const escaped = [...new Set(ids)].map((id) => id.replace(/[-]/g, "\\-")).join("|");
  return [new RegExp(`[[(](${escaped})[\\])]`), new RegExp(`\\b(${CHAPTER_QUESTS.join("|")})/[a-z]`)];
}

/** The scripted model's turns for the plays, in order: a tool reply is one turn of tool calls, a text one a text turn. */
function scriptOf(ids: readonly string[]): ScriptedTurn[] {
  return ids.flatMap((id) =>
    stepsOf(id).flatMap((step) =>
      step.kind === "prompt"
        ? step.model.map(
            (reply): ScriptedTurn =>
              "tool" in reply
                ? { tools: [{ name: reply.tool, arguments: reply.args }] }
                : { text: reply.text },
          )
        : [],
    ),
  );
}

/** A play's steps; the chapter's plays only prompt and run `!` commands, as a learner types them. */
function stepsOf(
  id: string,
): (Extract<PlayStep, { kind: "prompt" }> | Extract<PlayStep, { kind: "bash" }>)[] {
  return (plays.get(id)?.steps ?? []).map((step) => {
    if (step.kind !== "prompt" && step.kind !== "bash")
      throw new Error(
        `${id}'s pass play has a ${step.kind} step: this walk-through types prompts and ! only`,
      );
    if (step.kind === "prompt" && step.wait !== "settled")
      throw new Error(`${id}'s pass play sends a prompt without waiting for its run`);
    return step;
  });
}

const typed = (step: ReturnType<typeof stepsOf>[number]) =>
  step.kind === "prompt" ? step.prompt : `${step.quiet ? "!!" : "!"}${step.bash}`;

const rows = (screen: string) => screen.split("\n").map((line) => line.trimEnd());

type Hud = { title: string; checks: string[]; lines: string[] };

/**
 * The HUD on a screen: its title (the last row that starts with "Quest N/M: ", the chat's
 * announcements being indented), the check rows, and every row from the title down to the
 * editor's top border (the hint line, and any warning under it). Between quests, the one row
 * "Quests N/M ...".
 */
function hudOf(screen: string): Hud | undefined {
  const all = rows(screen);
  const top = all.findLastIndex((line) => /^Quests? \d+\/\d+/.test(line));
  if (top < 0) return undefined;
  const border = all.findIndex((line, index) => index > top && isBorderRow(line));
  const lines = all.slice(top, border < 0 ? undefined : border);
  const hint = lines.indexOf(HINT_LINE);
  return { title: lines[0] ?? "", checks: hint < 0 ? [] : lines.slice(1, hint), lines };
}

const settled = (hud: Hud | undefined) => hud !== undefined && !hud.title.includes("checking…");
const isFor = (hud: Hud | undefined, quest: Quest) =>
  hud !== undefined && hud.title.replace(/ · checking…$/, "") === titleRow(quest);
const completedOn = (screen: string, quest: Quest) => screen.includes(`Quest complete: ${quest.title} ✓`);

/** The walk: its Pi, the ids that are jargon, every HUD polled and the jargon found in any. */
type Walk = { pane: TmuxPane; ids: RegExp[]; huds: number; jargon: string[] };

/** Reads the HUD off a polled screen, counts it, and notes any jargon on it. */
function look(walk: Walk, screen: string, where: string): Hud | undefined {
  const hud = hudOf(screen);
  if (!hud) return undefined;
  walk.huds++;
  const patterns = [...JARGON, ...walk.ids.map((pattern) => ({ pattern, why: "a quest or check id" }))];
  for (const line of hud.lines)
    for (const { pattern, why } of patterns)
      if (pattern.test(line)) {
        const found = `${where}: "${line}" (${why})`;
        if (!walk.jargon.includes(found)) walk.jargon.push(found);
      }
  return hud;
}

/**
 * Polls the screen until `done` holds; every HUD polled on the way is looked at, and handed to
 * `each` (an assertion about every frame, not only the last).
 */
async function watch(
  walk: Walk,
  what: string,
  done: (screen: string, hud: Hud | undefined) => boolean,
  each: (hud: Hud) => void = () => {},
): Promise<{ screen: string; hud: Hud }> {
  let last: Hud | undefined;
  const screen = await walk.pane.waitForScreen(
    (now) => {
      last = look(walk, now, what);
      if (last) each(last);
      return done(now, last);
    },
    what,
    WAIT,
  );
  if (!last) throw new Error(`no HUD on the screen at ${what}:\n${screen}`);
  return { screen, hud: last };
}

/** Types `text` as a learner does and sends it with Enter (again, while a completion menu took it). */
async function submit(walk: Walk, text: string): Promise<void> {
  const { pane } = walk;
  const where = `typing "${text}"`;
  const editorHolds = (wanted: string) => (screen: string) => {
    look(walk, screen, where);
    return editorText(screen) === wanted;
  };
  pane.type(text);
  await pane.waitForScreen(editorHolds(text), `"${text}" in the editor`, WAIT);
  for (let tries = 1; ; tries++) {
    pane.type("", "Enter");
    try {
      await pane.waitForScreen(editorHolds(""), `"${text}" sent`, { timeoutMs: 3_000 });
      return;
    } catch (error) {
      if (tries >= 4) throw error;
    }
  }
}

function openPi(): TmuxPane {
  requireTmux();
  const root = makeWorkspace();
  const [workspace, agentDir, home] = ["workspace", "agent", "home"].map((name) => join(root, name)) as [
    string,
    string,
    string,
  ];
  for (const dir of [workspace, agentDir, home]) mkdirSync(dir, { recursive: true });
  // "never": a stray .pi above the temporary folder does not turn into a trust prompt.
  writeFileSync(join(agentDir, "settings.json"), JSON.stringify({ defaultProjectTrust: "never" }));
  const scriptFile = join(root, "script.json");
  writeFileSync(scriptFile, JSON.stringify(scriptOf(CHAPTER_QUESTS)));
  return startTmux({
    dir: root,
    home,
    cwd: workspace,
    width: 120,
    height: 50,
    command: [process.execPath, PI, ...scriptedPiArgs()],
    // HOME is the pane's own (startTmux sets it after these).
    env: scriptedPiEnv(agentDir, scriptFile),
  });
}

describe("chapter 1 in Pi's terminal UI under tmux, as a learner plays it", () => {
  it("no ✗ before the learner acts, no author jargon on the HUD, each quest completes and the next is announced", async () => {
    // The chapter as the pack has it, in order: this walk-through covers all of it.
    expect(pack.filter((quest) => quest.chapter === CHAPTER).map((quest) => quest.id)).toEqual(
      CHAPTER_QUESTS,
    );
    const pane = openPi();
    const walk: Walk = { pane, ids: idPatterns(), huds: 0, jargon: [] };
    let lastCompletion = "";
    try {
      for (const id of CHAPTER_QUESTS) {
        const quest = questOf(id);
        const next = pack[pack.indexOf(quest) + 1];
        if (!next) throw new Error(`no quest after ${id} in the pack`);

        // 1. Announced, not yet acted in: from its first HUD to the settled one, no ✗. Each check
        // passes already, or is "○ …: not yet".
        const expected = quest.checks.map((check) => beforeActing(check));
        const before = await watch(
          walk,
          `${id}, before the learner acts`,
          (_screen, hud) =>
            isFor(hud, quest) &&
            settled(hud) &&
            hud?.checks.length === expected.length &&
            hud.checks.every((line, index) => expected[index]?.(line) === true),
          (hud) => {
            if (isFor(hud, quest))
              expect(
                hud.lines.filter((line) => line.includes("✗")),
                id,
              ).toEqual([]);
          },
        );
        expect(before.hud.lines[0]).toBe(titleRow(quest));
        expect(before.hud.lines).toContain(HINT_LINE);

        // 2. The learner's steps, as the reference play has them; the HUD read after each.
        const steps = stepsOf(id);
        for (const [index, step] of steps.entries()) {
          await submit(walk, typed(step));
          const what = `${id}, after step ${index + 1} (${typed(step)})`;
          if (index < steps.length - 1) {
            // Checked again after the act: every check now passes or says why not (no "○").
            await watch(
              walk,
              what,
              (_screen, hud) =>
                isFor(hud, quest) &&
                settled(hud) &&
                hud?.checks.every((line) => !line.startsWith("  ○")) === true,
            );
            continue;
          }
          // 3. The last step completes the quest, and the next one is announced.
          const after = await watch(
            walk,
            what,
            (screen, hud) => completedOn(screen, quest) && isFor(hud, next) && settled(hud),
          );
          expect(after.screen).toContain(`Quest complete: ${quest.title} ✓`);
          expect(after.hud.title).toBe(titleRow(next));
          lastCompletion = after.screen;
        }
        expect(walk.jargon, walk.jargon.join("\n")).toEqual([]);
      }

      // The chapter's last quest announced the chapter; every quest of it still passes.
      expect(lastCompletion.replace(/\s+/g, " ")).toContain(
        `Chapter 1 complete: ${CHAPTER} ✓ (6 of 6 quests done).`,
      );
      await submit(walk, "/quest check all");
      const all = await watch(walk, "/quest check all", (screen) =>
        screen.includes("Re-checked the 6 completed quests"),
      );
      expect(all.screen).toContain("Re-checked the 6 completed quests: 6 of 6 still pass.");
      for (const id of CHAPTER_QUESTS)
        expect(all.screen).toContain(`  ✓ ${id}: ${questOf(id).title}: still passes`);
      expect(walk.jargon, walk.jargon.join("\n")).toEqual([]);
      // Polled at least once before each quest, after each step and at each completion.
      expect(walk.huds).toBeGreaterThanOrEqual(
        CHAPTER_QUESTS.reduce((sum, id) => sum + 1 + stepsOf(id).length, 0),
      );
    } finally {
      await pane.kill();
    }
  }, 300_000);
});
