import { describe, expect, it } from "vitest";
import { isInside } from "../../src/core/paths.ts";

describe("isInside", () => {
  it("holds for the root itself and what is below it", () => {
    expect(isInside("/a/b", "/a/b")).toBe(true);
    expect(isInside("/a/b/c/d", "/a/b")).toBe(true);
    expect(isInside("/a/b/..c", "/a/b")).toBe(true);
  });

  it("does not hold for a parent, a sibling or a name that only starts like the root", () => {
    expect(isInside("/a", "/a/b")).toBe(false);
    expect(isInside("/a/c", "/a/b")).toBe(false);
    expect(isInside("/a/bc", "/a/b")).toBe(false);
    expect(isInside("/a/b/../c", "/a/b")).toBe(false);
  });
});
