/**
 * SIGUSR1 opens no debugger in a process that called refuseDebuggerSignal
 * (src/core/debugger-signal.ts); in one that did not, it does (the attack is real). Real
 * processes; the inspector's port is 0 (any free one), so no test takes 9229.
 */

import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { execa } from "execa";
import { describe, expect, it } from "vitest";

const MODULE = pathToFileURL(join(import.meta.dirname, "../../src/core/debugger-signal.ts")).href;

/** A Node process, told to refuse or not, sent SIGUSR1 once it is ready: the inspector's URL it then reports, or "none". */
async function inspectorAfterSignal(refuse: boolean): Promise<string> {
  const program = [
    `const { refuseDebuggerSignal } = await import(${JSON.stringify(MODULE)});`,
    refuse ? "refuseDebuggerSignal();" : "",
    'const { url } = await import("node:inspector");',
    'console.log("ready");',
    'setTimeout(() => console.log(url() ?? "none"), 1500);',
  ].join("\n");
  const child = execa(process.execPath, ["--inspect-port=0", "--input-type=module", "-e", program], {
    reject: false,
    env: { ...process.env, NODE_OPTIONS: "" },
  });
  await new Promise<void>((resolve) =>
    child.stdout?.on("data", (chunk: Buffer) => {
      if (chunk.toString().includes("ready")) resolve();
    }),
  );
  // What `node inspect -p PID` does first.
  process.kill(child.pid ?? 0, "SIGUSR1");
  const done = await child;
  return done.stdout.split("\n").at(-1) ?? "";
}

describe.skipIf(process.platform === "win32")("the debugger signal", () => {
  it("opens the inspector in a plain Node process: any process of the user could then run code in it", async () => {
    expect(await inspectorAfterSignal(false)).toMatch(/^ws:\/\/127\.0\.0\.1:\d+\//);
  }, 20_000);

  it("opens nothing in a process that refused it", async () => {
    expect(await inspectorAfterSignal(true)).toBe("none");
  }, 20_000);
});
