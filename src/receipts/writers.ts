/**
 * Whose receipts these are. A receipt is only as honest as the process that wrote it, and the
 * two writers are not alike: pi-quests in a Pi session runs in the Pi the learner started,
 * while `pi-quests check` runs with whatever environment its caller gave it (the agent's shell
 * can start it with a preload that patches the run, and it then seals what the patch says). So
 * each writer keeps its receipts in a folder of its own (`receipts/pi/`, `receipts/cli/` in the
 * workspace's folder of the data dir) and its stat cache in a file of its own, sealed under a
 * scope that names the writer (src/core/record-sealers.ts): a receipt the CLI wrote does not
 * verify as a Pi session's in whatever folder it is put, and a copy says whose it is.
 * Receipts from before writers were recorded (`receipts/*.json`) are read by neither.
 */
import { readdir } from "node:fs/promises";
import { join } from "node:path";
import { RECORD_WRITERS, type RecordWriter, recordSealer, verifyingOnly } from "../core/record-sealers.ts";
import { openSealer } from "../core/seal.ts";
import { openReceiptStore, type ReceiptStore, type ReceiptStoreOptions } from "./store.ts";

/** Each writer as the learner reads it (`pi-quests receipts`, an altered copy's reason). */
export const WRITER_NAMES: Readonly<Record<RecordWriter, string>> = {
  pi: "pi-quests in a Pi session",
  cli: "pi-quests check",
};

/** The folder of `writer`'s receipts, in the workspace's folder of the data dir (workspaceHome). */
export function receiptsFolder(workspaceHome: string, writer: RecordWriter): string {
  return join(workspaceHome, "receipts", writer);
}

/** The file of `writer`'s stat cache (src/receipts/stat-cache.ts) in the workspace's folder. */
export function statCacheFile(workspaceHome: string, writer: RecordWriter): string {
  return join(workspaceHome, `stat-cache.${writer}`);
}

/** Why a receipt `other` sealed is refused in `writer`'s store. */
function refusal(writer: RecordWriter, other: RecordWriter): string {
  return writer === "pi"
    ? `it was written by ${WRITER_NAMES[other]}, whose receipts a Pi session never reuses (a receipt is only as honest as the process that wrote it)`
    : `it was written by ${WRITER_NAMES[other]}; ${WRITER_NAMES[writer]} keeps receipts of its own`;
}

export type WriterStoreOptions = Omit<ReceiptStoreOptions, "sealer" | "foreign"> & {
  dataDir: string;
  /** The workspace's folder in the data dir (src/core/workspace-key.ts). */
  workspaceHome: string;
  /** The workspace's real path: part of every seal's scope. */
  workspace: string;
  writer: RecordWriter;
  /** Opened to read another writer's receipts: its seals verify, and writing one throws. */
  readOnly?: boolean;
};

/** `writer`'s receipt store of the workspace; another writer's receipt found in it is altered, and named. */
export async function openWriterStore(options: WriterStoreOptions): Promise<ReceiptStore> {
  const { dataDir, workspaceHome, workspace, writer, readOnly, ...rest } = options;
  const key = openSealer(dataDir);
  const own = recordSealer(key, `receipts.${writer}`, workspace);
  return openReceiptStore(receiptsFolder(workspaceHome, writer), {
    ...rest,
    sealer: readOnly ? verifyingOnly(own, `${WRITER_NAMES[writer]}'s receipts`) : own,
    foreign: RECORD_WRITERS.filter((other) => other !== writer).map((other) => ({
      sealer: recordSealer(key, `receipts.${other}`, workspace),
      altered: refusal(writer, other),
    })),
  });
}

/** How many receipts of the workspace were written before writers were recorded: never read. */
export async function legacyReceiptCount(workspaceHome: string): Promise<number> {
  const names = await readdir(join(workspaceHome, "receipts")).catch(() => [] as string[]);
  return names.filter((name) => name.endsWith(".json")).length;
}
