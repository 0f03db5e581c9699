import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { formatDiagnostic } from "../../../src/core/diagnostics.ts";
import { readsChangedPaths } from "../../../src/verifier/checks/event.ts";
import { evaluateCheck, evaluateQuest } from "../../../src/verifier/evaluate.ts";
import { loadQuestFile } from "../../../src/verifier/loader.ts";
import { check } from "../../support/checks.ts";
import { context, events } from "../../support/fake-probes.ts";

const wroteFile = check({
  type: "event",
  match: { event: "tool_result", tool: "write", outcome: "success" },
});

describe("event checks", () => {
  it("pass on the first matching event and say where it was", async () => {
    const ctx = context({
      events: events(
        { name: "turn_end" },
        { name: "tool_result", payload: { toolName: "write", isError: false } },
      ),
    });
    const result = await evaluateCheck(wroteFile, ctx);
    expect(result.status).toBe("pass");
    expect(result.evidence).toMatchObject({ kind: "event", firstMatchSeq: 1, matched: 1, scanned: 2 });
  });

  it("fail when no event matches, saying how many were recorded", async () => {
    const ctx = context({
      events: events({ name: "tool_result", payload: { toolName: "write", isError: true } }),
    });
    const result = await evaluateCheck(wroteFile, ctx);
    expect(result.status).toBe("fail");
    expect(result.evidence.summary).toContain("no matching tool_result event (1 event recorded)");
  });

  it.each([
    ["tool", { tool: "write", success: true }],
    ["toolName", { toolName: "write", isError: false }],
    ["tool_name", { tool_name: "write", is_error: false }],
  ])("read the tool from %s and the outcome from its companion field", async (_alias, payload) => {
    const result = await evaluateCheck(
      wroteFile,
      context({ events: events({ name: "tool_result", payload }) }),
    );
    expect(result.status).toBe("pass");
  });

  it("treat an event without any outcome field as not matching an outcome", async () => {
    const result = await evaluateCheck(
      wroteFile,
      context({ events: events({ name: "tool_result", payload: { tool: "write" } }) }),
    );
    expect(result.status).toBe("fail");
  });

  it("match error outcomes", async () => {
    const failedBash = check({
      type: "event",
      match: { event: "tool_result", tool: "bash", outcome: "error" },
    });
    const ctx = context({
      events: events({ name: "tool_result", payload: { toolName: "bash", isError: true } }),
    });
    expect((await evaluateCheck(failedBash, ctx)).status).toBe("pass");
  });

  it("read min_assistant_turns from assistant_turns or assistantTurns", async () => {
    const twoTurns = check({ type: "event", match: { event: "agent_end", min_assistant_turns: 2 } });
    expect(
      (
        await evaluateCheck(
          twoTurns,
          context({ events: events({ name: "agent_end", payload: { assistantTurns: 2 } }) }),
        )
      ).status,
    ).toBe("pass");
    expect(
      (
        await evaluateCheck(
          twoTurns,
          context({ events: events({ name: "agent_end", payload: { assistant_turns: 3 } }) }),
        )
      ).status,
    ).toBe("pass");
    expect(
      (
        await evaluateCheck(
          twoTurns,
          context({ events: events({ name: "agent_end", payload: { assistantTurns: 1 } }) }),
        )
      ).status,
    ).toBe("fail");
  });

  it("match dotted payload fields with literals and predicates", async () => {
    const wroteHello = check({
      type: "event",
      match: {
        event: "tool_result",
        fields: { "input.path": { ends_with: "hello.txt" }, "input.lines": { min: 1 } },
      },
    });
    const payload = (path: string, lines: number) => ({ toolName: "write", input: { path, lines } });
    expect(
      (
        await evaluateCheck(
          wroteHello,
          context({ events: events({ name: "tool_result", payload: payload("a/hello.txt", 2) }) }),
        )
      ).status,
    ).toBe("pass");
    expect(
      (
        await evaluateCheck(
          wroteHello,
          context({ events: events({ name: "tool_result", payload: payload("a/bye.txt", 2) }) }),
        )
      ).status,
    ).toBe("fail");
    expect(
      (
        await evaluateCheck(
          wroteHello,
          context({ events: events({ name: "tool_result", payload: payload("hello.txt", 0) }) }),
        )
      ).status,
    ).toBe("fail");
  });

  describe("* in a fields path (any element)", () => {
    const loadedProject = (fields: Record<string, unknown>) =>
      check({ type: "event", match: { event: "context_loaded", fields } });
    const statusWith = async (fields: Record<string, unknown>, payload: Record<string, unknown>) =>
      (
        await evaluateCheck(
          loadedProject(fields),
          context({ events: events({ name: "context_loaded", payload }) }),
        )
      ).status;

    it("holds when any element of the list matches, wherever it is", async () => {
      const contextFiles = ["/home/me/.pi/agent/AGENTS.md", "/work/project/AGENTS.md"];
      expect(
        await statusWith({ "contextFiles.*": { starts_with: "/work/project/" } }, { contextFiles }),
      ).toBe("pass");
      expect(await statusWith({ "contextFiles.*": { starts_with: "/elsewhere/" } }, { contextFiles })).toBe(
        "fail",
      );
      // The index the author would have guessed (`contextFiles.0`) misses the project's file.
      expect(
        await statusWith({ "contextFiles.0": { starts_with: "/work/project/" } }, { contextFiles }),
      ).toBe("fail");
    });

    it("holds for none over an empty list, a missing field or a value that is not a list", async () => {
      const anything = { "contextFiles.*": { contains: "" } };
      expect(await statusWith(anything, { contextFiles: [] })).toBe("fail");
      expect(await statusWith(anything, {})).toBe("fail");
      expect(await statusWith(anything, { contextFiles: "AGENTS.md" })).toBe("fail");
      expect(await statusWith(anything, { contextFiles: ["AGENTS.md"] })).toBe("pass");
    });

    it("goes on past the * into each element, takes several *, and reads an object's values", async () => {
      const payload = {
        runs: [{ tools: [{ name: "read" }] }, { tools: [{ name: "ls" }, { name: "write" }] }],
        byName: { a: { ok: false }, b: { ok: true } },
      };
      expect(await statusWith({ "runs.*.tools.*.name": "write" }, payload)).toBe("pass");
      expect(await statusWith({ "runs.*.tools.*.name": "edit" }, payload)).toBe("fail");
      expect(await statusWith({ "runs.0.tools.*.name": "write" }, payload)).toBe("fail");
      expect(await statusWith({ "byName.*.ok": true }, payload)).toBe("pass");
    });

    it("lints a * inside a segment as an error that names the path", async () => {
      const dir = await mkdtemp(join(tmpdir(), "pi-quests-event-star-"));
      try {
        const file = join(dir, "q.yaml");
        await writeFile(
          file,
          'version: 1\nid: q\ntitle: Q\ngoal: g\nchecks:\n  - type: event\n    match:\n      event: context_loaded\n      fields: { "contextFiles.*": { ends_with: AGENTS.md }, "skills.a*": x }\n',
        );
        const loaded = await loadQuestFile(file);
        expect(loaded.ok).toBe(false);
        if (loaded.ok) return;
        expect(loaded.diagnostics.map((d) => formatDiagnostic({ ...d, file: "q.yaml" }))).toEqual([
          'q.yaml:9:61: checks[0].match.fields: "skills.a*": * stands for any element only as a whole segment (like contextFiles.*), not inside "a*"',
        ]);
      } finally {
        await rm(dir, { recursive: true, force: true });
      }
    });
  });

  describe("changedPaths: what a tool call or ! command changed", () => {
    const piCreatedHello = check({
      type: "event",
      match: {
        event: "tool_result",
        outcome: "success",
        fields: { "changedPaths.*": { ends_with: "hello.txt" } },
      },
    });
    const statusOf = async (payload: Record<string, unknown>) =>
      (await evaluateCheck(piCreatedHello, context({ events: events({ name: "tool_result", payload }) })))
        .status;

    it("matches a call that changed the path, whatever tool made the change", async () => {
      const bash = { toolName: "bash", isError: false, input: { command: "cat > hello.txt" } };
      expect(await statusOf({ ...bash, changedPaths: ["docs/hello.txt", "notes.md"] })).toBe("pass");
      expect(await statusOf({ ...bash, toolName: "my_extension_tool", changedPaths: ["hello.txt"] })).toBe(
        "pass",
      );
      expect(await statusOf({ ...bash, changedPaths: ["notes.md"] })).toBe("fail");
      expect(await statusOf({ ...bash, changedPaths: [] })).toBe("fail");
      // No look was taken (a session file, print mode, another quest): no match.
      expect(await statusOf(bash)).toBe("fail");
    });

    it("is what makes the extension look: a quest reads it when an event check's fields path starts with it", () => {
      const event = (fields?: Record<string, unknown>) => ({
        type: "event",
        match: { event: "tool_result", ...(fields ? { fields } : {}) },
      });
      expect(readsChangedPaths([event({ "changedPaths.*": { ends_with: "a.txt" } })])).toBe(true);
      expect(readsChangedPaths([event({ changedPathsTruncated: true })])).toBe(true);
      expect(readsChangedPaths([event({ "changedPaths.0": "a.txt" })])).toBe(true);
      const fileCheck = { type: "file_exists", path: "a.txt" };
      expect(readsChangedPaths([fileCheck, event({ "input.path": "a.txt" }), event()])).toBe(false);
      expect(readsChangedPaths([])).toBe(false);
    });

    it("lints clean in a quest file", async () => {
      const dir = await mkdtemp(join(tmpdir(), "pi-quests-event-changed-"));
      try {
        const file = join(dir, "q.yaml");
        await writeFile(
          file,
          "version: 1\nid: q\ntitle: Q\ngoal: g\nchecks:\n  - type: event\n    match: { event: tool_result, outcome: success, fields: { changedPaths.*: { ends_with: hello.txt } } }\n",
        );
        const loaded = await loadQuestFile(file);
        expect(loaded.ok && readsChangedPaths(loaded.value.checks)).toBe(true);
      } finally {
        await rm(dir, { recursive: true, force: true });
      }
    });
  });

  describe("boundaries", () => {
    const afterWelcome = check({ type: "event", match: { event: "input" }, after: "welcome" });

    it("count only events after the named quest completed", async () => {
      const ctx = context({
        events: events(
          { name: "input", payload: { text: "before" } },
          { name: "quest_completed", payload: { quest: "welcome" } },
          { name: "input", payload: { text: "after" } },
        ),
      });
      const result = await evaluateCheck(afterWelcome, ctx);
      expect(result.status).toBe("pass");
      expect(result.evidence).toMatchObject({ boundarySeq: 1, firstMatchSeq: 2 });
    });

    it("fail when the only matches came before the boundary", async () => {
      const ctx = context({
        events: events({ name: "input" }, { name: "quest_completed", payload: { quest: "welcome" } }),
      });
      expect((await evaluateCheck(afterWelcome, ctx)).status).toBe("fail");
    });

    it("are pending while the boundary has not happened", async () => {
      const result = await evaluateCheck(afterWelcome, context({ events: events({ name: "input" }) }));
      expect(result.status).toBe("pending");
      expect(result.evidence).toMatchObject({ kind: "pending", pending: "not_reached" });
    });

    it("resolve {ref, event} from explicit refs before recorded events", async () => {
      const afterActivation = check({
        type: "event",
        match: { event: "input" },
        after: { ref: "first-file", event: "quest_activated" },
      });
      const recorded = events({ name: "input" }, { name: "input" }, { name: "input" });
      expect(
        (
          await evaluateCheck(
            afterActivation,
            context({ events: recorded, eventRefs: { "first-file": { quest_activated: 1 } } }),
          )
        ).evidence,
      ).toMatchObject({ firstMatchSeq: 2 });
      expect(
        (
          await evaluateCheck(
            afterActivation,
            context({ events: recorded, eventRefs: { "first-file": { quest_activated: 2 } } }),
          )
        ).status,
      ).toBe("fail");
    });

    it("use the latest boundary when a quest completed more than once (after a reset)", async () => {
      const ctx = context({
        events: events(
          { name: "quest_completed", payload: { quest: "welcome" } },
          { name: "input" },
          { name: "quest_completed", payload: { quest: "welcome" } },
        ),
      });
      expect((await evaluateCheck(afterWelcome, ctx)).status).toBe("fail");
    });
  });

  describe("after another check of the quest (version 3)", () => {
    const changed = check(
      { type: "event", match: { event: "tool_result", fields: { "changedPaths.*": "src/greet.js" } } },
      "changed",
    );
    const reviewed = check(
      {
        type: "event",
        match: { event: "user_bash", fields: { command: { contains: "diff" } } },
        after: { check: "changed" },
      },
      "reviewed",
    );
    const restored = check(
      {
        type: "event",
        match: { event: "user_bash", fields: { command: { contains: "restore" } } },
        after: { check: "reviewed" },
      },
      "restored",
    );
    const quest = { id: "undo", checks: [changed, reviewed, restored] };
    const statuses = async (...recorded: Parameters<typeof events>) =>
      (await evaluateQuest(quest, context({ events: events(...recorded) }))).checks.map((c) => c.status);

    it("count only events after the other check's first match, in the order the quest asks", async () => {
      expect(
        await statuses(
          { name: "tool_result", payload: { changedPaths: ["src/greet.js"] } },
          { name: "user_bash", payload: { command: "git diff" } },
          { name: "user_bash", payload: { command: "git restore src/greet.js" } },
        ),
      ).toEqual(["pass", "pass", "pass"]);
    });

    it("fail a step made before the one it follows, and wait (pending) while that one has not happened", async () => {
      expect(
        await statuses(
          { name: "user_bash", payload: { command: "git diff" } },
          { name: "tool_result", payload: { changedPaths: ["src/greet.js"] } },
          { name: "user_bash", payload: { command: "git restore src/greet.js" } },
        ),
      ).toEqual(["pass", "fail", "pending"]);
      const waiting = await evaluateQuest(quest, context({ events: events({ name: "turn_end" }) }));
      expect(waiting.checks[1]?.evidence).toMatchObject({
        pending: "not_reached",
        summary: expect.stringMatching(/after "changed", which has not happened yet/),
      });
    });
  });

  describe("same_session", () => {
    const inThisSession = check({ type: "event", match: { event: "input" }, same_session: true });

    it("ignore events from other sessions", async () => {
      const recorded = events({ name: "input", sessionId: "old" }, { name: "turn_end", sessionId: "new" });
      expect((await evaluateCheck(inThisSession, context({ events: recorded }))).status).toBe("fail");
      expect(
        (await evaluateCheck(inThisSession, context({ events: recorded, sessionId: "old" }))).status,
      ).toBe("pass");
    });

    it("take the current session from the last event that names one", async () => {
      const recorded = events({ name: "input", sessionId: "a" }, { name: "input", sessionId: "b" });
      const result = await evaluateCheck(inThisSession, context({ events: recorded }));
      expect(result.evidence).toMatchObject({ sessionId: "b", firstMatchSeq: 1 });
    });

    it("are pending when no session is known", async () => {
      expect(
        (await evaluateCheck(inThisSession, context({ events: events({ name: "input" }) }))).status,
      ).toBe("pending");
    });
  });

  describe("count", () => {
    const threeTurns = check({ type: "event", match: { event: "turn_end" }, count: { min: 3 } });
    it("turn the number of matches into an integer predicate", async () => {
      const two = events({ name: "turn_end" }, { name: "turn_end" });
      const three = events({ name: "turn_end" }, { name: "turn_end" }, { name: "turn_end" });
      expect((await evaluateCheck(threeTurns, context({ events: two }))).status).toBe("fail");
      const result = await evaluateCheck(threeTurns, context({ events: three }));
      expect(result.status).toBe("pass");
      expect(result.evidence).toMatchObject({ matched: 3 });
    });

    it("can require that something never happened", async () => {
      const neverFailed = check({
        type: "event",
        match: { event: "tool_result", outcome: "error" },
        count: 0,
      });
      expect(
        (
          await evaluateCheck(
            neverFailed,
            context({ events: events({ name: "tool_result", payload: { isError: false } }) }),
          )
        ).status,
      ).toBe("pass");
      expect(
        (
          await evaluateCheck(
            neverFailed,
            context({ events: events({ name: "tool_result", payload: { isError: true } }) }),
          )
        ).status,
      ).toBe("fail");
    });
  });
});
