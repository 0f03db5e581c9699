import { describe, expect, it } from "vitest";
import {
  joinSoftBreaks,
  markdownBlocks,
  message,
  messageFrom,
  plainText,
} from "../../src/extension/quest-message.ts";

describe("a message's plain text", () => {
  it("is its parts on their own lines, Markdown as written without its trailing newline", () => {
    const text = message(
      { title: "Quest 1/3: Hello" },
      { markdown: "Say **hello**.\n\n- then wait\n" },
      "",
      "(hint)",
    );
    expect(plainText(text)).toBe("Quest 1/3: Hello\nSay **hello**.\n\n- then wait\n\n(hint)");
    expect(plainText("just text")).toBe("just text");
  });
});

describe("a message read back from a session entry", () => {
  it("is the message when every part has a known shape", () => {
    const parts = [{ title: "T" }, "plain", { markdown: "*m*" }];
    expect(messageFrom({ parts })).toEqual({ parts });
  });

  it("is nothing for anything else", () => {
    for (const data of [
      undefined,
      null,
      "text",
      { parts: "x" },
      { parts: [1] },
      { parts: [{ title: 1 }] },
      { parts: [{ markdown: "m", extra: true }] },
      { parts: [{ script: "x" }] },
    ])
      expect(messageFrom(data)).toBeUndefined();
  });
});

describe("Markdown cut at its fenced code blocks", () => {
  it("prose, then the code block with its fences, then prose", () => {
    const markdown = "Run this:\n\n```bash\nnpm test -- --reporter verbose\n\n# done\n```\n\nThen look.\n";
    expect(markdownBlocks(markdown)).toEqual([
      { code: false, text: "Run this:" },
      { code: true, text: "```bash\nnpm test -- --reporter verbose\n\n# done\n```" },
      { code: false, text: "Then look." },
    ]);
  });

  it("a fence closes only with its own character, at least as long; an unclosed block runs to the end", () => {
    expect(markdownBlocks("````\n```\nstill code\n````\nafter")).toEqual([
      { code: true, text: "````\n```\nstill code\n````" },
      { code: false, text: "after" },
    ]);
    expect(markdownBlocks("~~~\ncode\n```")).toEqual([{ code: true, text: "~~~\ncode\n```" }]);
  });

  it("prose without code is one block; an indented fence (in a list) stays in the prose", () => {
    const markdown = "- a step:\n\n  ```\n  code\n  ```\n- another\n";
    expect(markdownBlocks(markdown)).toEqual([{ code: false, text: markdown.trimEnd() }]);
    expect(markdownBlocks("\n\n")).toEqual([]);
  });
});

describe("Markdown with its soft line breaks joined", () => {
  it("joins the lines of a paragraph and of a list item; blank lines still part paragraphs", () => {
    const markdown = [
      "Type a message to Pi in the editor at the bottom and press Enter. Ask it anything: what it",
      "can do, or simply say hello.",
      "",
      "- a step that is written",
      "  over two lines",
      "- another step",
      "  1. a nested step",
    ].join("\n");
    expect(joinSoftBreaks(markdown).split("\n")).toEqual([
      "Type a message to Pi in the editor at the bottom and press Enter. Ask it anything: what it can do, or simply say hello.",
      "",
      "- a step that is written over two lines",
      "- another step",
      "  1. a nested step",
    ]);
  });

  it("keeps hard breaks, headings, quotes, tables, rules and code as written", () => {
    const markdown = [
      "# A heading",
      "a line with a hard break  ",
      "after it\\",
      "and after that",
      "> a quote",
      "| a | b |",
      "|---|---|",
      "---",
      "```bash",
      "echo one",
      "echo two",
      "```",
      "  ```",
      "  indented code",
      "  stays",
      "  ```",
    ].join("\n");
    expect(joinSoftBreaks(markdown)).toBe(markdown);
  });
});
