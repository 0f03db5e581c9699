/**
 * The sealed stat cache across processes (src/receipts/stat-cache.ts): a new fingerprinter answers
 * an unchanged workspace from it by lstat alone; a cache the agent forged, edited, copied from
 * another workspace or put back from earlier never answers for files that changed.
 */

import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, lstatSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { recordSealer } from "../../src/core/record-sealers.ts";
import { type Sealer, sealerFromKey } from "../../src/core/seal.ts";
import { fullFingerprint, recordableFileSystem } from "../../src/receipts/fingerprint.ts";
import { createFingerprinter } from "../../src/receipts/fingerprinter.ts";
import { STAT_CACHE_FORMAT, type StatCache } from "../../src/receipts/stat-cache.ts";
import { NARROW, pastRacyWindow, valueIn } from "../support/stat-record.ts";
import { commitAll, makeWorkspace, removeWorkspaces } from "../support/workspace.ts";

afterAll(removeWorkspaces);

/** The racy window narrowed to the granularity (tests/receipts/fingerprinter.test.ts says why). */
const KEY = Buffer.alloc(32, 7);
const sealerOf = (workspace: string): Sealer => recordSealer(sealerFromKey(KEY), "stat-cache.pi", workspace);

/** The cache's parts: the format line, the seal, the header, the paths and the lstat numbers. */
function partsOf(file: string) {
  const bytes = readFileSync(file);
  const lines = bytes.toString("latin1").split("\n", 3);
  const headerEnd = lines.slice(0, 3).reduce((at, line) => at + line.length + 1, 0);
  const header = JSON.parse(lines[2] as string);
  return {
    seal: lines[1] as string,
    header,
    paths: bytes
      .subarray(headerEnd, headerEnd + header.pathBytes)
      .toString("utf8")
      .split("\0"),
    stats: new Float64Array(new Uint8Array(bytes.subarray(headerEnd + header.pathBytes)).buffer),
  };
}

/** A cache file with these parts, sealed as given (the agent's forgery keeps the old seal). */
function writeParts(file: string, parts: ReturnType<typeof partsOf>): void {
  const pathsPart = Buffer.from(parts.paths.join("\0"), "utf8");
  const statsPart = Buffer.from(parts.stats.buffer);
  const sha = (bytes: Buffer) => createHash("sha256").update(bytes).digest("hex");
  const header = JSON.stringify({
    ...parts.header,
    pathBytes: pathsPart.length,
    pathsSha256: sha(pathsPart),
    statsSha256: sha(statsPart),
  });
  writeFileSync(
    file,
    Buffer.concat([Buffer.from(`${STAT_CACHE_FORMAT}\n${parts.seal}\n${header}\n`), pathsPart, statsPart]),
  );
}

