/**
 * Process groups: how a check makes sure nothing it started outlives it. A check script and a
 * stdio MCP server each lead their own group (group-leader.ts); when they are done the whole
 * group is signalled, and the check waits until no live member is left.
 */
import { readdirSync, readFileSync } from "node:fs";
import { setTimeout as sleep } from "node:timers/promises";

/** Signals every process of the group; a group that is already gone is fine. */
export function signalGroup(pgid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pgid, signal);
  } catch {
    // ESRCH: nothing left to signal.
  }
}

/** State letter and process group from /proc/<pid>/stat (Linux); undefined once it is gone. */
export function processState(pid: number): { state: string; pgrp: number } | undefined {
  let stat: string;
  try {
    stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  } catch {
    return undefined;
  }
  // "pid (comm) state ppid pgrp ...": comm may hold spaces and parentheses, so split after the last ")".
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return { state: fields[0] ?? "", pgrp: Number(fields[2]) };
}

/**
 * Whether a process still runs. A killed process stays a zombie until its parent reaps it, and
 * orphans go to PID 1, which in some containers never reaps: a zombie runs nothing, so it is gone.
 */
export function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
  if (process.platform !== "linux") return true;
  const state = processState(pid)?.state;
  return state !== undefined && state !== "Z" && state !== "X";
}

/** Whether any member of the group still runs (zombies do not count, as above). */
export function processGroupAlive(pgid: number): boolean {
  try {
    process.kill(-pgid, 0);
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
  if (process.platform !== "linux") return true;
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    const state = processState(Number(entry));
    if (state && state.pgrp === pgid && state.state !== "Z" && state.state !== "X") return true;
  }
  return false;
}

/** Waits, bounded, until the group has no live member; `kill` is re-sent on each look. */
export async function waitForGroupGone(
  pgid: number,
  timeoutMs: number,
  kill?: NodeJS.Signals,
): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (processGroupAlive(pgid)) {
    if (Date.now() >= deadline) return false;
    if (kill) signalGroup(pgid, kill);
    await sleep(10);
  }
  return true;
}

/** Kills the group and waits, bounded, until no member is left; false if one still runs then. */
export async function killGroup(pgid: number, waitMs: number): Promise<boolean> {
  signalGroup(pgid, "SIGKILL");
  return waitForGroupGone(pgid, waitMs, "SIGKILL");
}

/**
 * Asks the group to end (SIGTERM), and kills it when a member is left after `graceMs`; then waits
 * at most `killWaitMs` for the last one.
 */
export async function terminateGroup(pgid: number, graceMs: number, killWaitMs: number): Promise<void> {
  signalGroup(pgid, "SIGTERM");
  if (!(await waitForGroupGone(pgid, graceMs))) {
    signalGroup(pgid, "SIGKILL");
    await waitForGroupGone(pgid, killWaitMs);
  }
}

/** Groups still running, killed if this process exits without stopping them. */
const groupsToKillAtExit = new Set<number>();
let exitHookInstalled = false;

/** Kills the group if this process exits before `forgetAtExit` is called for it. */
export function killAtExit(pgid: number): void {
  groupsToKillAtExit.add(pgid);
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  process.once("exit", () => {
    for (const group of groupsToKillAtExit) signalGroup(group, "SIGKILL");
  });
}

/** The group was stopped: this process's exit no longer needs to kill it. */
export function forgetAtExit(pgid: number): void {
  groupsToKillAtExit.delete(pgid);
}
