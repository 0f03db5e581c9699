/**
 * What `changedPaths` costs a tool call (src/receipts/changed-paths.ts): the look before it and
 * the look after it, with the comparison, on committed git workspaces of 100 and 10,000 small
 * files (100 folders), against `git status --porcelain` on the same tree in the same run. Each
 * round runs git status, a call that changes nothing, a call that edits one file (its write not
 * timed), and a call that changes nothing with no worker thread (every lstat on Pi's thread), in
 * turns; the files are left alone past the timestamp granularity first, as a workspace is
 * between a learner's prompts. One more case at 10,000 files: a call that creates 10,000 files
 * (the list cut at 200), its looks timed, a few runs (creating the files is slow).
 * git is started with node:child_process, as Pi's own tools start a process: its start is part
 * of its figure. `node bench/changed-paths.ts [ROUNDS]` prints this section alone.
 */
import { execFile, execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { setTimeout } from "node:timers/promises";
import { promisify } from "node:util";
import { type ChangeLooks, createChangeLooks } from "../src/receipts/changed-paths.ts";
import { TIMESTAMP_GRANULARITY_MS } from "../src/receipts/fingerprint.ts";
import { median, ms } from "./measure.ts";

const run = promisify(execFile);

export type ChangedPathsRow = {
  files: number;
  rounds: number;
  gitStatus: number;
  /** Medians (ms) of the two looks and the comparison, the call's own work left out. */
  unchanged: number;
  editedOne: number;
  /** A call that changes nothing with every lstat on Pi's thread (no worker). */
  unchangedAlone: number;
};

export type ManyChangesRow = {
  files: number;
  created: number;
  runs: number;
  /** Medians (ms) of the looks of the call that creates the files, of the call right after it, and of a call once the tree settled. */
  creating: number;
  next: number;
  settled: number;
  listed: number;
};

export type ChangedPathsBench = { rows: ChangedPathsRow[]; many: ManyChangesRow; load: number[] };

function makeRepo(base: string, files: number): string {
  const dir = realpathSync(mkdtempSync(join(base, `changed-paths-${files}-`)));
  for (let i = 0; i < files; i++) {
    const folder = join(dir, "src", `m${i % 100}`);
    if (i < 100) mkdirSync(folder, { recursive: true });
    writeFileSync(join(folder, `f${i}.js`), `export const value${i} = ${i};\n`);
  }
  const git = (...args: string[]) =>
    execFileSync(
      "git",
      ["-c", "user.name=b", "-c", "user.email=b@b", "-c", "commit.gpgsign=false", ...args],
      {
        cwd: dir,
        stdio: "ignore",
      },
    );
  git("init", "-q", "-b", "main");
  git("add", "-A");
  git("commit", "-q", "-m", "baseline");
  return dir;
}

/** The time of a call's two looks and its comparison; `work` (the call itself) runs between them, untimed. */
async function lookedAt(looks: ChangeLooks, work: () => void): Promise<{ ms: number; listed: number }> {
  const start = performance.now();
  const call = await looks.before();
  const looked = performance.now() - start;
  work();
  const end = performance.now();
  const changes = await call?.after();
  if (changes === undefined) throw new Error(`no look: ${looks.refusal()}`);
  return { ms: looked + performance.now() - end, listed: changes.paths.length };
}

async function benchSize(
  base: string,
  files: number,
  rounds: number,
  warmup: number,
): Promise<ChangedPathsRow> {
  const workspace = makeRepo(base, files);
  const looks = createChangeLooks(workspace);
  const alone = createChangeLooks(workspace, { workers: 0 });
  try {
    await setTimeout(TIMESTAMP_GRANULARITY_MS + 500);
    const edited = join(workspace, "src/m0/f0.js");
    let edits = 0;
    const gitStatus = async () => {
      const start = performance.now();
      await run("git", ["status", "--porcelain"], { cwd: workspace });
      return performance.now() - start;
    };
    const unchanged = async () => (await lookedAt(looks, () => {})).ms;
    const editOne = async () =>
      (await lookedAt(looks, () => writeFileSync(edited, `export const value0 = ${++edits};\n`))).ms;
    const unchangedAlone = async () => (await lookedAt(alone, () => {})).ms;
    const works = [gitStatus, unchanged, editOne, unchangedAlone];
    const times: number[][] = works.map(() => []);
    for (let round = 0; round < warmup + rounds; round++) {
      for (let k = 0; k < works.length; k++) {
        const at = (round + k) % works.length;
        const took = await (works[at] as () => Promise<number>)();
        if (round >= warmup) times[at]?.push(took);
      }
    }
    return {
      files,
      rounds,
      gitStatus: median(times[0] ?? []),
      unchanged: median(times[1] ?? []),
      editedOne: median(times[2] ?? []),
      unchangedAlone: median(times[3] ?? []),
    };
  } finally {
    await Promise.all([looks.close(), alone.close()]);
    rmSync(workspace, { recursive: true, force: true });
  }
}

/**
 * A call that creates `created` files in a workspace of `files`, `runs` times: its looks; the
 * next call's (right after it: the new files are racy, some are read); and a call on the same
 * tree once it has settled, the looks alone at that size: what the first costs beyond them is
 * the list, its sort and its cut.
 */
async function benchManyChanges(
  base: string,
  files: number,
  created: number,
  runs: number,
): Promise<ManyChangesRow> {
  const workspace = makeRepo(base, files);
  const looks = createChangeLooks(workspace);
  const settle = () => setTimeout(TIMESTAMP_GRANULARITY_MS + 500);
  try {
    await settle();
    const creating: number[] = [];
    const next: number[] = [];
    const settled: number[] = [];
    let listed = 0;
    const folder = join(workspace, "generated-by-the-call");
    for (let at = 0; at < runs; at++) {
      const done = await lookedAt(looks, () => {
        mkdirSync(folder);
        for (let i = 0; i < created; i++) writeFileSync(join(folder, `out${i}.txt`), `${i}\n`);
      });
      creating.push(done.ms);
      listed = done.listed;
      next.push((await lookedAt(looks, () => {})).ms);
      await settle();
      settled.push((await lookedAt(looks, () => {})).ms);
      rmSync(folder, { recursive: true, force: true });
      await lookedAt(looks, () => {});
      await settle();
    }
    return {
      files,
      created,
      runs,
      creating: median(creating),
      next: median(next),
      settled: median(settled),
      listed,
    };
  } finally {
    await looks.close();
    rmSync(workspace, { recursive: true, force: true });
  }
}

const loadAverage = () => Number(execFileSync("cat", ["/proc/loadavg"]).toString().split(" ")[0]);

export async function benchChangedPaths(
  base = join(homedir(), ".cache", "pi-quests-bench-changed"),
  rounds = 21,
): Promise<ChangedPathsBench> {
  mkdirSync(base, { recursive: true });
  try {
    const load = [loadAverage()];
    const rows = [await benchSize(base, 100, rounds * 2, 3), await benchSize(base, 10_000, rounds, 3)];
    load.push(loadAverage());
    const many = await benchManyChanges(base, 10_000, 10_000, 3);
    load.push(loadAverage());
    return { rows, many, load };
  } finally {
    rmSync(base, { recursive: true, force: true });
  }
}

export function changedPathsTable({ rows, many, load }: ChangedPathsBench): string {
  const ratio = (value: number, of: number) => `${(value / of).toFixed(2)} ×`;
  return [
    "| files | rounds | `git status --porcelain` (ms) | a call that changes nothing: looks (ms) | ratio | a call that edits one file: looks (ms) | ratio | changes nothing, no worker thread (ms) | ratio |",
    "|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ...rows.map(
      (row) =>
        `| ${row.files.toLocaleString("en-US")} | ${row.rounds} | ${ms(row.gitStatus)} | ${ms(row.unchanged)} | ${ratio(row.unchanged, row.gitStatus)} | ${ms(row.editedOne)} | ${ratio(row.editedOne, row.gitStatus)} | ${ms(row.unchangedAlone)} | ${ratio(row.unchangedAlone, row.gitStatus)} |`,
    ),
    "",
    `A call that creates ${many.created.toLocaleString("en-US")} files in a workspace of ${many.files.toLocaleString("en-US")} (medians of ${many.runs}): its looks ${ms(many.creating)} ms, ${many.listed} paths listed and the list cut; the next call's looks ${ms(many.next)} ms (the new files are racy: up to 500 of them are read); a call on the same ${(many.files + many.created).toLocaleString("en-US")} files once settled ${ms(many.settled)} ms.`,
    "",
    `Load average (1 min) at the start, after the two sizes, at the end: ${load.map((value) => value.toFixed(2)).join(", ")}.`,
  ].join("\n");
}

if (import.meta.main) {
  process.stdout.write(
    `${changedPathsTable(await benchChangedPaths(undefined, Number(process.argv[2] ?? 21)))}\n`,
  );
}
