import { readFileSync } from "node:fs";
import { mkdir, open, readdir } from "node:fs/promises";
import { hostname } from "node:os";
import { join } from "node:path";
import { writeAtomically } from "../core/atomic-file.ts";
import { ONE_PARSE } from "../core/one-parse.ts";
import { readRecordFile } from "../core/record-file.ts";
import { canonicalJson, type Sealer, sealRecord, verifyRecord } from "../core/seal.ts";
import { processAlive } from "../probes/os/process-group.ts";
import { normalizeRelativePath } from "./identity.ts";
import { RECEIPT_SCHEMA, type Receipt, ReceiptSchema } from "./schema.ts";

/** The process that wrote a receipt: enough to tell later whether it still runs. */
export type ReceiptHost = Receipt["provenance"]["host"];

export type ReceiptStore = {
  readonly dir: string;
  /** Validates the receipt and writes `<dir>/<id>.json` atomically, replacing an earlier version. */
  write(receipt: Receipt): Promise<void>;
  /**
   * Every receipt that can be trusted, oldest first. A file that is not a complete receipt (a
   * torn write, a legacy schema) is in `warnings`; one that pi-quests did not write as it is
   * (no seal, a seal that does not verify, a copy under another name, a receipt this process
   * wrote differently or that has gone) is in `altered`. Neither is ever returned as a receipt.
   */
  list(): Promise<ReceiptListing>;
  /** Marks `running` receipts whose process is gone as cancelled/interrupted; returns them. */
  recoverInterrupted(isAlive?: (host: ReceiptHost) => boolean): Promise<Receipt[]>;
  /** The attempt number the next run of this check identity gets: 1, then 2, 3... */
  nextAttempt(identity: string): Promise<number>;
};

/** A receipt file that was ignored because pi-quests did not write it as it is. */
export type AlteredReceipt = { file: string; reason: string };

export type ReceiptListing = { receipts: Receipt[]; warnings: string[]; altered: AlteredReceipt[] };

/**
 * A seal this store refuses though pi-quests made it (another writer's: src/receipts/writers.ts),
 * and what to say of a receipt that carries it, so the learner reads who wrote the copy.
 */
export type ForeignSeal = { sealer: Sealer; altered: string };

export type ReceiptStoreOptions = {
  /** Seals every receipt written and verifies every one read (see src/core/record-sealers.ts). */
  sealer: Sealer;
  /** Seals of receipts that are never this store's, each with why (another writer's receipts). */
  foreign?: readonly ForeignSeal[];
  /** Told of each altered receipt the first time a listing finds it. */
  onAltered?: (altered: AlteredReceipt) => void;
  /** The clock, for tests. */
  now?: () => Date;
  /** This process as receipts record it; by default the real pid, hostname and boot id. */
  host?: ReceiptHost;
};

export const INTERRUPTED_NOTE = "interrupted: the process died mid-run";

/** The boot id tells a restarted machine from a running one (pids start over); Linux only. */
export function readBootId(): string | null {
  if (process.platform !== "linux") return null;
  try {
    return readFileSync("/proc/sys/kernel/random/boot_id", "utf8").trim() || null;
  } catch {
    return null;
  }
}

export function currentHost(): ReceiptHost {
  return { pid: process.pid, hostname: hostname(), bootId: readBootId() };
}

/**
 * Whether the process that wrote a receipt may still run, seen from `here`. Another machine
 * cannot be asked, so it counts as alive; the same machine after a restart (another boot id)
 * runs none of its old processes; otherwise the pid decides (a zombie is dead).
 */
export function hostAlive(host: ReceiptHost, here: ReceiptHost): boolean {
  if (host.hostname !== here.hostname) return true;
  if (host.bootId !== null && here.bootId !== null && host.bootId !== here.bootId) return false;
  return processAlive(host.pid);
}

/** Oldest first: by start time, then by id so ties always fall the same way. */
export function byStart(a: Receipt, b: Receipt): number {
  const time = Date.parse(a.startedAt) - Date.parse(b.startedAt);
  if (time !== 0) return time;
  return a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
}

