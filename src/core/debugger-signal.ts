/**
 * No debugger opened into this process by a signal. Node starts its inspector (a debugger that
 * runs any code it is sent, inside the process) on 127.0.0.1 when the process receives SIGUSR1,
 * and any process of the same user may send that signal: the agent's bash, even from the bash
 * sandbox's user namespace (the kernel lets a process signal another of the same uid, whatever
 * their namespaces; the network is shared), can `kill -USR1` Pi, connect (`node inspect -p PID`
 * does both) and run code in Pi's process, which sees the data dir and holds the seal key.
 * A listener for SIGUSR1 replaces Node's default: the signal is then an event nobody acts on,
 * and no inspector starts (tests/core/debugger-signal.test.ts). A debugger asked for at start
 * (`--inspect`) is not this: src/core/process-start.ts names it.
 */
let refused = false;

export function refuseDebuggerSignal(): void {
  if (refused || process.platform === "win32") return;
  refused = true;
  // Not a ref'd handle: a process with nothing else to do still exits.
  process.on("SIGUSR1", () => {});
}
