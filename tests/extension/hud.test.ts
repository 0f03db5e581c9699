import { describe, expect, it } from "vitest";
import { type HudCheck, type HudState, hudLines, hudStatus, MARK } from "../../src/extension/hud.ts";
import { hudCheck } from "../../src/extension/quest-hud-state.ts";
import type { CheckResult } from "../../src/verifier/results.ts";

function active(checks: HudCheck[], fields: Partial<Extract<HudState, { kind: "active" }>> = {}): HudState {
  return {
    kind: "active",
    title: "Make your first file",
    position: 2,
    total: 3,
    checks,
    evaluating: false,
    ...fields,
  };
}

const FOOTER = { tone: "muted", text: "  /quest hint · /quest status · /quest list" };

describe("an active quest", () => {
  it("shows its title and place in the pack, one line a check, and the commands", () => {
    const state = active([
      { describe: "Pi wrote hello.txt", status: "unchecked" },
      { describe: "hello.txt exists", status: "pass", reason: "hello.txt exists (a file)" },
      { describe: "hello.txt says hello", status: "fail", reason: "exit code 1, expected = 0" },
      { describe: "you read it", status: "pending", reason: "pending, waiting for your answer" },
    ]);
    expect(hudLines(state)).toEqual([
      { tone: "title", text: "Quest 2/3: Make your first file" },
      { tone: "unchecked", text: "  ○ Pi wrote hello.txt" },
      { tone: "pass", text: "  ✓ hello.txt exists" },
      { tone: "fail", text: "  ✗ hello.txt says hello: exit code 1, expected = 0" },
      { tone: "pending", text: "  … you read it: pending, waiting for your answer" },
      FOOTER,
    ]);
    expect(hudStatus(state)).toBe("quest 2/3");
  });

  it("a passing check shows no reason, whatever its evidence says", () => {
    const [, line] = hudLines(
      active([{ describe: "done", status: "pass", reason: "matching event at seq 4" }]),
    );
    expect(line).toEqual({ tone: "pass", text: "  ✓ done" });
  });

  it("says checking… in the title and the footer status while an evaluation runs", () => {
    const state = active([{ describe: "x", status: "unchecked" }], { evaluating: true });
    expect(hudLines(state)[0]).toEqual({
      tone: "title",
      text: "Quest 2/3: Make your first file · checking…",
    });
    expect(hudStatus(state)).toBe("quest 2/3 · checking…");
  });

  it("marks each status with its own sign", () => {
    expect(MARK).toEqual({ pass: "✓", fail: "✗", pending: "…", unchecked: "○" });
  });
});

describe("reasons are one short line", () => {
  it("keeps only the first line of a reason", () => {
    const [, line] = hudLines(
      active([{ describe: "tests", status: "fail", reason: "exit code 1\nstack\ntrace" }]),
    );
    expect(line?.text).toBe("  ✗ tests: exit code 1");
  });

  it("cuts a long reason to 72 characters, the last an ellipsis", () => {
    const reason = "r".repeat(200);
    const [, line] = hudLines(active([{ describe: "tests", status: "fail", reason }]));
    expect(line?.text).toBe(`  ✗ tests: ${"r".repeat(71)}…`);
  });

  it("keeps a reason of exactly 72 characters whole", () => {
    const reason = "s".repeat(72);
    const [, line] = hudLines(active([{ describe: "tests", status: "fail", reason }]));
    expect(line?.text).toBe(`  ✗ tests: ${reason}`);
  });

  it("cuts after taking the first line, so a short first line of a long reason is kept whole", () => {
    const reason = `short\n${"t".repeat(500)}`;
    const [, line] = hudLines(active([{ describe: "tests", status: "pending", reason }]));
    expect(line?.text).toBe("  … tests: short");
  });
});

describe("no active quest", () => {
  it("all done: a congratulation, and a tick in the status", () => {
    const state: HudState = { kind: "idle", done: 3, total: 3 };
    expect(hudLines(state)).toEqual([{ tone: "pass", text: "Quests 3/3 done. Well played!" }]);
    expect(hudStatus(state)).toBe("quests 3/3 ✓");
  });

  it("waiting on something: the notice says what", () => {
    const notice = 'next: "Make your first file" needs an empty folder (/quest start first-file)';
    const state: HudState = { kind: "idle", done: 1, total: 3, notice };
    expect(hudLines(state)).toEqual([{ tone: "notice", text: `Quests 1/3 · ${notice}` }]);
    expect(hudStatus(state)).toBe("quests 1/3");
  });

  it("quests left but none to start by itself (skipped, or locked behind one): no congratulation", () => {
    const state: HudState = { kind: "idle", done: 1, total: 3, skipped: 1 };
    expect(hudLines(state)).toEqual([{ tone: "notice", text: "Quests 1/3 done · 1 skipped · /quest list" }]);
    expect(hudStatus(state)).toBe("quests 1/3");
    expect(hudLines({ kind: "idle", done: 0, total: 3 })).toEqual([
      { tone: "notice", text: "Quests 0/3 done · /quest list" },
    ]);
  });
});

