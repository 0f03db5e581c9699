import { execFileSync, spawn } from "node:child_process";
import { once } from "node:events";
import { mkdir, mkdtemp, readdir, readFile, rm, symlink, writeFile } from "node:fs/promises";
import { hostname, tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { RECEIPT_SCHEMA, type Receipt } from "../../src/receipts/schema.ts";
import {
  hostAlive,
  INTERRUPTED_NOTE,
  newestByIdentity,
  openReceiptStore,
  type ReceiptHost,
  type ReceiptStore,
  readBootId,
  supersedeKey,
} from "../../src/receipts/store.ts";
import { sealedJson, testSealer } from "../support/seal.ts";

const A = "a".repeat(64);
const B = "b".repeat(64);
const NOW = new Date("2030-01-02T03:04:05.000Z");
/** This process, on a boot the test names, so a receipt can claim another boot. */
const HERE: ReceiptHost = { pid: process.pid, hostname: hostname(), bootId: "boot-now" };

let dir: string;
let store: ReceiptStore;
const sealer = testSealer();

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "pi-quests-receipts-"));
  store = await openReceiptStore(join(dir, "receipts"), { sealer, now: () => NOW, host: HERE });
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

function receipt(fields: Partial<Receipt> & { id: string }): Receipt {
  return {
    schema: RECEIPT_SCHEMA,
    quest: "first-file",
    check: "tests-pass",
    attempt: 1,
    checkIdentity: A,
    command: "npm test",
    cwd: ".",
    workspace: "/work/learner",
    startedAt: "2030-01-01T00:00:00.000Z",
    endedAt: "2030-01-01T00:00:01.000Z",
    exitCode: 0,
    termination: "exit",
    provenance: {
      isolation: "worktree",
      runDir: null,
      baseline: null,
      head: null,
      patchSha256: null,
      host: HERE,
      tool: "pi-quests 0.1.0",
    },
    fingerprint: { algorithm: "git-blob-sha1+sha256", value: "c".repeat(64), entries: 3, bytes: 42 },
    note: null,
    state: "passed",
    result: { status: "pass", summary: "exit 0", evidence: { kind: "command" } },
    ...fields,
  };
}

/** A running receipt left by `host`, as a crash leaves it. */
function running(id: string, host: ReceiptHost): Receipt {
  return receipt({
    id,
    state: "running",
    endedAt: null,
    exitCode: null,
    termination: null,
    result: null,
    provenance: { ...receipt({ id }).provenance, host },
  });
}

/** The pid of a process that has exited and been reaped: certainly not running. */
async function deadPid(): Promise<number> {
  const child = spawn(process.execPath, ["-e", ""], { stdio: "ignore" });
  await once(child, "exit");
  if (child.pid === undefined) throw new Error("the child did not start");
  return child.pid;
}

const file = (name: string) => join(store.dir, name);

describe("write and list", () => {
  it("round-trips a receipt through <id>.json", async () => {
    const one = receipt({ id: "r1" });
    await store.write(one);
    expect(JSON.parse(await readFile(file("r1.json"), "utf8"))).toEqual({
      ...one,
      seal: expect.stringMatching(/^[0-9a-f]{64}$/),
    });
    expect(await store.list()).toEqual({ receipts: [one], warnings: [], altered: [] });
  });

  it("replaces a receipt written again under the same id, leaving no temp file", async () => {
    await store.write(running("r1", HERE));
    const done = receipt({ id: "r1", state: "failed", exitCode: 1 });
    await store.write(done);
    expect((await store.list()).receipts).toEqual([done]);
    expect(await readdir(store.dir)).toEqual(["r1.json"]);
  });

  it("refuses an invalid receipt or an id that is no file name, writing nothing", async () => {
    await expect(store.write({ ...receipt({ id: "r1" }), checkIdentity: "nope" })).rejects.toThrow();
    await expect(store.write(receipt({ id: "../escape" }))).rejects.toThrow(/file name/);
    await expect(store.write(receipt({ id: "x.json.1.tmp" }))).rejects.toThrow(/file name/);
    expect(await readdir(store.dir)).toEqual([]);
    expect(await readdir(dir)).toEqual(["receipts"]);
  });

  it("cleans its temp file when the rename fails", async () => {
    await mkdir(file("r1.json"));
    await expect(store.write(receipt({ id: "r1" }))).rejects.toThrow();
    expect(await readdir(store.dir)).toEqual(["r1.json"]);
  });

  it("sorts by start time, then id (fractions of a second count)", async () => {
    await store.write(receipt({ id: "b", startedAt: "2030-01-01T00:00:00.500Z" }));
    await store.write(receipt({ id: "c", startedAt: "2030-01-01T00:00:00Z" }));
    await store.write(receipt({ id: "a", startedAt: "2030-01-01T00:00:00.500Z" }));
    await store.write(receipt({ id: "d", startedAt: "2029-12-31T23:59:59.999Z" }));
    expect((await store.list()).receipts.map((r) => r.id)).toEqual(["d", "c", "a", "b"]);
  });

  it("lists nothing once the folder is gone", async () => {
    await rm(store.dir, { recursive: true });
    expect(await store.list()).toEqual({ receipts: [], warnings: [], altered: [] });
  });
});

