/**
 * Red team, in the real pi: the agent's bash sends Pi SIGUSR1 (`kill -USR1 $PPID`, or what
 * `node inspect -p PID` does), which makes Node open its inspector, a debugger through which any
 * process of the user runs code inside Pi, where the data dir and the seal key are in sight: the
 * bash sandbox (docs/security.md, 13) does not stop a signal between processes of one uid. With
 * pi-quests loaded no inspector opens (src/core/debugger-signal.ts); without it, one does.
 * The inspector's port is 0 (any free one): no test takes 9229.
 */
import { setTimeout } from "node:timers/promises";
import { afterEach, describe, expect, it } from "vitest";
import { closeAllPis, startPiRpc } from "../support/pi-rpc.ts";
import { makeWorkspace, removeWorkspaces } from "../support/workspace.ts";

afterEach(async () => {
  await closeAllPis();
  removeWorkspaces();
});

/** Pi (with or without pi-quests) sent SIGUSR1 once it answers: what its stderr then says. */
async function afterSignal(withExtension: boolean): Promise<string> {
  const pi = startPiRpc({
    workspace: makeWorkspace(),
    withExtension,
    pack: makeWorkspace({}),
    env: { NODE_OPTIONS: "--inspect-port=0" },
  });
  await pi.request({ type: "get_state" });
  process.kill(pi.pid ?? 0, "SIGUSR1");
  await setTimeout(1500);
  return pi.stderr();
}

describe.skipIf(process.platform === "win32")("a signal that would open a debugger in Pi", () => {
  it("opens Node's inspector in a Pi without pi-quests (the attack is real)", async () => {
    expect(await afterSignal(false)).toContain("Debugger listening on ws://127.0.0.1:");
  }, 60_000);

  it("opens nothing in a Pi with pi-quests", async () => {
    expect(await afterSignal(true)).not.toContain("Debugger listening");
  }, 60_000);
});
