import { describe, expect, it } from "vitest";
import { toolResultEvent } from "../../src/events/names.ts";
import type { VerifierEvent } from "../../src/events/schema.ts";
import { agentCodeNotice, codeWrittenByPi } from "../../src/extension/agent-code.ts";

/** A recorded event, as the log holds it. */
const recorded = (event: { name: string; payload: Record<string, unknown> }, seq = 0): VerifierEvent => ({
  ...event,
  seq,
});

describe("the loaded code Pi's tools wrote", () => {
  const workspace = "/w";
  const home = "/home/learner";
  const loaded = [
    "/w/.pi/extensions/a.ts",
    "/w/.pi/extensions/b.ts",
    "/w/.pi/extensions/c.ts",
    "/home/learner/.pi/agent/extensions/d.ts",
    "/w/.pi/extensions/e.ts",
  ];

  it("by a write or edit that did not fail, a look around any call, changedPaths, or this process's memory", () => {
    const events = [
      recorded(
        toolResultEvent({
          toolName: "write",
          toolCallId: "1",
          isError: false,
          input: { path: ".pi/extensions/a.ts" },
        }),
      ),
      recorded(
        toolResultEvent({
          toolName: "edit",
          toolCallId: "2",
          isError: true,
          input: { path: ".pi/extensions/e.ts" },
        }),
      ),
      recorded(
        toolResultEvent({
          toolName: "bash",
          toolCallId: "3",
          isError: false,
          input: { command: "x" },
          extensionFiles: ["/home/learner/.pi/agent/extensions/d.ts"],
        }),
      ),
      recorded(
        toolResultEvent({
          toolName: "bash",
          toolCallId: "4",
          isError: false,
          input: {},
          changes: { paths: [".pi/extensions/b.ts"], truncated: false },
        }),
      ),
      recorded({
        name: "user_bash",
        payload: { command: "vi c.ts", exitCode: 0, changedPaths: [".pi/extensions/c.ts"] },
      }),
    ];
    expect(codeWrittenByPi({ loaded, events, remembered: new Set(), workspace, home })).toEqual([
      "/home/learner/.pi/agent/extensions/d.ts",
      "/w/.pi/extensions/a.ts",
      "/w/.pi/extensions/b.ts",
    ]);
    expect(
      codeWrittenByPi({
        loaded,
        events: [],
        remembered: new Set(["/w/.pi/extensions/c.ts", "/w/gone.ts"]),
        workspace,
        home,
      }),
    ).toEqual(["/w/.pi/extensions/c.ts"]);
  });

  it("a write to ~/ or an absolute path counts; a file no longer there does not", () => {
    const events = [
      recorded(
        toolResultEvent({
          toolName: "write",
          toolCallId: "1",
          isError: false,
          input: { path: "~/.pi/agent/extensions/d.ts" },
        }),
      ),
      recorded(
        toolResultEvent({
          toolName: "write",
          toolCallId: "2",
          isError: false,
          input: { path: "/w/.pi/extensions/old.ts" },
        }),
      ),
    ];
    expect(codeWrittenByPi({ loaded, events, remembered: new Set(), workspace, home })).toEqual([
      "/home/learner/.pi/agent/extensions/d.ts",
    ]);
  });
});

describe("what the learner is told", () => {
  const where = { workspace: "/w", home: "/home/learner" };

  it("nothing when Pi wrote none of the loaded code", () => {
    expect(agentCodeNotice([], where)).toBeUndefined();
  });

  it("a HUD line naming the files (two, then how many more), and /quest status's paragraph naming each", () => {
    const files = ["/w/.pi/extensions/a.ts", "/home/learner/.pi/agent/extensions/d.ts", "/opt/x.ts"];
    const notice = agentCodeNotice(files, where);
    expect(notice?.hudLine).toBe(
      "⚠ Code Pi wrote is running inside Pi: .pi/extensions/a.ts, ~/.pi/agent/extensions/d.ts and 1 more — /quest status",
    );
    expect(notice?.statusText).toBe(
      [
        "Code Pi wrote is running inside Pi:",
        "  .pi/extensions/a.ts",
        "  ~/.pi/agent/extensions/d.ts",
        "  /opt/x.ts",
        "Pi's tools wrote or changed these files, and Pi loaded them as extensions when this session started. They run inside Pi with your rights: they can do anything you can, change what pi-quests records, and make a quest look done. Read them. If a quest should not depend on them, remove them and /reload before you start it.",
      ].join("\n"),
    );
  });
});