describe("what a crash or an older version leaves", () => {
  it("ignores a half-written temp file and skips a truncated receipt; the others stay readable", async () => {
    const one = receipt({ id: "r1" });
    const two = receipt({ id: "r2", startedAt: "2030-01-01T00:00:02.000Z" });
    await store.write(one);
    await store.write(two);
    const full = `${JSON.stringify(receipt({ id: "r1", state: "failed" }), null, 2)}\n`;
    await writeFile(file("r1.json.0a1b2c3d4e5f.tmp"), full.slice(0, full.length / 2));
    const third = `${JSON.stringify(receipt({ id: "r3" }), null, 2)}\n`;
    await writeFile(file("r3.json"), third.slice(0, 100));

    const { receipts, warnings } = await store.list();
    expect(receipts).toEqual([one, two]);
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatch(/^r3\.json: not valid JSON/);
  });

  it("skips a legacy schema, a missing schema and missing fields, naming each file", async () => {
    await store.write(receipt({ id: "good" }));
    await writeFile(
      file("old.json"),
      JSON.stringify({ ...receipt({ id: "old" }), schema: "pi-quests.receipt/0" }),
    );
    await writeFile(file("bare.json"), JSON.stringify({ id: "bare", command: "npm test", exitCode: 0 }));
    const { checkIdentity: _dropped, ...partial } = receipt({ id: "partial" });
    await writeFile(file("partial.json"), sealedJson(sealer, partial));

    const { receipts, warnings } = await store.list();
    expect(receipts.map((r) => r.id)).toEqual(["good"]);
    expect(warnings).toEqual([
      expect.stringMatching(/^bare\.json: no schema version, not pi-quests\.receipt\/2; skipped \(a legacy/),
      expect.stringMatching(/^old\.json: schema "pi-quests\.receipt\/0", not pi-quests\.receipt\/2/),
      expect.stringMatching(/^partial\.json: not a valid receipt \(checkIdentity: /),
    ]);
  });

  it("skips corrupt JSON, a non-object, a folder and a file whose name is not its id", async () => {
    await writeFile(file("corrupt.json"), "{ this is not json");
    await writeFile(file("array.json"), "[1, 2]");
    await mkdir(file("folder.json"));
    await writeFile(file("copy.json"), sealedJson(sealer, receipt({ id: "original" })));
    await writeFile(file("notes.txt"), "not a receipt");

    const { receipts, warnings, altered } = await store.list();
    expect(receipts).toEqual([]);
    expect(warnings).toEqual([
      expect.stringMatching(/^array\.json: no schema version/),
      expect.stringMatching(/^corrupt\.json: not valid JSON/),
      expect.stringMatching(/^folder\.json: cannot be read \(EISDIR\)/),
    ]);
    // A sealed receipt under another name is a copy: altered, not a torn write.
    expect(altered).toEqual([
      { file: "copy.json", reason: 'it holds receipt "original", not its own name: a copy' },
    ]);
  });
});

describe("a file the agent put among the receipts", () => {
  it("a FIFO, or a link to /dev/zero, named like a receipt is skipped at once, not waited on or read", async () => {
    await store.write(receipt({ id: "r1" }));
    execFileSync("mkfifo", [file("pipe.json")]);
    await symlink("/dev/zero", file("zero.json"));
    const { receipts, warnings } = await store.list();
    expect(receipts.map((found) => found.id)).toEqual(["r1"]);
    expect(warnings).toEqual([
      "pipe.json: cannot be read (not a regular file); skipped",
      "zero.json: cannot be read (ELOOP); skipped",
    ]);
  });
});

describe("listing again (a process lists its store more than once)", () => {
  /** A second store on the same folder: it did not write the files, so it reads every one. */
  const reader = () => openReceiptStore(store.dir, { sealer, now: () => NOW, host: HERE });

  it("verifies a file again once its text changed: an edit after the first listing is altered", async () => {
    await writeFile(file("r1.json"), sealedJson(sealer, receipt({ id: "r1", state: "failed" })));
    const other = await reader();
    expect((await other.list()).receipts.map((found) => found.state)).toEqual(["failed"]);
    const sealed = JSON.parse(await readFile(file("r1.json"), "utf8"));
    await writeFile(file("r1.json"), JSON.stringify({ ...sealed, state: "passed" }));
    const again = await other.list();
    expect(again.receipts).toEqual([]);
    expect(again.altered).toEqual([
      {
        file: "r1.json",
        reason: "its seal does not match its content: it was changed after pi-quests wrote it",
      },
    ]);
  });

  it("reads a receipt sealed anew after the first listing as it is now", async () => {
    await writeFile(file("r1.json"), sealedJson(sealer, receipt({ id: "r1", exitCode: 1 })));
    const other = await reader();
    await other.list();
    await writeFile(file("r1.json"), sealedJson(sealer, receipt({ id: "r1", exitCode: 7 })));
    expect((await other.list()).receipts.map((found) => found.exitCode)).toEqual([7]);
  });

  it("gives each listing its own copies: a receipt changed by a caller is not what the next listing gives", async () => {
    await writeFile(file("r1.json"), sealedJson(sealer, receipt({ id: "r1" })));
    const other = await reader();
    const [first] = (await other.list()).receipts;
    if (!first) throw new Error("the receipt was not listed");
    first.state = "stale";
    const [second] = (await other.list()).receipts;
    expect(second?.state).toBe("passed");
    if (second) second.state = "stale";
    expect((await other.list()).receipts.map((found) => found.state)).toEqual(["passed"]);
  });
});

describe("recoverInterrupted", () => {
  it("cancels a running receipt whose process is dead, never passing it", async () => {
    const dead = running("dead", { ...HERE, pid: await deadPid() });
    await store.write(dead);

    const recovered = await store.recoverInterrupted();
    const expected: Receipt = {
      ...dead,
      state: "cancelled",
      termination: "interrupted",
      endedAt: NOW.toISOString(),
      note: INTERRUPTED_NOTE,
    };
    expect(recovered).toEqual([expected]);
    expect((await store.list()).receipts).toEqual([expected]);
    // Once recovered, there is nothing left to recover.
    expect(await store.recoverInterrupted()).toEqual([]);
  });

  it("cancels a running receipt from an earlier boot, even if its pid is in use now", async () => {
    await store.write(running("old-boot", { ...HERE, bootId: "boot-before" }));
    const [recovered] = await store.recoverInterrupted();
    expect(recovered).toMatchObject({ id: "old-boot", state: "cancelled", termination: "interrupted" });
  });

  it("keeps an earlier note after its own", async () => {
    await store.write({
      ...running("noted", { ...HERE, bootId: "boot-before" }),
      note: "no fingerprint: too big",
    });
    const [recovered] = await store.recoverInterrupted();
    expect(recovered?.note).toBe(`${INTERRUPTED_NOTE}; no fingerprint: too big`);
  });

  it("leaves a live process, another machine and finished receipts alone", async () => {
    const live = running("live", HERE);
    const elsewhere = running("elsewhere", {
      pid: await deadPid(),
      hostname: `${hostname()}-other`,
      bootId: "x",
    });
    const finished = receipt({
      id: "finished",
      state: "failed",
      exitCode: 1,
      provenance: { ...live.provenance, host: { ...HERE, pid: await deadPid() } },
    });
    await store.write(live);
    await store.write(elsewhere);
    await store.write(finished);

    expect(await store.recoverInterrupted()).toEqual([]);
    expect((await store.list()).receipts).toEqual(expect.arrayContaining([live, elsewhere, finished]));
  });

  it("asks the given liveness test", async () => {
    await store.write(running("r1", HERE));
    await store.write(running("r2", { ...HERE, pid: 12345 }));
    const asked: number[] = [];
    const recovered = await store.recoverInterrupted((host) => {
      asked.push(host.pid);
      return host.pid === process.pid;
    });
    expect(asked.sort()).toEqual([12345, process.pid].sort());
    expect(recovered.map((r) => r.id)).toEqual(["r2"]);
  });
});

describe("hostAlive and the boot id", () => {
  it("reads this machine's boot id on Linux", () => {
    const bootId = readBootId();
    if (process.platform === "linux") expect(bootId).toMatch(/^[0-9a-f-]{36}$/);
    else expect(bootId).toBeNull();
  });

  it("decides by machine, boot and pid", async () => {
    const pid = await deadPid();
    expect(hostAlive(HERE, HERE)).toBe(true);
    expect(hostAlive({ ...HERE, pid }, HERE)).toBe(false);
    expect(hostAlive({ ...HERE, bootId: "boot-before" }, HERE)).toBe(false);
    expect(hostAlive({ ...HERE, pid, hostname: "elsewhere" }, HERE)).toBe(true);
    // Without boot ids (not Linux), the pid alone decides.
    expect(hostAlive({ ...HERE, bootId: null }, HERE)).toBe(true);
    expect(hostAlive({ ...HERE, pid, bootId: null }, { ...HERE, bootId: null })).toBe(false);
  });
});

describe("newestByIdentity", () => {
  it("lets the newest receipt of an identity and cwd supersede only its own older ones", () => {
    const olderFail = receipt({ id: "1", state: "failed", startedAt: "2030-01-01T00:00:00Z" });
    const newerPass = receipt({ id: "2", state: "passed", startedAt: "2030-01-01T00:01:00Z" });
    const inSub = receipt({ id: "3", cwd: "sub", state: "failed", startedAt: "2030-01-01T00:00:30Z" });
    const newest = newestByIdentity([newerPass, olderFail, inSub]);
    expect(newest).toEqual(
      new Map([
        [`${A} .`, newerPass],
        [`${A} sub`, inSub],
      ]),
    );
  });

  it("keys on the normalized cwd", () => {
    const older = receipt({ id: "1", cwd: "./sub/", startedAt: "2030-01-01T00:00:00Z" });
    const newer = receipt({ id: "2", cwd: "sub", startedAt: "2030-01-01T00:01:00Z" });
    const newest = newestByIdentity([older, newer]);
    expect([...newest.keys()]).toEqual([supersedeKey(A, "sub")]);
    expect(newest.get(supersedeKey(A, "./sub"))).toBe(newer);
  });

  it("never lets a different passing command hide a failed check", () => {
    const failedA = receipt({
      id: "1",
      checkIdentity: A,
      state: "failed",
      startedAt: "2030-01-01T00:00:00Z",
    });
    const passedB = receipt({
      id: "2",
      checkIdentity: B,
      state: "passed",
      startedAt: "2030-01-01T00:05:00Z",
    });
    const newest = newestByIdentity([failedA, passedB]);
    expect(newest.get(`${A} .`)).toBe(failedA);
    expect(newest.get(`${B} .`)).toBe(passedB);
  });

  it("breaks a tie in start time by id, in any input order", () => {
    const x = receipt({ id: "x" });
    const y = receipt({ id: "y" });
    expect(newestByIdentity([x, y]).get(`${A} .`)).toBe(y);
    expect(newestByIdentity([y, x]).get(`${A} .`)).toBe(y);
  });

  it("works on what the store lists", async () => {
    await store.write(receipt({ id: "1", state: "failed", startedAt: "2030-01-01T00:00:00Z" }));
    await store.write(receipt({ id: "2", state: "passed", startedAt: "2030-01-01T00:01:00Z" }));
    await store.write(
      receipt({ id: "3", checkIdentity: B, state: "passed", startedAt: "2030-01-01T00:02:00Z" }),
    );
    const newest = newestByIdentity((await store.list()).receipts);
    expect([...newest.values()].map((r) => r.id).sort()).toEqual(["2", "3"]);
  });
});

describe("nextAttempt", () => {
  it("counts per identity, from 1, past gaps and unreadable files", async () => {
    expect(await store.nextAttempt(A)).toBe(1);
    await store.write(receipt({ id: "a1", attempt: 1 }));
    expect(await store.nextAttempt(A)).toBe(2);
    await store.write(receipt({ id: "a3", attempt: 3 }));
    await store.write(receipt({ id: "b1", checkIdentity: B, attempt: 7 }));
    await writeFile(file("torn.json"), '{"schema":"pi-quests.receipt/1","attempt":99');
    expect(await store.nextAttempt(A)).toBe(4);
    expect(await store.nextAttempt(B)).toBe(8);
    expect(await store.nextAttempt("f".repeat(64))).toBe(1);
  });
});
