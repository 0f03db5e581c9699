import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import {
  canonicalJson,
  openSealer,
  SEAL_KEY_FILE,
  sealerFromKey,
  sealRecord,
  verifyRecord,
} from "../../src/core/seal.ts";

const dataDir = () => mkdtempSync(join(tmpdir(), "pi-quests-seal-"));

describe("seals", () => {
  it("a sealed record verifies, and gives the record back without its seal", () => {
    const sealer = openSealer(dataDir());
    const sealed = sealRecord(sealer, { quest: "q", status: "pass", nested: { b: 1, a: [1, 2] } });
    expect(verifyRecord(sealer, sealed)).toEqual({
      ok: true,
      record: { quest: "q", status: "pass", nested: { b: 1, a: [1, 2] } },
    });
  });

  it("any change to a sealed record, or a record without a seal, does not verify", () => {
    const sealer = openSealer(dataDir());
    const sealed = sealRecord(sealer, { state: "failed", exitCode: 1 });
    expect(verifyRecord(sealer, { ...sealed, state: "passed" })).toEqual({ ok: false, reason: "altered" });
    expect(verifyRecord(sealer, { state: "failed", exitCode: 1 })).toEqual({ ok: false, reason: "unsealed" });
    expect(verifyRecord(sealer, { ...sealed, seal: "0".repeat(64) })).toEqual({
      ok: false,
      reason: "altered",
    });
    expect(verifyRecord(sealer, { ...sealed, seal: "short" })).toEqual({ ok: false, reason: "altered" });
    expect(verifyRecord(sealer, null)).toEqual({ ok: false, reason: "unsealed" });
  });

  it("a seal made with another key does not verify: a forger without the key cannot seal", () => {
    const sealer = openSealer(dataDir());
    const forger = sealerFromKey(Buffer.alloc(32, 7));
    expect(verifyRecord(sealer, sealRecord(forger, { state: "passed" }))).toEqual({
      ok: false,
      reason: "altered",
    });
  });

  it("the key is made once, mode 0600, and read again by the next process", () => {
    const dir = dataDir();
    const first = openSealer(dir);
    expect(first.fresh).toBe(true);
    expect(statSync(join(dir, SEAL_KEY_FILE)).mode & 0o777).toBe(0o600);
    const second = openSealer(dir);
    expect(second.fresh).toBe(false);
    expect(verifyRecord(second, sealRecord(first, { a: 1 })).ok).toBe(true);
  });

  it("a FIFO put in the key file's place is not waited on: it is replaced by a new key", () => {
    const dir = dataDir();
    execFileSync("mkfifo", [join(dir, SEAL_KEY_FILE)]);
    const sealer = openSealer(dir);
    expect(statSync(join(dir, SEAL_KEY_FILE)).isFile()).toBe(true);
    expect(verifyRecord(sealer, sealRecord(sealer, { a: 1 })).ok).toBe(true);
  });

  it("a key file that holds no key is replaced, and seals made before no longer verify", () => {
    const dir = dataDir();
    const first = openSealer(dir);
    const sealed = sealRecord(first, { a: 1 });
    writeFileSync(join(dir, SEAL_KEY_FILE), "not a key\n");
    const second = openSealer(dir);
    expect(second.fresh).toBe(true);
    expect(readFileSync(join(dir, SEAL_KEY_FILE), "utf8")).toMatch(/^[0-9a-f]{64}\n$/);
    expect(verifyRecord(second, sealed)).toEqual({ ok: false, reason: "altered" });
  });

  it("canonical JSON sorts keys and leaves out undefined members", () => {
    expect(canonicalJson({ b: 1, a: { d: undefined, c: [1, "x"] } })).toBe('{"a":{"c":[1,"x"]},"b":1}');
  });
});
