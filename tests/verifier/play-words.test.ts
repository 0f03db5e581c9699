import { describe, expect, it } from "vitest";
import { playStepsInWords, toolCallInWords } from "../../src/verifier/play-words.ts";

const LONG = "Fix add() in src/calc.js so that the tests pass; edit only the broken line, nothing else.";

describe("a play's steps in words", () => {
  it("says each step whole, never cut, and what Pi did in reply; the model's closing text is left out", () => {
    expect(
      playStepsInWords([
        { kind: "bash", bash: "node --test test/calc.test.js", quiet: false },
        {
          kind: "prompt",
          prompt: LONG,
          wait: "settled",
          model: [
            { tool: "edit", args: { path: "src/calc.js", edits: [{ oldText: "a - b", newText: "a + b" }] } },
            { text: "Fixed." },
          ],
        },
        { kind: "command", command: "/quest check" },
        { kind: "bash", bash: "git status", quiet: true },
      ]),
    ).toEqual([
      "Run it yourself: !node --test test/calc.test.js",
      `Type: ${LONG}\n   Pi edits src/calc.js (1 change)`,
      "Type: /quest check",
      "Run it yourself: !!git status",
    ]);
  });

  it("words steering, queueing, stopping, dialogs and changes made outside Pi", () => {
    expect(
      playStepsInWords([
        { kind: "prompt", prompt: "Count to 100", wait: "started", model: [] },
        { kind: "steer", steer: "Stop at 10", model: [] },
        { kind: "follow_up", follow_up: "Then say done", model: [] },
        { kind: "abort" },
        { kind: "confirm", answer: true },
        { kind: "shell", shell: "echo hi > notes.md" },
      ]),
    ).toEqual([
      "Type: Count to 100 (and go on while Pi still works)",
      "While Pi works, type and press Enter to steer it: Stop at 10",
      "While Pi works, type and press Alt+Enter to queue: Then say done",
      "Press Escape to stop Pi's run.",
      "Answer Yes in the dialog.",
      "Outside Pi, in a terminal in this folder: echo hi > notes.md",
    ]);
  });

  it("says tool calls as what Pi did", () => {
    expect(toolCallInWords({ tool: "write", args: { path: "hello.txt", content: "x" } })).toBe(
      "writes hello.txt",
    );
    expect(toolCallInWords({ tool: "read", args: { path: "README.md" } })).toBe("reads README.md");
    expect(toolCallInWords({ tool: "bash", args: { command: "git commit -qm 'Say hello'" } })).toBe(
      "runs: git commit -qm 'Say hello'",
    );
    expect(toolCallInWords({ tool: "ls", args: {} })).toBe("lists the folder");
    expect(toolCallInWords({ tool: "word_count", args: { text: "a b" } })).toBe("calls its word_count tool");
  });
});
