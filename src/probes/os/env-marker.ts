/**
 * Processes found by a variable in their environment: the last resort where PID namespaces are
 * not available. Every process a run starts inherits a marker (`NAME=unique value`), also one that
 * left its process group (`setsid`, `nohup … &`), so a sweep of /proc finds them all but one that
 * cleared its environment (`env -i`) or set the marker to something else: those escape.
 *
 * Linux only (/proc/<pid>/environ); a process of another user cannot be read, and is not ours.
 * Elsewhere nothing is found.
 */
import { readdirSync, readFileSync } from "node:fs";
import { setTimeout as sleep } from "node:timers/promises";
import { processAlive } from "./process-group.ts";

/** What a marker's value must be: exactly a string, or what a test accepts (a folder's prefix). */
export type MarkerValue = string | ((value: string) => boolean);

/** The live processes (this one excepted) whose environment holds `name` with a value `value` accepts. */
export function processesWithMarker(name: string, value: MarkerValue): number[] {
  if (process.platform !== "linux") return [];
  const accepts = typeof value === "string" ? (found: string) => found === value : value;
  const prefix = `${name}=`;
  let entries: string[];
  try {
    entries = readdirSync("/proc");
  } catch {
    return [];
  }
  const found: number[] = [];
  for (const entry of entries) {
    if (!/^\d+$/.test(entry)) continue;
    const pid = Number(entry);
    if (pid === process.pid) continue;
    let environ: string;
    try {
      environ = readFileSync(`/proc/${entry}/environ`, "utf8");
    } catch {
      continue; // Gone meanwhile, or not ours to read.
    }
    // The environment is NUL-separated; the marker is a whole entry.
    const marked = environ
      .split("\0")
      .some((variable) => variable.startsWith(prefix) && accepts(variable.slice(prefix.length)));
    if (marked && processAlive(pid)) found.push(pid);
  }
  return found;
}

/**
 * Kills every process with the marker, again and again until none is left (a process can start
 * another while it is being killed) or `waitMs` has passed; resolves to the ones still there.
 */
export async function killMarked(name: string, value: MarkerValue, waitMs: number): Promise<number[]> {
  const deadline = Date.now() + waitMs;
  for (;;) {
    const left = processesWithMarker(name, value);
    if (left.length === 0 || Date.now() >= deadline) return left;
    for (const pid of left) {
      try {
        process.kill(pid, "SIGKILL");
      } catch {
        // Gone meanwhile.
      }
    }
    await sleep(10);
  }
}
