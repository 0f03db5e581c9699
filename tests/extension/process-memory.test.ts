/**
 * What one Pi process remembers across its sessions (`/new`, `/reload`): here, what was said
 * once, so a notice for the whole process is not said again at the next session.
 */
import { randomUUID } from "node:crypto";
import { describe, expect, it } from "vitest";
import { firstTimeTold, freshMemory, processMemory } from "../../src/extension/process-memory.ts";

describe("said once a process", () => {
  it("is true the first time a text is told, then false", () => {
    const text = `a notice ${randomUUID()}`;
    expect(firstTimeTold(text)).toBe(true);
    expect(firstTimeTold(text)).toBe(false);
    expect(firstTimeTold(`${text}, another`)).toBe(true);
  });

  it("is kept in the process's memory, not in a fresh one", () => {
    const text = `a notice ${randomUUID()}`;
    firstTimeTold(text);
    expect(processMemory().told.has(text)).toBe(true);
    expect(freshMemory().told.has(text)).toBe(false);
  });
});