describe("a broken setup", () => {
  it("shows the problem, and an error status", () => {
    const state: HudState = { kind: "broken", notice: "the quest pack has errors (see the notification)" };
    expect(hudLines(state)).toEqual([
      { tone: "fail", text: "pi-quests: the quest pack has errors (see the notification)" },
    ]);
    expect(hudStatus(state)).toBe("quests: error");
  });
});

// hudCheck lives with the HUD state (the engine's wording is loaded there, not at Pi's start);
// its cases stay here, next to the lines they become.
describe("hudCheck: a check's line from its result", () => {
  const check = { id: "says-hello", describe: "hello.txt says hello" };

  const commandFail = (output: string, summary = "exit code 1, expected = 0"): CheckResult => ({
    id: "says-hello",
    type: "command",
    status: "fail",
    evidence: {
      kind: "command",
      summary,
      script: "grep -qi hello hello.txt",
      cwd: ".",
      isolation: "worktree",
      exitCode: 1,
      output,
      failed: [summary],
    },
  });

  it("before any result, the check is unchecked and has no reason", () => {
    expect(hudCheck(check)).toEqual({ describe: "hello.txt says hello", status: "unchecked" });
  });

  it("a check without a description shows its id", () => {
    expect(hudCheck({ id: "says-hello" })).toEqual({ describe: "says-hello", status: "unchecked" });
  });

  it("before the learner acts, a failed check is ○ not yet, never ✗ (a pass is ✓ at once)", () => {
    expect(hudCheck(check, commandFail(""), false)).toEqual({
      describe: "hello.txt says hello",
      status: "unchecked",
      reason: "not yet",
    });
    const passed: CheckResult = { ...commandFail(""), status: "pass" };
    expect(hudCheck(check, passed, false).status).toBe("pass");
  });

  it("after the learner acts, a failed command check says why in words, never its exit code", () => {
    expect(hudCheck(check, commandFail(""))).toEqual({
      describe: "hello.txt says hello",
      status: "fail",
      reason: "not yet: /quest status --details shows what the check ran",
    });
    // The checker's own sentence, without its name.
    expect(
      hudCheck(check, commandFail("check-code: add(2, 3) returned -1; it should return 5\n")).reason,
    ).toBe("add(2, 3) returned -1; it should return 5");
    // node --test's summary (TAP or spec).
    const tap = "TAP version 13\nok 1 - a\nnot ok 2 - b\n# tests 3\n# suites 0\n# pass 2\n# fail 1\n";
    expect(hudCheck(check, commandFail(tap)).reason).toBe("the tests fail: 1 of 3");
    const spec = "✔ a (1ms)\n✖ b (2ms)\nℹ tests 4\nℹ pass 2\nℹ fail 2\nℹ duration_ms 40\n";
    expect(hudCheck(check, commandFail(spec)).reason).toBe("the tests fail: 2 of 4");
    expect(hudCheck(check, commandFail("", 'stdout does not match contains "hi"')).reason).toBe(
      "its output is not what the goal asks for yet (/quest status --details)",
    );
  });

  it("an event that has not happened yet is 'not yet'; one that happened when it must not says so", () => {
    const event = (matched: number, summary: string): CheckResult => ({
      id: "asked",
      type: "event",
      status: "fail",
      evidence: { kind: "event", summary, matched, scanned: 4 },
    });
    expect(hudCheck({ id: "asked" }, event(0, "no matching input event (4 events recorded)")).reason).toBe(
      "not yet",
    );
    const once = {
      id: "asked",
      type: "event" as const,
      match: { event: "input" },
      same_session: false,
      count: { max: 0 },
    };
    expect(hudCheck(once, event(1, "1 matching input events; count must be at most 0")).reason).toBe(
      "it happened, and this quest asks that it does not (/quest hint)",
    );
    const twice = { ...once, count: { min: 2 } };
    expect(hudCheck(twice, event(1, "1 matching input events; count must be at least 2")).reason).toBe(
      "once so far; it takes twice",
    );
  });

  /** A confirm check's result while it waits on the learner; `answer` once they said no. */
  const confirm = (answer?: boolean): CheckResult => ({
    id: "read-it",
    type: "confirm",
    status: "pending",
    evidence: {
      kind: "confirm",
      summary: "awaiting the learner's confirmation",
      prompt: "Did you read it?",
      ...(answer === undefined ? {} : { answer }),
    },
  });

  it("a confirm check waiting on the learner says how to answer", () => {
    expect(hudCheck({ id: "read-it" }, confirm()).reason).toBe("/quest check to confirm");
    expect(hudCheck({ id: "read-it" }, confirm(false)).reason).toBe(
      "you answered no; /quest check asks again",
    );
  });

  it("before the learner acts, a check that waits on their work (another check's event, a review) is ○ not yet; a confirm or a missing review model says so at once", () => {
    const waiting: CheckResult = {
      id: "answered",
      type: "event",
      status: "pending",
      evidence: {
        kind: "pending",
        summary: 'it comes after "You asked", which has not happened yet',
        pending: "not_reached",
      },
    };
    expect(hudCheck({ id: "answered", describe: "Pi answered" }, waiting, false)).toEqual({
      describe: "Pi answered",
      status: "unchecked",
      reason: "not yet",
    });
    const readIt = {
      id: "read-it",
      type: "confirm",
      describe: "You read it",
      prompt: "Did you read it?",
    } as const;
    expect(hudCheck(readIt, confirm(), false)).toEqual({
      describe: "You read it",
      status: "pending",
      reason: "/quest check to confirm",
    });
    const review = (pending: "awaiting_review" | "no_model"): CheckResult =>
      ({
        id: "plan",
        type: "review",
        status: "pending",
        evidence: { kind: "review", summary: "not reviewed", pending },
      }) as CheckResult;
    expect(hudCheck({ id: "plan", describe: "The plan" }, review("awaiting_review"), false).reason).toBe(
      "not yet",
    );
    expect(hudCheck({ id: "plan", describe: "The plan" }, review("no_model"), false)).toEqual({
      describe: "The plan",
      status: "pending",
      reason: "no usable review model: /model, /login, or the check's model:",
    });
  });

  it("a pending result says what happens next, not the checker's own words", () => {
    const result: CheckResult = {
      id: "says-hello",
      type: "command",
      status: "pending",
      evidence: { kind: "pending", summary: "timed out after 60000 ms", pending: "timeout" },
    };
    expect(hudCheck(check, result)).toEqual({
      describe: "hello.txt says hello",
      status: "pending",
      reason: "the check took too long; /quest check tries again",
    });
  });

  it("a pass shows no reason", () => {
    const result: CheckResult = {
      id: "file-there",
      type: "file_exists",
      status: "pass",
      evidence: { kind: "file", summary: "hello.txt exists (a file)", path: "hello.txt", found: "file" },
    };
    const line = hudCheck({ id: "file-there", describe: "hello.txt exists" }, result);
    expect(line).toEqual({ describe: "hello.txt exists", status: "pass" });
    expect(hudLines(active([line]))[1]?.text).toBe("  ✓ hello.txt exists");
  });
});

