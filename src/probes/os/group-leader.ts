/**
 * Starting a process as the leader of its own process group, so that it and everything it starts
 * (unless a process leaves the group, which only a PID namespace catches: pid-namespace.ts) can
 * be signalled as one.
 */
import { execa, type Options } from "execa";
import { killAtExit } from "./process-group.ts";

/**
 * Starts `file` leading its own group; every kill execa sends (its timeout, its cancel signal)
 * is a SIGKILL to the whole group. Unlike `detached: true`, it keeps execa's kill-on-exit, so
 * quitting Pi also ends the group.
 */
export function startGroupLeader<O extends Options>(file: string, args: readonly string[], options: O) {
  return execa(file, args, {
    ...options,
    killDescendants: true,
    killSignal: "SIGKILL",
    forceKillAfterDelay: false,
  });
}

/**
 * Starts `file` detached, leading its own group, which is the caller's to stop (terminateGroup,
 * then forgetAtExit). If this process exits first, the group is killed then.
 */
export function startDetachedGroupLeader<O extends Options>(
  file: string,
  args: readonly string[],
  options: O,
) {
  // execa's cleanup does not cover detached children; killAtExit does.
  const child = execa(file, args, { ...options, detached: true, cleanup: false });
  child.nodeChildProcess.once("spawn", () => {
    if (child.pid !== undefined) killAtExit(child.pid);
  });
  return child;
}
