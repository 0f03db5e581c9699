/**
 * The UI adapter over a stand-in for Pi's ExtensionContext: where each kind of message goes in
 * the TUI, in RPC and without a UI, the reset-style confirmation, and a kept message drawn with
 * pi-tui's own Markdown and Text components.
 */
import type { ExtensionContext, Theme } from "@earendil-works/pi-coding-agent";
import { Markdown, Text, visibleWidth } from "@earendil-works/pi-tui";
import { afterEach, describe, expect, it, vi } from "vitest";
import {
  MESSAGE_COLUMNS,
  type MessageComponents,
  questMessageComponent,
  questUi,
} from "../../src/extension/pi-ui.ts";
import { message, type QuestMessage } from "../../src/extension/quest-message.ts";

afterEach(() => {
  vi.restoreAllMocks();
});

type Mode = ExtensionContext["mode"];

/** The calls the adapter made on Pi's UI, and the answers a dialog gives. */
function fakeContext(mode: Mode, hasUI = mode === "tui" || mode === "rpc") {
  const calls: Array<[string, ...unknown[]]> = [];
  const appended: QuestMessage[] = [];
  let selected: string | undefined;
  const ui = {
    notify: (...args: unknown[]) => calls.push(["notify", ...args]),
    confirm: async (...args: unknown[]) => {
      calls.push(["confirm", ...args]);
      return true;
    },
    select: async (...args: unknown[]) => {
      calls.push(["select", ...args]);
      return selected;
    },
    setWidget: (...args: unknown[]) => calls.push(["setWidget", ...args]),
    setStatus: (...args: unknown[]) => calls.push(["setStatus", ...args]),
    theme: { fg: (_color: string, text: string) => text },
  };
  const ctx = { mode, hasUI, ui } as unknown as ExtensionContext;
  const adapter = questUi(ctx, {
    fitToWidth: (text) => text,
    appendMessage: (kept) => appended.push(kept),
  });
  return {
    adapter,
    calls,
    appended,
    select: (answer: string | undefined) => {
      selected = answer;
    },
  };
}

const GOAL = message(
  { title: "Quest 1/2: Hello" },
  { markdown: "Say **hello**.\n" },
  "(/quest hint if you are stuck)",
);
const PLAIN_GOAL = "Quest 1/2: Hello\nSay **hello**.\n(/quest hint if you are stuck)";

describe("messages", () => {
  it("in the TUI, an info message with parts is kept in the session for Pi to draw; plain text is a notification", () => {
    const { adapter, calls, appended } = fakeContext("tui");
    adapter.say(GOAL);
    adapter.notify(GOAL, "info");
    adapter.say("Quests: 0/2 done");
    expect(appended).toEqual([GOAL, GOAL]);
    expect(calls).toEqual([["notify", "Quests: 0/2 done", "info"]]);
  });

  it("in the TUI, a warning stays a notification (Pi colors it), in plain text", () => {
    const { adapter, calls, appended } = fakeContext("tui");
    adapter.notify(GOAL, "warning");
    expect(appended).toEqual([]);
    expect(calls).toEqual([["notify", PLAIN_GOAL, "warning"]]);
  });

  it("in RPC, every message is a notification in plain text, the Markdown as written", () => {
    const { adapter, calls, appended } = fakeContext("rpc");
    adapter.say(GOAL);
    adapter.notify(GOAL, "info");
    expect(appended).toEqual([]);
    expect(calls).toEqual([
      ["notify", PLAIN_GOAL, "info"],
      ["notify", PLAIN_GOAL, "info"],
    ]);
  });

  it("without a UI, answers go to stdout and warnings to stderr, in plain text", () => {
    const out = vi.spyOn(process.stdout, "write").mockImplementation(() => true);
    const err = vi.spyOn(process.stderr, "write").mockImplementation(() => true);
    const { adapter, calls } = fakeContext("print");
    adapter.say(GOAL);
    adapter.notify(GOAL, "info");
    adapter.notify("careful", "warning");
    expect(out.mock.calls).toEqual([[`${PLAIN_GOAL}\n`]]);
    expect(err.mock.calls).toEqual([["careful\n"]]);
    expect(calls).toEqual([]);
  });
});

describe("a confirmation whose answer defaults to no", () => {
  it("in the TUI is a No/Yes selector starting on No: Enter answers no, Yes is yes, Escape is no", async () => {
    const tui = fakeContext("tui");
    tui.select("No");
    expect(await tui.adapter.confirm("Reset?", "Everything starts over.", { defaultAnswer: false })).toBe(
      false,
    );
    tui.select("Yes");
    expect(await tui.adapter.confirm("Reset?", "Everything starts over.", { defaultAnswer: false })).toBe(
      true,
    );
    tui.select(undefined);
    expect(await tui.adapter.confirm("Reset?", "Everything starts over.", { defaultAnswer: false })).toBe(
      false,
    );
    expect(tui.calls[0]).toEqual(["select", "Reset?\nEverything starts over.", ["No", "Yes"]]);
  });

  it("in RPC is Pi's confirm (the client asks its own way); without a default, Pi's confirm everywhere", async () => {
    const rpc = fakeContext("rpc");
    expect(await rpc.adapter.confirm("Reset?", "Everything starts over.", { defaultAnswer: false })).toBe(
      true,
    );
    const tui = fakeContext("tui");
    expect(await tui.adapter.confirm("Read it?", "Did you?")).toBe(true);
    expect([...rpc.calls, ...tui.calls]).toEqual([
      ["confirm", "Reset?", "Everything starts over."],
      ["confirm", "Read it?", "Did you?"],
    ]);
    expect(
      await fakeContext("print").adapter.confirm("Reset?", "x", { defaultAnswer: false }),
    ).toBeUndefined();
  });
});

