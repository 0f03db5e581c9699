/**
 * The sealers of one workspace's records. Each kind of record of each workspace is sealed under
 * its own scope (the kind and the workspace's real path), so a sealed line or file copied from
 * another kind of record, or from another workspace's folder, does not verify here. A record
 * that answers a check without running it (a receipt, the stat cache) is sealed under its
 * writer's scope too: pi-quests in a Pi session and `pi-quests check` never take each other's.
 * node:crypto only: print mode seals the events it records.
 */
import { openSealer, type Sealer } from "./seal.ts";

/**
 * Who wrote a record that can answer a check without running it. `pi`: pi-quests inside a Pi
 * session, in the Pi the learner started; `cli`: `pi-quests check`, a program anyone can start
 * with any environment (the agent's shell with a preload, say). docs/security.md, section 15.
 */
export type RecordWriter = "pi" | "cli";
export const RECORD_WRITERS: readonly RecordWriter[] = ["pi", "cli"];

export type RecordKind =
  | "events"
  | "progress"
  | "active-pack"
  | "pack-consent"
  | "carry-over"
  | `receipts.${RecordWriter}`
  | `stat-cache.${RecordWriter}`;

/** A sealer whose seals cover `scope` too: the same key, but a seal made for one scope fails in another. */
export function scopedSealer(sealer: Sealer, scope: string): Sealer {
  const prefix = `${JSON.stringify(scope)}\n`;
  return {
    keyFile: sealer.keyFile,
    fresh: sealer.fresh,
    sealText: (text) => sealer.sealText(prefix + text),
    verifyText: (text, seal) => sealer.verifyText(prefix + text, seal),
  };
}

/**
 * The same sealer, able only to verify: it throws on a seal. What a process reads of another
 * writer's records (`pi-quests receipts` listing a Pi session's) it must never be able to write.
 */
export function verifyingOnly(sealer: Sealer, whose: string): Sealer {
  return {
    keyFile: sealer.keyFile,
    fresh: sealer.fresh,
    sealText: () => {
      throw new Error(`this process only reads ${whose}; it never seals one`);
    },
    verifyText: sealer.verifyText,
  };
}

/** The sealer of `kind` records of the workspace at `workspace` (its real path). */
export function recordSealer(sealer: Sealer, kind: RecordKind, workspace: string): Sealer {
  return scopedSealer(sealer, `pi-quests.${kind} ${workspace}`);
}

/** The data dir's sealer, scoped to one kind of record of one workspace. */
export function openRecordSealer(dataDir: string, kind: RecordKind, workspace: string): Sealer {
  return recordSealer(openSealer(dataDir), kind, workspace);
}