/** The key of `newestByIdentity`'s map: `${identity} ${cwd}`, the cwd normalized (`./x/` is `x`). */
export function supersedeKey(identity: string, cwd: string): string {
  return `${identity} ${normalizeRelativePath(cwd)}`;
}

/**
 * The supersede rule: a receipt replaces only an older one of the same check identity and cwd.
 * Receipts of other identities never hide each other, so a failed check stays visible however
 * many other commands pass later.
 */
export function newestByIdentity(receipts: readonly Receipt[]): Map<string, Receipt> {
  const newest = new Map<string, Receipt>();
  for (const receipt of receipts) {
    const key = supersedeKey(receipt.checkIdentity, receipt.cwd);
    const current = newest.get(key);
    if (!current || byStart(receipt, current) > 0) newest.set(key, receipt);
  }
  return newest;
}

/** An id becomes a file name, so it must not be able to leave the folder or look like a temp file. */
const SAFE_ID = /^[A-Za-z0-9][A-Za-z0-9._-]*$/;

/** A receipt's size at most (its evidence keeps at most 64 KiB of output); larger is not read. */
const MAX_RECEIPT_BYTES = 4 * 1024 * 1024;

/** Flushes the folder so the rename itself survives a power cut; not every system allows it. */
async function syncFolder(dir: string): Promise<void> {
  try {
    const folder = await open(dir, "r");
    try {
      await folder.sync();
    } finally {
      await folder.close();
    }
  } catch {
    // Best effort: the file itself is complete either way.
  }
}

type Parsed =
  | { ok: true; receipt: Receipt }
  | { ok: false; warning: string }
  | { ok: false; altered: string };

/** Reads one receipt file, or says why it cannot be trusted. */
function parseReceipt(name: string, text: string, sealer: Sealer, foreign: readonly ForeignSeal[]): Parsed {
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch {
    return { ok: false, warning: `${name}: not valid JSON (a torn or corrupt write?); skipped` };
  }
  const schema =
    typeof data === "object" && data !== null ? (data as { schema?: unknown }).schema : undefined;
  if (schema !== RECEIPT_SCHEMA) {
    const found = schema === undefined ? "no schema version" : `schema ${JSON.stringify(schema)}`;
    return {
      ok: false,
      warning: `${name}: ${found}, not ${RECEIPT_SCHEMA}; skipped (a legacy record cannot count as verification)`,
    };
  }
  const verified = verifyRecord<Receipt>(sealer, data);
  if (!verified.ok) {
    // Tried only once this store's own seal failed: an honest listing pays for no second HMAC.
    const other = verified.reason === "altered" && foreign.find((seal) => verifyRecord(seal.sealer, data).ok);
    if (other) return { ok: false, altered: other.altered };
    return {
      ok: false,
      altered:
        verified.reason === "unsealed"
          ? "it has no seal: pi-quests did not write it"
          : "its seal does not match its content: it was changed after pi-quests wrote it",
    };
  }
  const parsed = ReceiptSchema.safeParse(verified.record, ONE_PARSE);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const where = issue && issue.path.length > 0 ? `${issue.path.join(".")}: ` : "";
    return {
      ok: false,
      warning: `${name}: not a valid receipt (${where}${issue?.message ?? "invalid"}); skipped`,
    };
  }
  if (`${parsed.data.id}.json` !== name) {
    return {
      ok: false,
      altered: `it holds receipt ${JSON.stringify(parsed.data.id)}, not its own name: a copy`,
    };
  }
  return { ok: true, receipt: parsed.data };
}

