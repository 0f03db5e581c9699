/**
 * Starting a process as the leader of its own process group, so that it and everything it starts
 * (unless a process leaves the group, which only a PID namespace catches: pid-namespace.ts) can
 * be signalled as one. These are execa options, spread into the caller's own `execa(...)` call,
 * so each caller keeps execa's exact result type.
 */
import type { ChildProcess } from "node:child_process";
import { killAtExit } from "./process-group.ts";

/**
 * The child leads its own group; every kill execa sends (its timeout, its cancel signal) is a
 * SIGKILL to the whole group. Unlike `detached: true`, it keeps execa's kill-on-exit, so quitting
 * Pi also ends the group.
 */
export const GROUP_LEADER = {
  killDescendants: true,
  killSignal: "SIGKILL",
  forceKillAfterDelay: false,
} as const;

/**
 * The child is detached, leading its own group, which is the caller's to stop (terminateGroup,
 * then forgetAtExit). execa's cleanup does not cover detached children: pass the child to
 * `killGroupAtExit` so the group is killed if this process exits first.
 */
export const DETACHED_GROUP_LEADER = { detached: true, cleanup: false } as const;

/** Once the detached child has spawned, its group is killed when this process exits. */
export function killGroupAtExit(child: ChildProcess): void {
  child.once("spawn", () => {
    if (child.pid !== undefined) killAtExit(child.pid);
  });
}
