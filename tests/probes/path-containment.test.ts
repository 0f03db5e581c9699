import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { firstLinkOutside, locateInside } from "../../src/probes/path-containment.ts";

let base: string;
let root: string;
let outside: string;

beforeEach(() => {
  base = realpathSync(mkdtempSync(join(tmpdir(), "pi-quests-containment-")));
  root = join(base, "root");
  outside = join(base, "outside");
  mkdirSync(join(root, "folder"), { recursive: true });
  mkdirSync(outside);
  writeFileSync(join(root, "folder", "file.txt"), "inside");
  writeFileSync(join(outside, "secret.txt"), "outside");
  symlinkSync(outside, join(root, "away"));
  symlinkSync(join(root, "folder"), join(root, "nearby"));
});
afterEach(() => {
  rmSync(base, { recursive: true, force: true });
});

describe("locateInside", () => {
  it("gives the real path of a file inside, also through a link that stays inside", async () => {
    const real = join(root, "folder", "file.txt");
    expect(await locateInside(root, join(root, "folder", "file.txt"))).toEqual({ kind: "inside", real });
    expect(await locateInside(root, join(root, "nearby", "file.txt"))).toEqual({ kind: "inside", real });
  });

  it("says missing for a path that does not exist below the root, or when the root is gone", async () => {
    expect(await locateInside(root, join(root, "folder", "nope", "deeper"))).toEqual({ kind: "missing" });
    expect(await locateInside(join(base, "gone"), join(base, "gone", "x"))).toEqual({ kind: "missing" });
  });

  it("says outside for a path outside the root as written", async () => {
    expect(await locateInside(root, join(root, "..", "outside", "secret.txt"))).toEqual({ kind: "outside" });
  });

  it("follows a link out of the root, also for a missing file behind it", async () => {
    expect(await locateInside(root, join(root, "away", "secret.txt"))).toEqual({
      kind: "through_link",
      real: join(outside, "secret.txt"),
    });
    expect(await locateInside(root, join(root, "away", "nope.txt"))).toEqual({
      kind: "through_link",
      real: outside,
    });
  });

  it("gives the error of a name that cannot be resolved", async () => {
    symlinkSync(join(root, "loop"), join(root, "loop"));
    expect(await locateInside(root, join(root, "loop"))).toMatchObject({
      kind: "error",
      error: { code: "ELOOP" },
    });
  });
});

describe("firstLinkOutside", () => {
  it("names the first target that leads outside, and where it leads", async () => {
    const targets = [join(root, "folder"), join(root, "away"), join(root, "away", "secret.txt")];
    expect(await firstLinkOutside(targets, root)).toEqual({ target: join(root, "away"), real: outside });
  });

  it("is undefined when every target stays inside or is missing, even behind a link", async () => {
    expect(
      await firstLinkOutside([join(root, "nearby"), join(root, "away", "nope.txt")], root),
    ).toBeUndefined();
    expect(await firstLinkOutside([join(root, "away")], join(base, "gone"))).toBeUndefined();
  });

  it("throws the error of a name that cannot be resolved", async () => {
    symlinkSync(join(root, "loop"), join(root, "loop"));
    await expect(firstLinkOutside([join(root, "loop")], root)).rejects.toMatchObject({ code: "ELOOP" });
  });
});
