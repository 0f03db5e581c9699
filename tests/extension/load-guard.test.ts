/** One pi-quests per Pi process: a second copy does nothing but say so; the same copy again is no second copy. */
import { rmSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import type { ExtensionAPI, ExtensionContext } from "@earendil-works/pi-coding-agent";
import { afterEach, describe, expect, it } from "vitest";
import piQuests from "../../src/extension/index.ts";
import { claimProcess } from "../../src/extension/load-guard.ts";
import { makeWorkspace, removeWorkspaces } from "../support/workspace.ts";

const HOLDER = Symbol.for("pi-quests.extension.loaded-from");
const flags = globalThis as { [HOLDER]?: string };

afterEach(() => {
  delete flags[HOLDER];
  removeWorkspaces();
});

/** A checkout with both entries on disk: the built one and the sources. */
function checkout() {
  const root = makeWorkspace({ "dist/extension/index.js": "", "src/extension/index.ts": "" });
  return {
    root,
    dist: pathToFileURL(join(root, "dist/extension/index.js")).href,
    src: pathToFileURL(join(root, "src/extension/index.ts")).href,
  };
}

describe("the load guard", () => {
  it("lets the first copy hold the process and refuses a second, naming both and what to do", () => {
    const { root, dist, src } = checkout();
    expect(claimProcess(dist)).toEqual({ ok: true });
    expect(claimProcess(src)).toEqual({
      ok: false,
      message: `pi-quests is loaded twice (${join(root, "dist/extension/index.js")} and ${join(root, "src/extension/index.ts")}); the second copy does nothing. In a checkout with a build in it, remove dist/; otherwise remove one of the two from Pi's packages.`,
    });
  });

  it("lets the same copy load again (/reload), and a copy whose holder's file is gone (dist/ removed)", () => {
    const { root, dist, src } = checkout();
    expect(claimProcess(dist)).toEqual({ ok: true });
    expect(claimProcess(dist)).toEqual({ ok: true });
    rmSync(join(root, "dist"), { recursive: true });
    expect(claimProcess(src)).toEqual({ ok: true });
    expect(claimProcess(src)).toEqual({ ok: true });
  });

  it("keeps the entry of a second copy from registering anything but a notice at session start", async () => {
    const { dist } = checkout();
    claimProcess(dist);
    const handlers: string[] = [];
    const registered: string[] = [];
    const notices: string[] = [];
    let start: ((event: unknown, ctx: ExtensionContext) => void) | undefined;
    const pi = {
      on(event: string, handler: (event: unknown, ctx: ExtensionContext) => void) {
        handlers.push(event);
        start = handler;
      },
      registerCommand: (name: string) => registered.push(name),
      registerEntryRenderer: (name: string) => registered.push(name),
    } as unknown as ExtensionAPI;
    await piQuests(pi);
    expect(handlers).toEqual(["session_start"]);
    expect(registered).toEqual([]);
    start?.({}, { hasUI: true, ui: { notify: (message: string) => notices.push(message) } } as never);
    expect(notices).toEqual([
      expect.stringMatching(/^pi-quests is loaded twice \(.*\); the second copy does nothing/),
    ]);
  });
});
