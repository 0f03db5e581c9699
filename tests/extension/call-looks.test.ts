/**
 * The looks around each call (src/extension/call-looks.ts): taken only while the active quest
 * reads changedPaths, and then each call's own, from its start to its end, by its id.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { type CallLooks, createCallLooks } from "../../src/extension/call-looks.ts";
import { makeWorkspace, removeWorkspaces } from "../support/workspace.ts";

const made: CallLooks[] = [];
afterEach(async () => {
  await Promise.all(made.splice(0).map((looks) => looks.clear()));
  removeWorkspaces();
});

function callLooks(reads: () => boolean | Promise<boolean>): CallLooks {
  const looks = createCallLooks(reads);
  made.push(looks);
  return looks;
}

describe("the looks around calls", () => {
  it("take none while the active quest does not read changedPaths, and answer at once", () => {
    let asked = 0;
    const looks = callLooks(() => {
      asked++;
      return false;
    });
    expect(looks.before("call-1", makeWorkspace())).toBeUndefined();
    expect(looks.after("call-1")).toBeUndefined();
    expect(asked).toBe(1);
  });

  it("give each call what changed from its start to its end, once", async () => {
    const workspace = makeWorkspace();
    const looks = callLooks(() => true);
    await looks.before("call-1", workspace);
    writeFileSync(join(workspace, "one.txt"), "1\n");
    await looks.before("call-2", workspace);
    writeFileSync(join(workspace, "two.txt"), "2\n");
    expect(await looks.after("call-2")).toEqual({ paths: ["two.txt"], truncated: false });
    expect(await looks.after("call-1")).toEqual({ paths: ["one.txt", "two.txt"], truncated: false });
    expect(looks.after("call-1")).toBeUndefined();
  });

  it("give nothing for a call whose start they did not see (the quest began to read it meanwhile)", async () => {
    let reads = false;
    const looks = callLooks(() => reads);
    const workspace = makeWorkspace();
    expect(looks.before("call-1", workspace)).toBeUndefined();
    reads = true;
    expect(looks.after("call-1")).toBeUndefined();
  });

  it("are loaded ahead of a run only for a quest that reads changedPaths; calls are answered the same", async () => {
    let reads = false;
    let asked = 0;
    const looks = callLooks(() => {
      asked++;
      return reads;
    });
    const workspace = makeWorkspace();
    looks.warm(workspace);
    expect(asked).toBe(1);
    reads = true;
    looks.warm(workspace);
    await looks.before("call-1", workspace);
    writeFileSync(join(workspace, "one.txt"), "1\n");
    expect(await looks.after("call-1")).toEqual({ paths: ["one.txt"], truncated: false });
  });

  it("wait for a quest session still opening (Pi's start, a /reload) to know whether to look", async () => {
    let open: (reads: boolean) => void = () => {};
    const opening = new Promise<boolean>((resolve) => {
      open = resolve;
    });
    const looks = callLooks(() => opening);
    const workspace = makeWorkspace();
    const before = looks.before("call-1", workspace);
    expect(before).toBeInstanceOf(Promise);
    open(true);
    await before;
    writeFileSync(join(workspace, "one.txt"), "1\n");
    expect(await looks.after("call-1")).toEqual({ paths: ["one.txt"], truncated: false });

    const notReading = callLooks(async () => false);
    await notReading.before("call-2", workspace);
    writeFileSync(join(workspace, "two.txt"), "2\n");
    expect(await notReading.after("call-2")).toBeUndefined();
  });

  it("forget the open calls when the session ends", async () => {
    const looks = callLooks(() => true);
    await looks.before("call-1", makeWorkspace());
    await looks.clear();
    expect(looks.after("call-1")).toBeUndefined();
  });
});