/** A theme that marks what it styles, so the drawing shows which theme call styled what. */
const MARKING = {
  fg: (color: string, text: string) => `<${color}>${text}</>`,
  bold: (text: string) => `<b>${text}</b>`,
  italic: (text: string) => text,
  underline: (text: string) => text,
  strikethrough: (text: string) => text,
} as unknown as Theme;
const PLAIN = {
  ...MARKING,
  fg: (_color: string, text: string) => text,
  bold: (text: string) => text,
} as Theme;

/** pi-tui's own components, as the extension's entry makes them. */
const COMPONENTS: MessageComponents = {
  markdown: (text, theme) => new Markdown(text, 1, 0, theme),
  text: (text) => new Text(text, 1, 0),
};

const DEBRIEF = [
  "You asked Pi to create `hello.txt`, and it used its **write** tool: the call and its result were in the conversation, where you can check them.",
  "",
  "- The reference way: name the file and say what it should contain, in one message.",
  "- Then read what Pi did.",
  "",
  "```bash",
  "cat hello.txt && git status --short && echo 'this line of code is longer than sixty columns'",
  "```",
].join("\n");

describe("a kept message, drawn in the TUI", () => {
  const draw = (parts: unknown[], width: number, theme = PLAIN) =>
    questMessageComponent({ parts }, theme, COMPONENTS)?.render(width) ?? [];

  it("wraps Markdown prose at 60 columns, even in a wide terminal, and renders it (no backticks or asterisks left)", () => {
    const lines = draw([{ markdown: DEBRIEF }], 120);
    const prose = lines.slice(
      0,
      lines.findIndex((line) => line.includes("```")),
    );
    expect(prose.length).toBeGreaterThan(4);
    for (const line of prose) expect(visibleWidth(line)).toBeLessThanOrEqual(MESSAGE_COLUMNS);
    expect(prose.join("\n")).not.toMatch(/`|\*\*/);
    expect(prose.join("\n")).toContain("hello.txt");
  });

  it("keeps lists as lists, each item's wrapped lines under its text", () => {
    const lines = draw([{ markdown: DEBRIEF }], 120).map((line) => line.trimEnd());
    const item = lines.findIndex((line) => line.includes("The reference way"));
    expect(lines[item]).toMatch(/^ - The reference way/);
    expect(lines[item + 1]).toMatch(/^ {3}\S/);
    expect(lines).toContain(" - Then read what Pi did.");
  });

  it("keeps a code block's lines whole at the terminal's width, not at 60", () => {
    const lines = draw([{ markdown: DEBRIEF }], 120);
    const code = lines.find((line) => line.includes("cat hello.txt"));
    expect(code?.trimEnd()).toMatch(/echo 'this line of code is longer than sixty columns'$/);
    expect(visibleWidth(code ?? "")).toBeGreaterThan(MESSAGE_COLUMNS);
  });

  it("wraps a paragraph the author broke at 95 columns evenly at 60, not at the author's breaks", () => {
    const goal =
      "Type a message to Pi in the editor at the bottom and press Enter. Ask it anything: what it\ncan do, what the files in this folder are, or simply say hello. Pi answers, and may use tools\n(read a file, run a command) to do so.\n";
    const lines = draw([{ markdown: goal }], 120).map((line) => line.trimEnd());
    expect(lines).toEqual([
      " Type a message to Pi in the editor at the bottom and press",
      " Enter. Ask it anything: what it can do, what the files in",
      " this folder are, or simply say hello. Pi answers, and may",
      " use tools (read a file, run a command) to do so.",
    ]);
  });

  it("in a terminal narrower than 60, wraps to the terminal", () => {
    for (const line of draw([{ markdown: DEBRIEF }], 40)) expect(visibleWidth(line)).toBeLessThanOrEqual(40);
  });

  it("draws the title in bold and the accent color, plain lines as they are, '' as a blank line", () => {
    const lines = draw([{ title: "Quest complete: Hello ✓" }, "", "Next: /quest start b"], 80, MARKING);
    expect(lines.map((line) => line.trimEnd())).toEqual([
      " <b><accent>Quest complete: Hello ✓</></b>",
      "",
      " Next: /quest start b",
    ]);
  });

  it("draws nothing for an entry that is not a message", () => {
    expect(questMessageComponent({ parts: [{ run: "rm -rf /" }] }, PLAIN, COMPONENTS)).toBeUndefined();
    expect(questMessageComponent(undefined, PLAIN, COMPONENTS)).toBeUndefined();
  });
});
