/**
 * The content fingerprint's cost: a committed repository of 10,000 files of 10 KB
 * (about 100 MB) in nested folders, with 20 files then edited. The fast path reads git's listing
 * and the 20 edited files; the full one reads every file. Measured twice: right after the commit,
 * when HEAD's objects are loose files (`ls-tree -l` opens each for its size), then after `git gc`
 * packs them, as in a cloned repository. Default limits; the files stay in the page cache between
 * runs, so these are warm-cache figures.
 */
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fastFingerprint, fullFingerprint } from "../src/receipts/fingerprint.ts";
import { measure, ms, type Timing } from "./measure.ts";

export type FingerprintRow = {
  path: "fast" | "full";
  objects: "loose" | "packed";
  files: number;
  megabytes: number;
  edited: number;
  timing: Timing;
};

const FILES = 10_000;
const FILE_BYTES = 10 * 1024;
const EDITED = 20;

/** xorshift32: deterministic bytes that zlib cannot shrink, like real binary content. */
function noise(seed: number, length: number): Buffer {
  const words = new Uint32Array(Math.ceil(length / 4));
  let state = seed | 1;
  for (let i = 0; i < words.length; i++) {
    state ^= state << 13;
    state ^= state >>> 17;
    state ^= state << 5;
    words[i] = state >>> 0;
  }
  return Buffer.from(words.buffer, 0, length);
}

/** `src/d{0..9}/d{0..9}/f{i}.bin`: 100 folders of 100 files, two levels deep. */
const pathOf = (i: number) => `src/d${Math.floor(i / 1000)}/d${Math.floor(i / 100) % 10}/f${i}.bin`;

type Git = (...args: string[]) => void;

function makeRepo(base: string): { dir: string; git: Git } {
  const dir = realpathSync(mkdtempSync(join(base, "fingerprint-")));
  for (let i = 0; i < FILES; i++) {
    if (i % 100 === 0) mkdirSync(join(dir, pathOf(i), ".."), { recursive: true });
    writeFileSync(join(dir, pathOf(i)), noise(i + 1, FILE_BYTES));
  }
  const git: Git = (...args) =>
    execFileSync(
      "git",
      [
        ...["-c", "user.name=b", "-c", "user.email=b@b", "-c", "commit.gpgsign=false"],
        // No background `gc --auto` during the runs; no zlib work on 100 MB of noise in the setup.
        ...["-c", "gc.auto=0", "-c", "core.compression=0"],
        ...args,
      ],
      { cwd: dir, stdio: "ignore" },
    );
  git("init", "-q", "-b", "main");
  git("add", "-A");
  git("commit", "-q", "-m", "baseline");
  // The learner's change: 20 files spread over the tree, same size, new bytes.
  for (let k = 0; k < EDITED; k++) {
    writeFileSync(join(dir, pathOf(k * (FILES / EDITED))), noise(1_000_000 + k, FILE_BYTES));
  }
  return { dir, git };
}

/** Builds the repository under `base` (created if needed), measures both paths, removes it. */
export async function benchFingerprint(base: string): Promise<FingerprintRow[]> {
  mkdirSync(base, { recursive: true });
  const { dir, git } = makeRepo(base);
  const shape = { files: FILES, megabytes: Math.round((FILES * FILE_BYTES) / 1e6), edited: EDITED };
  const values = new Set<string>();
  const run = async (path: "fast" | "full", runs: number, warmup: number) =>
    measure(
      async () => {
        const outcome = await (path === "fast" ? fastFingerprint(dir) : fullFingerprint(dir));
        if (!outcome.ok) throw new Error(`the ${path} fingerprint failed: ${outcome.reason}`);
        if (outcome.path !== path) throw new Error(`asked for the ${path} path, got ${outcome.path}`);
        values.add(outcome.fingerprint.value);
      },
      runs,
      warmup,
    );
  try {
    const rows: FingerprintRow[] = [];
    for (const objects of ["loose", "packed"] as const) {
      if (objects === "packed") git("gc", "-q");
      rows.push({ path: "fast", objects, ...shape, timing: await run("fast", 15, 3) });
      rows.push({ path: "full", objects, ...shape, timing: await run("full", 7, 2) });
    }
    if (values.size !== 1) throw new Error("the fast and full fingerprints differ");
    return rows;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

export function fingerprintTable(rows: FingerprintRow[]): string {
  const lines = [
    "| Path | HEAD's objects | Files | Size | Edited since HEAD | Median (ms) | p90 (ms) | Runs |",
    "|---|---|---:|---:|---:|---:|---:|---:|",
  ];
  for (const { path, objects, files, megabytes, edited, timing } of rows) {
    const label = path === "fast" ? "fast (git listing + edited files)" : "full (every file read)";
    const count = files.toLocaleString("en-US");
    lines.push(
      `| ${label} | ${objects} | ${count} | ${megabytes} MB | ${edited} | ${ms(timing.median)} | ${ms(timing.p90)} | ${timing.runs} |`,
    );
  }
  return lines.join("\n");
}