/** Records need a file system whose ctime the kernel keeps (stat-record.ts); /tmp is one here. */
describe.skipIf(!recordableFileSystem(tmpdir()))("the sealed stat cache", () => {
  const dirs: string[] = [];
  let cacheFolder: string;

  beforeAll(async () => {
    for (let i = 0; i < 8; i++) {
      const dir = makeWorkspace({ "a.txt": "alpha\n", "src/b.txt": "beta\n" });
      commitAll(dir);
      dirs.push(dir);
    }
    cacheFolder = makeWorkspace();
    await pastRacyWindow();
  });

  const cacheOf = (dir: string, sealer = sealerOf(dir)): StatCache => ({
    file: join(cacheFolder, `${dir.split("/").at(-1)}.cache`),
    sealer,
  });

  it("a new process answers an unchanged workspace from it by lstat, with the full path's value", async () => {
    const dir = dirs[0] as string;
    const first = await createFingerprinter({ ...NARROW, cache: cacheOf(dir) })(dir);
    expect(first.ok && first.path).toBe("fast");
    const later = await createFingerprinter({ ...NARROW, cache: cacheOf(dir) })(dir);
    expect(later.ok && later.path).toBe("stat");
    expect(valueIn(later)).toBe(valueIn(await fullFingerprint(dir)));
  });

  it("a cache whose fingerprint was edited is not used: its seal fails", async () => {
    const dir = dirs[1] as string;
    await createFingerprinter({ ...NARROW, cache: cacheOf(dir) })(dir);
    const parts = partsOf(cacheOf(dir).file);
    const forged = "0".repeat(64);
    writeParts(cacheOf(dir).file, {
      ...parts,
      header: { ...parts.header, fingerprint: { ...parts.header.fingerprint, value: forged } },
    });
    const later = await createFingerprinter({ ...NARROW, cache: cacheOf(dir) })(dir);
    expect(later.ok && later.path).not.toBe("stat");
    expect(valueIn(later)).toBe(valueIn(await fullFingerprint(dir)));
  });

  it("an edit, with the cache's numbers for that file rewritten to match (digests redone, seal kept): not used", async () => {
    const dir = dirs[2] as string;
    await createFingerprinter({ ...NARROW, cache: cacheOf(dir) })(dir);
    const before = valueIn(await fullFingerprint(dir));
    writeFileSync(join(dir, "a.txt"), "ALPHA\n");
    const parts = partsOf(cacheOf(dir).file);
    const at = parts.paths.indexOf("a.txt");
    const now = lstatSync(join(dir, "a.txt"));
    parts.stats.set([now.dev, now.ino, now.mode, now.size, now.mtimeMs, now.ctimeMs], at * 6);
    writeParts(cacheOf(dir).file, parts);
    const later = await createFingerprinter({ ...NARROW, cache: cacheOf(dir) })(dir);
    expect(later.ok && later.path).not.toBe("stat");
    expect(valueIn(later)).toBe(valueIn(await fullFingerprint(dir)));
    expect(valueIn(later)).not.toBe(before);
  });

  it("an edit, with the cache's numbers for that file rewritten and nothing else: not used (its digest)", async () => {
    const dir = dirs[6] as string;
    await createFingerprinter({ ...NARROW, cache: cacheOf(dir) })(dir);
    writeFileSync(join(dir, "a.txt"), "ALPHA\n");
    const file = cacheOf(dir).file;
    const { stats, paths } = partsOf(file);
    const now = lstatSync(join(dir, "a.txt"));
    const at = paths.indexOf("a.txt");
    const bytes = readFileSync(file);
    // The numbers are the file's last bytes: the one path's six are overwritten in place.
    const statsStart = bytes.length - stats.byteLength;
    const patched = new Float64Array([now.dev, now.ino, now.mode, now.size, now.mtimeMs, now.ctimeMs]);
    Buffer.from(patched.buffer).copy(bytes, statsStart + at * 6 * 8);
    writeFileSync(file, bytes);
    const later = await createFingerprinter({ ...NARROW, cache: cacheOf(dir) })(dir);
    expect(later.ok && later.path).not.toBe("stat");
    expect(valueIn(later)).toBe(valueIn(await fullFingerprint(dir)));
  });

  it("a cache sealed with another key, or copied from another workspace, is not used", async () => {
    const [dir, other] = [dirs[3] as string, dirs[4] as string];
    const otherKey = recordSealer(sealerFromKey(Buffer.alloc(32, 9)), "stat-cache.pi", dir);
    await createFingerprinter({ ...NARROW, cache: cacheOf(dir, otherKey) })(dir);
    const foreign = await createFingerprinter({ ...NARROW, cache: cacheOf(dir) })(dir);
    expect(foreign.ok && foreign.path).not.toBe("stat");
    await createFingerprinter({ ...NARROW, cache: cacheOf(other) })(other);
    writeFileSync(cacheOf(dir).file, readFileSync(cacheOf(other).file));
    const copied = await createFingerprinter({ ...NARROW, cache: cacheOf(dir) })(dir);
    expect(copied.ok && copied.path).not.toBe("stat");
    expect(valueIn(copied)).toBe(valueIn(await fullFingerprint(dir)));
  });

  it("a genuine earlier cache put back after an edit is not used: the edited file's ctime", async () => {
    const dir = dirs[5] as string;
    await createFingerprinter({ ...NARROW, cache: cacheOf(dir) })(dir);
    const earlier = readFileSync(cacheOf(dir).file);
    writeFileSync(join(dir, "src/b.txt"), "BETA\n");
    await createFingerprinter({ ...NARROW, cache: cacheOf(dir) })(dir);
    writeFileSync(cacheOf(dir).file, earlier);
    const later = await createFingerprinter({ ...NARROW, cache: cacheOf(dir) })(dir);
    expect(later.ok && later.path).not.toBe("stat");
    expect(valueIn(later)).toBe(valueIn(await fullFingerprint(dir)));
  });

  it("a FIFO in the cache's place is no cache: nothing waits on it, and the full path answers", async () => {
    const dir = dirs[7] as string;
    await createFingerprinter({ ...NARROW, cache: cacheOf(dir) })(dir);
    rmSync(cacheOf(dir).file);
    execFileSync("mkfifo", [cacheOf(dir).file]);
    const fingerprinter = createFingerprinter({ ...NARROW, cache: cacheOf(dir) });
    expect(fingerprinter.presume(dir)).toBeUndefined();
    const later = await fingerprinter(dir);
    expect(later.ok && later.path).not.toBe("stat");
    expect(valueIn(later)).toBe(valueIn(await fullFingerprint(dir)));
  });

  it("files written just before the first process: no cache; the first process past the window writes it, once, and later processes answer from it", async () => {
    const dir = makeWorkspace({ "a.txt": "alpha\n", "src/b.txt": "beta\n" });
    commitAll(dir);
    const cache = cacheOf(dir);
    const young = await createFingerprinter({ ...NARROW, cache })(dir);
    expect(young.ok && young.path).toBe("fast");
    expect(existsSync(cache.file)).toBe(false);
    await pastRacyWindow();
    const renewal = await createFingerprinter({ ...NARROW, cache })(dir);
    expect(renewal.ok && renewal.path).toBe("fast");
    const written = lstatSync(cache.file);
    for (let i = 0; i < 2; i++) {
      const later = await createFingerprinter({ ...NARROW, cache })(dir);
      expect(later.ok && later.path).toBe("stat");
      expect(valueIn(later)).toBe(valueIn(renewal));
    }
    // Not written again: a write would have put another file in its place (rename).
    const now = lstatSync(cache.file);
    expect([now.ino, now.mtimeMs]).toEqual([written.ino, written.mtimeMs]);
    expect(valueIn(renewal)).toBe(valueIn(await fullFingerprint(dir)));
  });
});
