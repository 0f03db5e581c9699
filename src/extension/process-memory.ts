/**
 * What pi-quests remembers for the whole Pi process, across its sessions: `/reload`, `/new`,
 * `/resume` and `/fork` load the extension's modules again (Pi clears its module cache on a
 * reload), so a module's own variables start over; this lives on globalThis, like the load guard
 * (load-guard.ts). It is how "this process's memory wins" (docs/security.md, 1) reaches past a
 * `/reload`, the moment an extension the agent wrote is loaded:
 *
 * - the code files of Pi's extension folders that Pi's tools created or changed in this process
 *   (extension-code-looks.ts), which agent-code.ts names to the learner;
 * - each progress file as this process last wrote it, and each event log as this process last
 *   left it (record-memory.ts compares the files with them when a session opens);
 * - what the learner was told once for the whole process: that this Pi is untested, or that
 *   something of it could not be read (src/core/untested-pi.ts), or why pi-quests did not start.
 *
 * Code loaded into Pi can read and change this too: it guards against files changed on disk,
 * not against code in the same process (docs/security.md, 14).
 */
import type { VerifierEvent } from "../events/schema.ts";

/** An event log as this process last left it: its bytes' sha256, and the events it holds. */
export type RememberedLog = { sha256: string; events: VerifierEvent[] };

export type ProcessMemory = {
  /** Code files (real paths) below Pi's extension folders that Pi's tools created or changed. */
  codeWrittenByTools: Set<string>;
  /** Each progress file's text, as this process last wrote (or read and trusted) it. */
  progress: Map<string, string>;
  /** Each event log, as this process last left it. */
  eventLogs: Map<string, RememberedLog>;
  /** The notices said once for the whole process, by key. */
  told: Set<string>;
};

const MEMORY = Symbol.for("pi-quests.process-memory");
type WithMemory = { [MEMORY]?: ProcessMemory };

/** The process's memory, made on first use. */
export function processMemory(): ProcessMemory {
  const holder = globalThis as WithMemory;
  holder[MEMORY] ??= freshMemory();
  // A memory made by an older copy of this module (a /reload into an update) lacks newer fields.
  holder[MEMORY].told ??= new Set();
  return holder[MEMORY];
}

/** A memory of its own (a test's, or a session opened outside Pi): nothing remembered yet. */
export function freshMemory(): ProcessMemory {
  return { codeWrittenByTools: new Set(), progress: new Map(), eventLogs: new Map(), told: new Set() };
}

/**
 * Whether `text` is said now for the first time in this process: true once, then false. What
 * pi-quests says once (a Pi it does not run in, a Pi without a model) is said at the first
 * session that needs it, not again at `/new` or `/reload`.
 */
export function firstTimeTold(text: string): boolean {
  const told = processMemory().told;
  if (told.has(text)) return false;
  told.add(text);
  return true;
}
