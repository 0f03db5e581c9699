/**
 * A look (src/receipts/fingerprint/look.ts): the paths of a workspace with their lstat, what it
 * leaves out, and how the next look reuses a folder's listing only while the folder is unchanged.
 */
import { mkdirSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import {
  kindOf,
  type Look,
  type LookLimits,
  statAt,
  takeLook,
} from "../../../src/receipts/fingerprint/look.ts";
import { createLstatPool, type LstatPool } from "../../../src/receipts/fingerprint/lstat-pool.ts";
import { pastRacyWindow } from "../../support/stat-record.ts";
import { makeWorkspace, removeWorkspaces } from "../../support/workspace.ts";

const pools: LstatPool[] = [];
afterEach(async () => {
  await Promise.all(pools.splice(0).map((pool) => pool.close()));
  removeWorkspaces();
});

async function look(workspace: string, previous?: Look, limits?: LookLimits): Promise<Look> {
  const pool = createLstatPool();
  pools.push(pool);
  const outcome = await takeLook(workspace, pool, previous, limits);
  if (!outcome.ok) throw new Error(outcome.reason);
  return outcome.look;
}

describe("a look", () => {
  it("has every file and link below the workspace, relative and /-separated", async () => {
    const workspace = makeWorkspace({ "a.txt": "a\n", "src/lib/b.ts": "b\n", "src/c.ts": "c\n" });
    symlinkSync("src", join(workspace, "to-src"));
    const taken = await look(workspace);
    expect([...taken.paths].sort()).toEqual(["a.txt", "src/c.ts", "src/lib/b.ts", "to-src"]);
    const link = statAt(taken, taken.paths.indexOf("to-src"));
    expect(link && kindOf(link)).toBe("link");
    // A link is never followed: its content is its target.
    expect(taken.targets).toEqual(new Map([["to-src", "src"]]));
    const file = taken.paths.indexOf("a.txt");
    expect(statAt(taken, file)).toMatchObject({ size: 2 });
  });

  it("leaves out the fingerprint's generated folders wherever they are, and nothing else", async () => {
    const workspace = makeWorkspace({
      ".git/HEAD": "ref: refs/heads/main\n",
      "node_modules/x/index.js": "x\n",
      "pkg/node_modules/y.js": "y\n",
      "pkg/dist/out.js": "o\n",
      ".venv/bin/python": "p\n",
      "app/__pycache__/m.pyc": "c\n",
      "target/debug/app": "t\n",
      "build/index.html": "h\n",
      ".env": "SECRET=1\n",
      "pkg/index.js": "i\n",
    });
    expect([...(await look(workspace)).paths].sort()).toEqual([".env", "pkg/index.js"]);
  });

  it("gives up past its entry limit, saying so", async () => {
    const workspace = makeWorkspace({ "a.txt": "a\n", "b.txt": "b\n", "c.txt": "c\n" });
    const pool = createLstatPool();
    pools.push(pool);
    expect(await takeLook(workspace, pool, undefined, { entries: 3, milliseconds: 2_000 })).toEqual({
      ok: false,
      reason: "over the entries limit (3)",
    });
    expect((await takeLook(workspace, pool, undefined, { entries: 4, milliseconds: 2_000 })).ok).toBe(true);
  });

  it("of a folder that is not there is refused", async () => {
    const pool = createLstatPool();
    pools.push(pool);
    const outcome = await takeLook(join(makeWorkspace(), "missing"), pool);
    expect(outcome).toMatchObject({ ok: false, reason: expect.stringContaining("ENOENT") });
  });
});

describe("the next look", () => {
  it("reuses the folders' listings, and so the list of paths, while no folder changed", async () => {
    const workspace = makeWorkspace({ "a.txt": "a\n", "src/b.ts": "b\n" });
    await pastRacyWindow();
    const first = await look(workspace);
    writeFileSync(join(workspace, "src/b.ts"), "changed in place\n");
    const second = await look(workspace, first);
    // A file's content changed, no name did: the same list, with the file's new lstat.
    expect(second.paths).toBe(first.paths);
    const at = second.paths.indexOf("src/b.ts");
    expect(statAt(second, at)?.size).toBe("changed in place\n".length);
    mkdirSync(join(workspace, "src/new"));
    writeFileSync(join(workspace, "src/new/c.ts"), "c\n");
    const third = await look(workspace, second);
    expect(third.paths).not.toBe(second.paths);
    expect([...third.paths].sort()).toEqual(["a.txt", "src/b.ts", "src/new/c.ts"]);
  });

  it("lists a folder again when it had changed within the timestamp granularity of its listing", async () => {
    const workspace = makeWorkspace({ "a.txt": "a\n" });
    const racy = await look(workspace);
    const again = await look(workspace, racy);
    expect(again.listings.get("")).not.toBe(racy.listings.get(""));
    // Listed again, the same names: still the same list of paths, compared by position.
    expect(again.paths).toBe(racy.paths);
    await pastRacyWindow();
    const settled = await look(workspace, again);
    expect((await look(workspace, settled)).listings.get("")).toBe(settled.listings.get(""));
  });

  it("keeps the list of paths when a folder changed but its names did not (a file made and removed)", async () => {
    const workspace = makeWorkspace({ "a.txt": "a\n" });
    await pastRacyWindow();
    const first = await look(workspace);
    writeFileSync(join(workspace, "tmp"), "x\n");
    rmSync(join(workspace, "tmp"));
    const second = await look(workspace, first);
    expect(second.listings.get("")).not.toBe(first.listings.get(""));
    expect(second.paths).toBe(first.paths);
  });
});
