import { existsSync } from "node:fs";
import { mkdir, readdir, readFile, rm, rmdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { sealRecord } from "../../src/core/seal.ts";
import { emptyProgress, openProgressStore, type Progress } from "../../src/runtime/progress.ts";
import { sealedJson, testSealer } from "../support/seal.ts";
import { makeWorkspace, removeWorkspaces } from "../support/workspace.ts";

const NOW = new Date("2030-01-02T03:04:05.678Z");
/** The backup suffix for NOW: an ISO time with the colons a file name should not hold replaced. */
const BACKUP_SUFFIX = ".corrupt-2030-01-02T03-04-05.678Z";

afterEach(removeWorkspaces);

const SEALER = testSealer();

function storeIn(dir = makeWorkspace()) {
  const file = join(dir, "data", "progress.json");
  return { dir, file, store: openProgressStore(file, SEALER, () => NOW) };
}

/** Progress with every field set, as a learner two quests in would have it. */
function fullProgress(): Progress {
  return {
    version: 1,
    active: {
      questId: "first-commit",
      definition: { id: "first-commit", title: "Commit it" },
      definitionHash: "f".repeat(64),
      baseline: "a".repeat(40),
      activatedAt: "2030-01-01T00:00:02.000Z",
      fromSeq: 12,
      hintsShown: 1,
    },
    completed: {
      "first-prompt": { at: "2030-01-01T00:00:00.000Z", definitionHash: "1".repeat(64) },
      "first-file": { at: "2030-01-01T00:00:01.000Z", definitionHash: "2".repeat(64) },
    },
    skipped: { "first-skill": { at: "2030-01-01T00:00:01.500Z" } },
    confirmations: { "first-file": { "read-it": { answer: true, at: "2030-01-01T00:00:00.500Z" } } },
    lastResult: {
      quest: "first-commit",
      status: "fail",
      counts: { passed: 0, failed: 1, pending: 0 },
      checks: [
        {
          id: "committed",
          type: "git",
          status: "fail",
          evidence: { kind: "git", summary: "0 commit(s) since b0b0b0b0b0b0; expected min 1" },
        },
      ],
    },
    epochSeq: 3,
    sandbox: {
      template: "/pack/sandboxes/first-file",
      baseline: "b".repeat(40),
      at: "2030-01-01T00:00:01.000Z",
    },
  };
}

describe("a workspace without a progress file", () => {
  it("loads as fresh, empty progress and creates nothing", async () => {
    const { dir, store } = storeIn();
    expect(await store.load()).toEqual({ kind: "fresh", progress: emptyProgress() });
    expect(await readdir(dir)).toEqual([]);
  });

  it("empty progress is version 1 with nothing active, completed or confirmed", () => {
    expect(emptyProgress()).toEqual({ version: 1, completed: {}, confirmations: {}, epochSeq: 0 });
  });
});

describe("save, then load", () => {
  it("round-trips every field", async () => {
    const { store } = storeIn();
    await store.save(fullProgress());
    expect(await store.load()).toEqual({ kind: "loaded", progress: fullProgress() });
  });

  it("creates the data folder and writes readable, indented JSON", async () => {
    const { file, store } = storeIn();
    await store.save(emptyProgress());
    const text = await readFile(file, "utf8");
    expect(JSON.parse(text)).toEqual({ ...emptyProgress(), seal: expect.stringMatching(/^[0-9a-f]{64}$/) });
    expect(text).toBe(`${JSON.stringify(sealRecord(SEALER, emptyProgress()), null, 2)}\n`);
  });

  it("fills the defaults a sealed file leaves out", async () => {
    const { file, store } = storeIn();
    await mkdir(join(file, ".."), { recursive: true });
    await writeFile(file, sealedJson(SEALER, { version: 1 }));
    expect(await store.load()).toEqual({ kind: "loaded", progress: emptyProgress() });
  });

  it("a file written before quests could be skipped loads as it was, with nothing skipped", async () => {
    const { file, store } = storeIn();
    const { skipped: _skipped, ...older } = fullProgress();
    await mkdir(join(file, ".."), { recursive: true });
    await writeFile(file, sealedJson(SEALER, older));
    const loaded = await store.load();
    expect(loaded).toEqual({ kind: "loaded", progress: older });
    expect(loaded.progress.skipped).toBeUndefined();
  });

  it("a skipped quest is kept with when it was skipped; a malformed entry makes the file unreadable", async () => {
    const { file, store } = storeIn();
    await mkdir(join(file, ".."), { recursive: true });
    await writeFile(file, sealedJson(SEALER, { version: 1, skipped: { steer: { at: "then" } } }));
    expect((await store.load()).progress.skipped).toEqual({ steer: { at: "then" } });
    await writeFile(file, sealedJson(SEALER, { version: 1, skipped: { steer: true } }));
    expect(await store.load()).toMatchObject({
      kind: "recovered",
      problem: expect.stringMatching(/^skipped\.steer/),
    });
  });

  it("a hand-written file (no seal) is altered: set aside as .altered-<time>, never loaded", async () => {
    const { file, store } = storeIn();
    await mkdir(join(file, ".."), { recursive: true });
    await writeFile(file, '{"version": 1}');
    const backup = `${file}.altered-2030-01-02T03-04-05.678Z`;
    expect(await store.load()).toEqual({
      kind: "altered",
      progress: emptyProgress(),
      backup,
      reason: "unsealed",
    });
    expect(await readFile(backup, "utf8")).toBe('{"version": 1}');
    expect(existsSync(file)).toBe(false);
  });

  it("writes atomically: after many saves only progress.json is in the folder, no temp file", async () => {
    const { file, store } = storeIn();
    for (let i = 0; i < 5; i++) await store.save({ ...emptyProgress(), epochSeq: i });
    expect(await readdir(join(file, ".."))).toEqual(["progress.json"]);
  });

  it("refuses to save progress that is not progress, and the file keeps its last good state", async () => {
    const { file, store } = storeIn();
    await store.save(fullProgress());
    const before = await readFile(file);
    const broken = { ...fullProgress(), epochSeq: -1 };
    await expect(async () => store.save(broken)).rejects.toThrow();
    expect(await readFile(file)).toEqual(before);
  });
});

describe("saves run one after another, in the order they were made", () => {
  it("a burst of saves not awaited ends with the last one in the file", async () => {
    const { store } = storeIn();
    const saves = Array.from({ length: 20 }, (_, i) => store.save({ ...emptyProgress(), epochSeq: i }));
    await Promise.all(saves);
    const loaded = await store.load();
    expect(loaded.kind).toBe("loaded");
    expect(loaded.progress.epochSeq).toBe(19);
  });

  it("each save's promise resolves once that state (or a later one) is on disk", async () => {
    const { file, store } = storeIn();
    const first = store.save({ ...emptyProgress(), epochSeq: 1 });
    const second = store.save({ ...emptyProgress(), epochSeq: 2 });
    await first;
    expect([1, 2]).toContain(JSON.parse(await readFile(file, "utf8")).epochSeq);
    await second;
    expect(JSON.parse(await readFile(file, "utf8")).epochSeq).toBe(2);
  });

  it("a save that fails rejects, and does not stop the saves after it", async () => {
    const { file, store } = storeIn();
    // A folder where the file should be: the rename over it fails.
    await mkdir(file, { recursive: true });
    const failing = store.save({ ...emptyProgress(), epochSeq: 1 });
    await expect(failing).rejects.toThrow();
    await rmdir(file);
    await store.save({ ...emptyProgress(), epochSeq: 2 });
    expect((await store.load()).progress.epochSeq).toBe(2);
    expect(await readdir(join(file, ".."))).toEqual(["progress.json"]);
  });
});

describe("a progress file that cannot be read back", () => {
  const cases = [
    { name: "corrupted JSON", text: '{"version": 1, "completed": {', problem: /^not JSON/ },
    { name: "JSON of the wrong shape", text: '{"version": 2}', problem: /^version: / },
    { name: "JSON that is not an object", text: "[1, 2, 3]", problem: /the file/ },
    {
      name: "an unknown field (the schema is strict)",
      text: '{"version": 1, "surprise": true}',
      problem: /surprise|[Uu]nrecognized/,
    },
    { name: "an empty file", text: "", problem: /^not JSON/ },
    {
      name: "a last result the HUD could not read",
      text: '{"version": 1, "lastResult": {"quest": "q", "status": "fail", "counts": {"passed": 0, "failed": 1, "pending": 0}, "checks": "oops"}}',
      problem: /^lastResult\.checks: /,
    },
  ];

  for (const { name, text: json, problem } of cases) {
    it(`${name}: is moved to a .corrupt-<time> backup with its original bytes, and progress starts over`, async () => {
      const { file, store } = storeIn();
      await mkdir(join(file, ".."), { recursive: true });
      // An object is sealed, as a pi-quests bug would have written it: a wrong shape, not an alteration.
      const parsed = (() => {
        try {
          return JSON.parse(json) as unknown;
        } catch {
          return undefined;
        }
      })();
      const text =
        parsed !== null && typeof parsed === "object" && !Array.isArray(parsed)
          ? sealedJson(SEALER, parsed)
          : json;
      await writeFile(file, text);
      const loaded = await store.load();
      expect(loaded).toEqual({
        kind: "recovered",
        progress: emptyProgress(),
        backup: `${file}${BACKUP_SUFFIX}`,
        problem: expect.stringMatching(problem),
      });
      expect(await readFile(`${file}${BACKUP_SUFFIX}`, "utf8")).toBe(text);
      expect(existsSync(file)).toBe(false);
    });
  }

  it("never throws: the next load is fresh, and the next save writes a good file beside the backup", async () => {
    const { file, store } = storeIn();
    await mkdir(join(file, ".."), { recursive: true });
    await writeFile(file, "\u0000\u0001 garbage");
    await expect(store.load()).resolves.toMatchObject({ kind: "recovered" });
    expect(await store.load()).toEqual({ kind: "fresh", progress: emptyProgress() });
    await store.save(fullProgress());
    expect(await store.load()).toEqual({ kind: "loaded", progress: fullProgress() });
    expect((await readdir(join(file, ".."))).sort()).toEqual([
      "progress.json",
      `progress.json${BACKUP_SUFFIX}`,
    ]);
  });

  it("keeps the bytes of a binary file exactly", async () => {
    const { file, store } = storeIn();
    await mkdir(join(file, ".."), { recursive: true });
    const bytes = Buffer.from([0xff, 0xfe, 0x00, 0x7b, 0x80]);
    await writeFile(file, bytes);
    const loaded = await store.load();
    expect(loaded.kind).toBe("recovered");
    expect(await readFile(`${file}${BACKUP_SUFFIX}`)).toEqual(bytes);
  });
});

describe("with a watch: what this process last wrote wins over the disk", () => {
  /** A store that remembers what it writes in `written`, and says what it found changed. */
  function watched(dir = makeWorkspace(), written = new Map<string, string>()) {
    const file = join(dir, "data", "progress.json");
    const changed: (string | undefined)[] = [];
    const watch = { written, changedOnDisk: (backup: string | undefined) => changed.push(backup) };
    return { dir, file, written, changed, store: openProgressStore(file, SEALER, () => NOW, watch) };
  }
  const ALTERED = ".altered-2030-01-02T03-04-05.678Z";
  /** The file rewritten and sealed again with the same key, as code that read the key would. */
  const forge = (file: string) =>
    writeFile(
      file,
      JSON.stringify(
        sealRecord(SEALER, { ...emptyProgress(), completed: { q: { at: "x", definitionHash: "h" } } }),
      ),
    );

  it("a file resealed between two sessions of the process is set aside, and this process's own put back", async () => {
    const first = watched();
    await first.store.save(fullProgress());
    await forge(first.file);
    // The next session of the same process (a /reload): a new store, the same memory.
    const next = watched(first.dir, first.written);
    const loaded = await next.store.load();
    expect(loaded).toEqual({ kind: "loaded", progress: fullProgress() });
    expect(next.changed).toEqual([`${next.file}${ALTERED}`]);
    expect(JSON.parse(await readFile(`${next.file}${ALTERED}`, "utf8")).completed).toHaveProperty("q");
    expect(await readFile(next.file, "utf8")).toBe(first.written.get(first.file));
  });

  it("a file changed while the session is open is set aside and told at the next save, then replaced", async () => {
    const { store, file, changed } = watched();
    expect((await store.load()).kind).toBe("fresh");
    await store.save(fullProgress());
    await forge(file);
    const after = { ...fullProgress(), epochSeq: 9 };
    await store.save(after);
    expect(changed).toEqual([`${file}${ALTERED}`]);
    expect((await openProgressStore(file, SEALER).load()).progress).toEqual(after);
  });

  it("a file removed after this process wrote it is put back, and told", async () => {
    const first = watched();
    await first.store.save(fullProgress());
    await rm(first.file);
    const next = watched(first.dir, first.written);
    expect(await next.store.load()).toEqual({ kind: "loaded", progress: fullProgress() });
    expect(next.changed).toEqual([undefined]);
  });

  it("the file this process loaded and trusts is what it compares with; a new process has nothing to compare", async () => {
    const first = watched();
    await first.store.save(fullProgress());
    // A new Pi process: no memory. The resealed file verifies, and is loaded: the seal's limit.
    await forge(first.file);
    const fresh = watched(first.dir);
    expect((await fresh.store.load()).progress.completed).toHaveProperty("q");
    expect(fresh.changed).toEqual([]);
    // From then on, that file is what this process knows.
    const again = watched(first.dir, fresh.written);
    expect((await again.store.load()).progress.completed).toHaveProperty("q");
    expect(again.changed).toEqual([]);
  });
});
