/**
 * The sealers of one workspace's records. Each kind of record is sealed under its own scope
 * (the kind and the workspace's real path), so a sealed line or file copied from another kind
 * of record, or from another workspace's folder, does not verify here. node:crypto only: print
 * mode seals the events it records.
 */
import { openSealer, type Sealer } from "./seal.ts";

export type RecordKind = "receipts" | "events" | "progress" | "stat-cache";

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

/** The sealer of `kind` records of the workspace at `workspace` (its real path). */
export function recordSealer(sealer: Sealer, kind: RecordKind, workspace: string): Sealer {
  return scopedSealer(sealer, `pi-quests.${kind} ${workspace}`);
}

/** The data dir's sealer, scoped to one kind of record of one workspace. */
export function openRecordSealer(dataDir: string, kind: RecordKind, workspace: string): Sealer {
  return recordSealer(openSealer(dataDir), kind, workspace);
}
