/**
 * Seals for records a test writes by hand, through the real API (src/core/seal.ts): a test that
 * plays "a record pi-quests wrote earlier" must seal it, or it is rightly ignored as altered.
 */
import { randomBytes } from "node:crypto";
import { realpathSync } from "node:fs";
import { join } from "node:path";
import { type RecordKind, recordSealer } from "../../src/core/record-sealers.ts";
import { openSealer, type Sealer, sealerFromKey, sealRecord } from "../../src/core/seal.ts";

/** A sealer with a key of its own, for stores a test opens directly. */
export function testSealer(): Sealer {
  return sealerFromKey(randomBytes(32));
}

/** The sealer pi-quests uses for `kind` records of `workspace` under `agentDir` (`{agentDir}/quests/seal.key`). */
export function agentSealer(agentDir: string, kind: RecordKind, workspace: string): Sealer {
  return recordSealer(openSealer(join(agentDir, "quests")), kind, realpathSync(workspace));
}

/** `record` as pi-quests writes it: its JSON with a seal. */
export function sealedJson(sealer: Sealer, record: object, space?: number): string {
  return JSON.stringify(sealRecord(sealer, record), null, space);
}
