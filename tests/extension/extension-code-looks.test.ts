import { mkdirSync, realpathSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import {
  changedBetween,
  codeFilesIn,
  createExtensionCodeLooks,
  MAX_ENTRIES,
} from "../../src/extension/extension-code-looks.ts";
import { makeWorkspace, removeWorkspaces } from "../support/workspace.ts";

afterEach(removeWorkspaces);

const HARMLESS = "export default function () {}\n";

describe("the looks at the extension folders", () => {
  it("list the code files below them (a folder's real path, links not followed below it, node_modules left out)", () => {
    const dir = realpathSync(
      makeWorkspace({
        "ext/a.ts": HARMLESS,
        "ext/sub/index.js": HARMLESS,
        "ext/sub/package.json": "{}",
        "ext/notes.md": "# notes",
        "ext/node_modules/dep/index.js": HARMLESS,
        "elsewhere/b.ts": HARMLESS,
        "one.mts": HARMLESS,
      }),
    );
    symlinkSync(join(dir, "elsewhere"), join(dir, "ext", "linked"));
    symlinkSync(join(dir, "ext"), join(dir, "through-a-link"));
    const files = codeFilesIn([join(dir, "through-a-link"), join(dir, "one.mts"), join(dir, "missing")]);
    expect([...files.keys()]).toEqual([
      join(dir, "ext", "a.ts"),
      join(dir, "ext", "sub", "index.js"),
      join(dir, "ext", "sub", "package.json"),
      join(dir, "one.mts"),
    ]);
  });

  it("stop at their bound", () => {
    const files = Object.fromEntries(
      Array.from({ length: 30 }, (_, i) => [`f${String(i).padStart(2, "0")}.ts`, ""]),
    );
    const dir = makeWorkspace(files);
    expect(codeFilesIn([dir], 10).size).toBe(9);
    expect(MAX_ENTRIES).toBe(5000);
  });

  it("see what a call created, changed (same size too) or deleted, and remember it", () => {
    const dir = realpathSync(makeWorkspace({ "a.ts": "one", "b.ts": "two", "c.ts": "three" }));
    const remembered = new Set<string>();
    const looks = createExtensionCodeLooks(remembered);
    looks.before("c1", [dir]);
    writeFileSync(join(dir, "a.ts"), "uno");
    writeFileSync(join(dir, "d.ts"), "new");
    mkdirSync(join(dir, "gone"));
    rmSync(join(dir, "c.ts"));
    expect(looks.after("c1")).toEqual([join(dir, "a.ts"), join(dir, "c.ts"), join(dir, "d.ts")]);
    expect([...remembered]).toEqual([join(dir, "a.ts"), join(dir, "c.ts"), join(dir, "d.ts")]);
    looks.before("c2", [dir]);
    expect(looks.after("c2")).toEqual([]);
    expect(looks.after("never-started")).toBeUndefined();
    expect(changedBetween(new Map([["x", "1"]]), new Map([["x", "1"]]))).toEqual([]);
  });
});