describe("integrity alerts", () => {
  const WARNING = "⚠ pi-quests ignored altered records: 1 receipt — /quest status";

  it("add one warning line, last, to an active or an idle HUD", () => {
    const lines = hudLines(active([{ describe: "a", status: "fail", reason: "no" }], { integrity: WARNING }));
    expect(lines.at(-1)).toEqual({ tone: "fail", text: WARNING });
    expect(lines.at(-2)).toEqual(FOOTER);
    expect(hudLines({ kind: "idle", done: 3, total: 3, integrity: WARNING })).toEqual([
      { tone: "pass", text: "Quests 3/3 done. Well played!" },
      { tone: "fail", text: WARNING },
    ]);
  });
});

describe("code Pi wrote, running inside Pi", () => {
  const LINE = "⚠ Code Pi wrote is running inside Pi: .pi/extensions/x.ts — /quest status";

  it("adds one notice line, after an integrity warning, to an active or an idle HUD", () => {
    const lines = hudLines(
      active([{ describe: "a", status: "pass" }], { integrity: "⚠ w", agentCode: LINE }),
    );
    expect(lines.slice(-3)).toEqual([FOOTER, { tone: "fail", text: "⚠ w" }, { tone: "notice", text: LINE }]);
    expect(hudLines({ kind: "idle", done: 1, total: 3, agentCode: LINE }).at(-1)).toEqual({
      tone: "notice",
      text: LINE,
    });
  });
});

describe("a review running", () => {
  it("says reviewing with the model in the title and the footer status", () => {
    const state = active([{ describe: "x", status: "unchecked" }], { evaluating: true, reviewing: "p/m" });
    expect(hudLines(state)[0]).toEqual({
      tone: "title",
      text: "Quest 2/3: Make your first file · reviewing with p/m…",
    });
    expect(hudStatus(state)).toBe("quest 2/3 · reviewing with p/m…");
  });
});

describe("the active pack", () => {
  it("names a package's or a project's pack before the quest, and the built-in pack's HUD is as before", () => {
    expect(hudLines(active([], { pack: "Acme onboarding" }))[0]).toEqual({
      tone: "title",
      text: "Acme onboarding · Quest 2/3: Make your first file",
    });
    expect(hudLines({ kind: "idle", done: 1, total: 1, pack: "Acme onboarding" })).toEqual([
      { tone: "pass", text: "Acme onboarding · Quests 1/1 done. Well played!" },
    ]);
    expect(hudLines(active([]))[0]?.text).toBe("Quest 2/3: Make your first file");
  });
});
