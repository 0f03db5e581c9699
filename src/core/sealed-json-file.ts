/**
 * A small sealed JSON record in a file of its own (which pack is active, the packs the learner
 * agreed to run, progress handed on to another folder): written atomically, and read back only
 * when pi-quests sealed it (src/core/seal.ts). A file it did not write counts as absent.
 */
import { mkdir, readFile } from "node:fs/promises";
import { dirname } from "node:path";
import { writeAtomically } from "./atomic-file.ts";
import { type Sealer, sealRecord, verifyRecord } from "./seal.ts";

/** Seals `record` and writes it to `file` (its folder made when absent). */
export async function writeSealedJson(file: string, sealer: Sealer, record: object): Promise<void> {
  await mkdir(dirname(file), { recursive: true });
  await writeAtomically(file, `${JSON.stringify(sealRecord(sealer, record), null, 2)}\n`);
}

/** The record in `file` without its seal; undefined when it is missing, unreadable or not sealed by pi-quests. */
export async function readSealedJson(
  file: string,
  sealer: Sealer,
): Promise<Record<string, unknown> | undefined> {
  try {
    const verified = verifyRecord<Record<string, unknown>>(sealer, JSON.parse(await readFile(file, "utf8")));
    return verified.ok ? verified.record : undefined;
  } catch {
    return undefined;
  }
}
