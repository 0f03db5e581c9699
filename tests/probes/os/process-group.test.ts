import { setTimeout as sleep } from "node:timers/promises";
import { execa, type Options } from "execa";
import { describe, expect, it } from "vitest";
import { DETACHED_GROUP_LEADER, GROUP_LEADER, killGroupAtExit } from "../../../src/probes/os/group-leader.ts";
import {
  forgetAtExit,
  killGroup,
  processAlive,
  processGroupAlive,
  processState,
  terminateGroup,
} from "../../../src/probes/os/process-group.ts";

/** A shell that starts a sleeping child in its own group, prints both pids, then waits. */
const PARENT_AND_CHILD = 'sleep 30 & echo "$$ $!"; wait';

/** Started the way the script runner starts a check. */
const startGroupLeader = <O extends Options>(file: string, args: string[], options: O) =>
  execa(file, args, { ...GROUP_LEADER, ...options });

/** Started the way an MCP stdio server is: detached, its group killed if the tests exit first. */
const startDetachedGroupLeader = <O extends Options>(file: string, args: string[], options: O) => {
  const child = execa(file, args, { ...DETACHED_GROUP_LEADER, ...options });
  killGroupAtExit(child.nodeChildProcess);
  return child;
};

async function pidsOf(child: { stdout: NodeJS.ReadableStream | null }): Promise<number[]> {
  for await (const chunk of child.stdout ?? []) return String(chunk).trim().split(" ").map(Number);
  return [];
}

describe("GROUP_LEADER", () => {
  it("starts the process as the leader of its own group", async () => {
    const child = startGroupLeader("bash", ["-c", PARENT_AND_CHILD], { buffer: false, reject: false });
    const [shell = 0, sleeper = 0] = await pidsOf(child);
    expect(shell).toBe(child.pid);
    expect(processState(sleeper)?.pgrp).toBe(shell);
    expect(await killGroup(shell, 3000)).toBe(true);
    await child;
    expect(processAlive(sleeper)).toBe(false);
  });

  it("sends execa's kill to the whole group, as SIGKILL", async () => {
    const child = startGroupLeader("bash", ["-c", PARENT_AND_CHILD], { buffer: false, reject: false });
    const [shell = 0, sleeper = 0] = await pidsOf(child);
    child.kill();
    const result = await child;
    expect(result.signal).toBe("SIGKILL");
    for (let tries = 0; tries < 100 && processAlive(sleeper); tries++) await sleep(10);
    expect(processAlive(sleeper)).toBe(false);
    expect(processGroupAlive(shell)).toBe(false);
  });
});

describe("terminateGroup", () => {
  it("ends a detached group with SIGTERM when it obeys", async () => {
    const child = startDetachedGroupLeader("bash", ["-c", PARENT_AND_CHILD], {
      buffer: false,
      reject: false,
    });
    const [shell = 0, sleeper = 0] = await pidsOf(child);
    await terminateGroup(shell, 2000, 2000);
    forgetAtExit(shell);
    expect(processGroupAlive(shell)).toBe(false);
    expect(processAlive(sleeper)).toBe(false);
    expect((await child).signal).toBe("SIGTERM");
  });

  it("kills a group that ignores SIGTERM once the grace period is over", async () => {
    const ignoring = `trap '' TERM; ${PARENT_AND_CHILD}`;
    const child = startDetachedGroupLeader("bash", ["-c", ignoring], { buffer: false, reject: false });
    const [shell = 0] = await pidsOf(child);
    const started = Date.now();
    await terminateGroup(shell, 200, 2000);
    forgetAtExit(shell);
    expect(Date.now() - started).toBeGreaterThanOrEqual(200);
    expect(processGroupAlive(shell)).toBe(false);
    expect((await child).signal).toBe("SIGKILL");
  });
});