export async function openReceiptStore(dir: string, options: ReceiptStoreOptions): Promise<ReceiptStore> {
  const now = options.now ?? (() => new Date());
  const here = options.host ?? currentHost();
  const { sealer } = options;
  // What this process wrote wins over what is on disk: a file changed, or removed, behind its
  // back is altered, whatever its seal says (a sealed older version put back is a replay).
  const written = new Map<string, Receipt>();
  const reported = new Set<string>();
  // What each file's text was found to be, checked once per text: a process lists the store
  // more than once (recovery, then each evaluation), and the same bytes verify the same way.
  const checked = new Map<string, { text: string; outcome: Parsed }>();
  const parseOnce = (name: string, text: string): Parsed => {
    const known = checked.get(name);
    if (known?.text === text)
      return known.outcome.ok ? { ok: true, receipt: structuredClone(known.outcome.receipt) } : known.outcome;
    const outcome = parseReceipt(name, text, sealer, options.foreign ?? []);
    checked.set(name, {
      text,
      outcome: outcome.ok ? { ok: true, receipt: structuredClone(outcome.receipt) } : outcome,
    });
    return outcome;
  };
  await mkdir(dir, { recursive: true });

  async function write(receipt: Receipt): Promise<void> {
    const valid = ReceiptSchema.parse(receipt);
    if (!SAFE_ID.test(valid.id) || valid.id.endsWith(".tmp")) {
      throw new Error(`receipt id ${JSON.stringify(valid.id)} cannot be a file name`);
    }
    const sealed = sealRecord(sealer, valid);
    await writeAtomically(join(dir, `${valid.id}.json`), `${JSON.stringify(sealed, null, 2)}\n`);
    await syncFolder(dir);
    written.set(valid.id, valid);
  }

  async function list(): Promise<ReceiptListing> {
    let names: string[];
    try {
      names = await readdir(dir);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
      names = [];
    }
    const receipts: Receipt[] = [];
    const warnings: string[] = [];
    const altered: AlteredReceipt[] = [];
    const alter = (file: string, reason: string) => {
      altered.push({ file, reason });
      if (reported.has(`${file} ${reason}`)) return;
      reported.add(`${file} ${reason}`);
      options.onAltered?.({ file, reason });
    };
    const seen = new Set<string>();
    // Temp files end in `.tmp`: a write in flight, or one a crash interrupted. Never read.
    const files = names.filter((entry) => entry.endsWith(".json")).sort();
    for (const name of checked.keys()) if (!files.includes(name)) checked.delete(name);
    for (const name of files) {
      const remembered = written.get(name.slice(0, -".json".length));
      const read = readRecordFile(join(dir, name), MAX_RECEIPT_BYTES);
      if (!read.ok) {
        if (remembered) continue; // gone since the listing began: counted below as removed
        warnings.push(`${name}: cannot be read (${read.reason}); skipped`);
        continue;
      }
      const text = read.bytes.toString("utf8");
      const outcome = parseOnce(name, text);
      if (remembered) {
        seen.add(remembered.id);
        receipts.push(remembered);
        if (!outcome.ok || canonicalJson(outcome.receipt) !== canonicalJson(remembered))
          alter(name, "it differs from the receipt this process wrote; this process's own is used");
        continue;
      }
      if (outcome.ok) receipts.push(outcome.receipt);
      else if ("warning" in outcome) warnings.push(outcome.warning);
      else alter(name, outcome.altered);
    }
    for (const [id, receipt] of written) {
      if (seen.has(id)) continue;
      receipts.push(receipt);
      alter(`${id}.json`, "it was removed after this process wrote it; this process's own is used");
    }
    return { receipts: receipts.sort(byStart), warnings, altered };
  }

  async function recoverInterrupted(
    isAlive: (host: ReceiptHost) => boolean = (host) => hostAlive(host, here),
  ): Promise<Receipt[]> {
    const { receipts } = await list();
    const recovered: Receipt[] = [];
    for (const receipt of receipts) {
      if (receipt.state !== "running" || isAlive(receipt.provenance.host)) continue;
      // Cancelled, never passed: nobody saw the run finish. An earlier note is kept after ours.
      const interrupted: Receipt = {
        ...receipt,
        state: "cancelled",
        termination: "interrupted",
        endedAt: now().toISOString(),
        note: receipt.note ? `${INTERRUPTED_NOTE}; ${receipt.note}` : INTERRUPTED_NOTE,
      };
      await write(interrupted);
      recovered.push(interrupted);
    }
    return recovered;
  }

  async function nextAttempt(identity: string): Promise<number> {
    const { receipts } = await list();
    let last = 0;
    for (const receipt of receipts) {
      if (receipt.checkIdentity === identity) last = Math.max(last, receipt.attempt);
    }
    return last + 1;
  }

  return { dir, write, list, recoverInterrupted, nextAttempt };
}
