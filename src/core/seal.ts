/**
 * Seals for pi-quests' own records (receipts, recorded events, progress, pinned definitions).
 * Pi's agent runs shell commands as the learner's user and can write anything in the data dir,
 * so a record is trusted only when it carries a seal: an HMAC-SHA256 of its canonical JSON,
 * keyed by a secret that pi-quests keeps in `{agent_dir}/quests/seal.key` (mode 0600). A record
 * written or edited by anything that does not hold the key fails `verifyRecord` and is ignored.
 * docs/security.md says how the key is kept from the agent, and where that stops.
 */
import { createHmac, randomBytes, timingSafeEqual } from "node:crypto";
import { closeSync, linkSync, mkdirSync, openSync, rmSync, writeSync } from "node:fs";
import { join } from "node:path";
import { readRecordFile } from "./record-file.ts";

/** The field a sealed record carries. */
export const SEAL_FIELD = "seal";
export const SEAL_KEY_FILE = "seal.key";
const KEY_PATTERN = /^[0-9a-f]{64}$/;

export type Sealer = {
  /** The key file this sealer uses. */
  readonly keyFile: string;
  /** Whether the key was made just now (none, or an unreadable one, was there): older seals cannot verify. */
  readonly fresh: boolean;
  /** The seal of a text: HMAC-SHA256, hex. */
  sealText(text: string): string;
  /** Whether `seal` is this key's seal of `text` (constant time). */
  verifyText(text: string, seal: unknown): boolean;
};

export type SealedRecord<T> = T & { seal: string };

export type Verified<T> = { ok: true; record: T } | { ok: false; reason: "unsealed" | "altered" };

/** JSON with object keys sorted and undefined members left out, so equal records seal equally. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map((item) => canonicalJson(item ?? null)).join(",")}]`;
  if (value !== null && typeof value === "object") {
    const entries = Object.entries(value)
      .filter(([, item]) => item !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([key, item]) => `${JSON.stringify(key)}:${canonicalJson(item)}`).join(",")}}`;
  }
  return JSON.stringify(value);
}

/** The record with its seal: the HMAC of its canonical JSON, any earlier seal left out. */
export function sealRecord<T extends object>(sealer: Sealer, record: T): SealedRecord<T> {
  const { [SEAL_FIELD]: _earlier, ...rest } = record as Record<string, unknown>;
  return { ...(rest as T), seal: sealer.sealText(canonicalJson(rest)) };
}

/** The record without its seal when the seal is this key's; else why not. */
export function verifyRecord<T extends object>(sealer: Sealer, record: unknown): Verified<T> {
  if (record === null || typeof record !== "object" || Array.isArray(record))
    return { ok: false, reason: "unsealed" };
  const { [SEAL_FIELD]: seal, ...rest } = record as Record<string, unknown>;
  if (typeof seal !== "string") return { ok: false, reason: "unsealed" };
  return sealer.verifyText(canonicalJson(rest), seal)
    ? { ok: true, record: rest as T }
    : { ok: false, reason: "altered" };
}

/** A sealer over a key given directly (tests, or a key already read). */
export function sealerFromKey(key: Buffer, keyFile = "(in memory)", fresh = false): Sealer {
  const sealText = (text: string) => createHmac("sha256", key).update(text, "utf8").digest("hex");
  return {
    keyFile,
    fresh,
    sealText,
    verifyText(text, seal) {
      if (typeof seal !== "string" || !KEY_PATTERN.test(seal)) return false;
      return timingSafeEqual(Buffer.from(sealText(text), "hex"), Buffer.from(seal, "hex"));
    },
  };
}

/**
 * The sealer of a data dir (`{agent_dir}/quests`): its key is read, or made when there is none
 * (or the file does not hold a key). Synchronous, and node:crypto and node:fs only: print mode
 * seals the events it records, and must start fast.
 */
export function openSealer(dataDir: string): Sealer {
  const keyFile = join(dataDir, SEAL_KEY_FILE);
  const existing = readKey(keyFile);
  if (existing) return sealerFromKey(existing, keyFile);
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  const made = randomBytes(32);
  const temporary = `${keyFile}.${randomBytes(6).toString("hex")}.tmp`;
  const fd = openSync(temporary, "wx", 0o600);
  try {
    writeSync(fd, `${made.toString("hex")}\n`);
  } finally {
    closeSync(fd);
  }
  // link, not rename: it never replaces a key another process made meanwhile (or an unreadable
  // one, which is then set aside first), so seals made with that key stay valid.
  try {
    try {
      linkSync(temporary, keyFile);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
      const raced = readKey(keyFile);
      if (raced) return sealerFromKey(raced, keyFile);
      rmSync(keyFile, { force: true });
      linkSync(temporary, keyFile);
    }
  } finally {
    rmSync(temporary, { force: true });
  }
  return sealerFromKey(readKey(keyFile) ?? made, keyFile, true);
}

function readKey(keyFile: string): Buffer | undefined {
  // A key is 65 bytes; a FIFO or a link in its place is unreadable, like any other bad key.
  const read = readRecordFile(keyFile, 1024);
  if (!read.ok) return undefined;
  const text = read.bytes.toString("utf8").trim();
  return KEY_PATTERN.test(text) ? Buffer.from(text, "hex") : undefined;
}
