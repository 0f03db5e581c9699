import { describe, expect, it } from "vitest";
import { judgeSubmission, normalizeCitedPath, type ReviewRead } from "../../src/verifier/review-judgment.ts";

const notes: ReviewRead = {
  path: "NOTES.md",
  firstLine: 1,
  text: "# Notes\n\nadd() subtracts b\ninstead of adding it.\n",
};
const calc: ReviewRead = { path: "src/calc.js", firstLine: 2, text: "  return a - b;\n" };
const pass = (...evidence: unknown[]) => [{ verdict: "pass", evidence }];

describe("judgeSubmission", () => {
  it("takes a pass whose quotes are in what was read, with their lines (whitespace collapsed)", () => {
    const judged = judgeSubmission(
      pass(
        { path: "./NOTES.md", quote: "subtracts   b instead" },
        { path: "src/calc.js", quote: "return a - b;" },
      ),
      [notes, calc],
    );
    expect(judged).toEqual({
      valid: true,
      verdict: "pass",
      citations: [
        { path: "NOTES.md", quote: "subtracts   b instead", lines: [3, 4] },
        { path: "src/calc.js", quote: "return a - b;", lines: [2, 2] },
      ],
    });
  });

  it("takes a fail with evidence as a fail", () => {
    const judged = judgeSubmission(
      [{ verdict: "fail", evidence: [{ path: "NOTES.md", quote: "# Notes" }] }],
      [notes],
    );
    expect(judged).toMatchObject({ valid: true, verdict: "fail" });
  });

  it("refuses no judgment, two judgments, a bad verdict and a verdict without evidence", () => {
    expect(judgeSubmission([], [notes])).toMatchObject({
      valid: false,
      reason: expect.stringContaining("never called submit_review"),
    });
    expect(
      judgeSubmission([...pass({ path: "NOTES.md", quote: "add()" }), ...pass()], [notes]),
    ).toMatchObject({ valid: false });
    expect(judgeSubmission([{ verdict: "yes", evidence: [] }], [notes])).toMatchObject({ valid: false });
    expect(judgeSubmission([{ verdict: "fail", evidence: [] }], [notes])).toMatchObject({
      valid: false,
      reason: expect.stringContaining("no evidence"),
    });
  });

  it("refuses a claim without reads", () => {
    expect(judgeSubmission(pass({ path: "NOTES.md", quote: "add()" }), [])).toMatchObject({
      valid: false,
      reason: expect.stringContaining("claim without reads"),
    });
  });

  it("refuses a citation of a file never read, a quote not in it, an empty read and paths outside", () => {
    expect(judgeSubmission(pass({ path: "src/calc.js", quote: "a - b" }), [notes])).toMatchObject({
      valid: false,
      problems: [{ path: "src/calc.js", why: expect.stringContaining("never read") }],
    });
    expect(judgeSubmission(pass({ path: "NOTES.md", quote: "add() multiplies" }), [notes])).toMatchObject({
      valid: false,
      problems: [
        { path: "NOTES.md", quote: "add() multiplies", why: expect.stringContaining("not in what") },
      ],
    });
    const empty = { path: "EMPTY.md", firstLine: 1, text: "" };
    expect(judgeSubmission(pass({ path: "EMPTY.md", quote: "x" }), [empty])).toMatchObject({
      valid: false,
      problems: [{ path: "EMPTY.md", why: expect.stringContaining("returned nothing") }],
    });
    for (const path of ["/etc/passwd", "../NOTES.md", "src/../../NOTES.md", ""]) {
      expect(judgeSubmission(pass({ path, quote: "add()" }), [notes])).toMatchObject({ valid: false });
    }
    expect(judgeSubmission(pass({ path: "NOTES.md", quote: "   " }), [notes])).toMatchObject({
      valid: false,
    });
  });

  it("does not join two reads of a file into one passage, and does not fold case", () => {
    const first = { path: "NOTES.md", firstLine: 1, text: "add() subtracts" };
    const second = { path: "NOTES.md", firstLine: 2, text: "b instead" };
    expect(judgeSubmission(pass({ path: "NOTES.md", quote: "subtracts b" }), [first, second])).toMatchObject({
      valid: false,
    });
    expect(judgeSubmission(pass({ path: "NOTES.md", quote: "b instead" }), [first, second])).toMatchObject({
      valid: true,
    });
    expect(judgeSubmission(pass({ path: "NOTES.md", quote: "ADD()" }), [notes])).toMatchObject({
      valid: false,
    });
  });
});

describe("normalizeCitedPath", () => {
  it("normalizes relative paths and refuses the rest", () => {
    expect(normalizeCitedPath("./a/b/")).toBe("a/b");
    expect(normalizeCitedPath("a\\b")).toBe("a/b");
    expect(normalizeCitedPath("src/../NOTES.md")).toBe("NOTES.md");
    expect(normalizeCitedPath("/abs")).toBeUndefined();
    expect(normalizeCitedPath("C:/x")).toBeUndefined();
    expect(normalizeCitedPath("../x")).toBeUndefined();
    expect(normalizeCitedPath(".")).toBeUndefined();
  });
});
