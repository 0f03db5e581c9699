/**
 * Re-evaluating a quest with a command check on an unchanged workspace: the receipt answers it
 * (a fingerprint, a look in the store, no process). Baseline in the same run: the same
 * evaluation without receipts, which runs the check through the isolated verifier.
 *
 * `benchUnchanged`: the same unchanged 10,000-file workspace as a whole `pi-quests check`
 * process and in process (the quest evaluator built once, as the extension's recheck uses it),
 * each against `git status --porcelain` on the same tree, the three alternated in one run.
 * `node bench/receipts.ts [runs]` prints that table alone.
 *
 * `benchJustWritten`: two such workspaces side by side, one checked right after its files were
 * written (then again past the racy window), one written a minute before its first check.
 * `node bench/receipts.ts just-written [runs]` prints that table alone.
 */
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { performance } from "node:perf_hooks";
import { setTimeout } from "node:timers/promises";
import { execa } from "execa";

import { openSealer } from "../src/core/seal.ts";
import { createNodeProbes } from "../src/probes/index.ts";
import { racyWindowMs } from "../src/receipts/fingerprint.ts";
import { createReceiptPort } from "../src/receipts/port.ts";
import { currentHost, openReceiptStore } from "../src/receipts/store.ts";
import { createQuestEvaluator } from "../src/runtime/quest-evaluator.ts";
import { createTaskVerifier } from "../src/task-verifier/index.ts";
import { type CommandCheck, CommandCheckSchema } from "../src/verifier/checks/command.ts";
import { evaluateQuest } from "../src/verifier/evaluate.ts";
import { loadQuestFile } from "../src/verifier/loader.ts";
import { builtPackage } from "./built-package.ts";
import { measure, median, ms, type Timing } from "./measure.ts";

/** The checkout's pi-quests command (its TypeScript sources). */
const CHECKOUT_CLI = resolve(import.meta.dirname, "../bin/pi-quests.js");

/** A pi-quests command a process row runs. */
export type CliUnderTest = { label: string; bin: string };

function makeRepo(base: string, files: number): string {
  const dir = realpathSync(mkdtempSync(join(base, `receipts-repo-${files}-`)));
  for (let i = 0; i < files; i++) {
    const folder = join(dir, "src", `m${Math.floor(i / 100)}`);
    if (i % 100 === 0) mkdirSync(folder, { recursive: true });
    writeFileSync(join(folder, `f${i}.js`), `export const value${i} = ${i};\n`);
  }
  mkdirSync(join(dir, "test"));
  writeFileSync(join(dir, "test/check.sh"), "test -f src/m0/f0.js\n");
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
  writeFileSync(join(dir, "src/m0/f0.js"), "export const value0 = 42;\n");
  return dir;
}

export type ReceiptRow = { files: number; reused: Timing; ran: Timing };

export async function benchReceipts(base: string, sizes = [100, 10_000]): Promise<ReceiptRow[]> {
  mkdirSync(base, { recursive: true });
  const rows: ReceiptRow[] = [];
  const check: CommandCheck = {
    ...CommandCheckSchema.parse({ type: "command", run: "bash test/check.sh" }),
    id: "check",
  };
  for (const files of sizes) {
    const workspace = makeRepo(base, files);
    const dataDir = realpathSync(mkdtempSync(join(base, "receipts-data-")));
    try {
      const made = await createTaskVerifier({ workspace, dataDir, checks: [{ questId: "bench", check }] });
      if (!made.ok) throw new Error(made.message);
      const probes = createNodeProbes({ runIsolated: made.verifier.run });
      const store = await openReceiptStore(join(dataDir, "receipts"), { sealer: openSealer(dataDir) });
      const context = {
        probes,
        events: [],
        paths: { workspace, agentDir: dataDir, home: dataDir },
        questId: "bench",
      };
      const evaluate = async (withReceipts: boolean) => {
        const receipts = withReceipts
          ? createReceiptPort({ store, workspace, baseline: made.verifier.baseline, host: currentHost() })
          : undefined;
        // With receipts, the evaluation ends with their recheck.
        const final = await evaluateQuest(
          { id: "bench", checks: [check] },
          { ...context, ...(receipts ? { receipts } : {}) },
        );
        if (final.status !== "pass")
          throw new Error(`the bench quest did not pass: ${JSON.stringify(final.checks[0]?.evidence)}`);
        return final;
      };
      await evaluate(true); // the run that leaves the receipt
      const reused = await measure(() => evaluate(true), 20, 3);
      const ran = await measure(() => evaluate(false), 5, 1);
      rows.push({ files, reused, ran });
    } finally {
      rmSync(workspace, { recursive: true, force: true });
      rmSync(dataDir, { recursive: true, force: true });
    }
  }
  return rows;
}

export function receiptsTable(rows: ReceiptRow[]): string {
  return [
    "| files | re-evaluation answered by the receipt, median (ms) | p90 (ms) | the same evaluation running the check, median (ms) | ratio |",
    "|---:|---:|---:|---:|---:|",
    ...rows.map(
      ({ files, reused, ran }) =>
        `| ${files.toLocaleString("en")} | ${ms(reused.median)} | ${ms(reused.p90)} | ${ms(ran.median)} | ${(reused.median / ran.median).toFixed(2)} |`,
    ),
  ].join("\n");
}

export type UnchangedRow = {
  files: number;
  gitStatus: number;
  processes: { label: string; median: number }[];
  inProcess: number;
  runs: number;
};

/**
 * The unchanged workspace (one file edited since HEAD, a fresh receipt for its one command check)
 * answered as a whole `pi-quests check` process and in process, against `git status --porcelain`
 * on the same tree; medians of `runs` rounds after `warmup`, the three alternated in each round.
 */
export async function benchUnchanged(
  base: string,
  files = 10_000,
  runs = 15,
  warmup = 2,
  clis: readonly CliUnderTest[] = [{ label: "the checkout's sources", bin: CHECKOUT_CLI }],
): Promise<UnchangedRow> {
  mkdirSync(base, { recursive: true });
  const workspace = makeRepo(base, files);
  const home = realpathSync(mkdtempSync(join(base, "unchanged-home-")));
  const dataDir = join(home, "data");
  const agentDir = join(home, "agent");
  const questFile = join(home, "quest.yaml");
  writeFileSync(
    questFile,
    "version: 1\nid: bench\ntitle: Bench\ngoal: g\nchecks:\n  - id: check\n    type: command\n    run: bash test/check.sh\n",
  );
  const env = { ...process.env, HOME: home, PI_CODING_AGENT_DIR: agentDir };
  try {
    const quest = await loadQuestFile(questFile);
    if (!quest.ok) throw new Error(`the bench quest does not load: ${JSON.stringify(quest)}`);
    const gitStatus = async () => {
      await execa("git", ["status", "--porcelain"], { cwd: workspace });
    };
    const cliCheck = (cli: string) => async () => {
      const run = await execa(
        process.execPath,
        [cli, "check", questFile, "--cwd", workspace, "--data-dir", dataDir, "--json"],
        { env, reject: false },
      );
      const reused = run.exitCode === 0 && JSON.parse(run.stdout).checks[0]?.evidence?.receipt?.reused;
      if (reused !== true)
        throw new Error(`the check was not answered from its receipt: ${run.stdout}${run.stderr}`);
    };
    const evaluate = await createQuestEvaluator({
      quest: quest.value,
      workspace,
      baseline: execFileSync("git", ["rev-parse", "HEAD"], { cwd: workspace }).toString().trim(),
      dataDir,
      writer: "cli",
      agentDir,
      home,
      env,
      confirmed: () => undefined,
    });
    const inProcess = async () => {
      const result = await evaluate({ events: [] });
      const evidence = result.checks[0]?.evidence;
      if (result.status !== "pass" || evidence?.kind !== "command" || evidence.receipt?.reused !== true)
        throw new Error(`the evaluation was not answered from its receipt: ${JSON.stringify(evidence)}`);
    };
    // The first check runs the command and leaves the receipt: each CLI's own (another version
    // of pi-quests may keep its receipts elsewhere), the in-process evaluator's the checkout's.
    // Then the files are left alone past the racy window, as an unchanged workspace is: until then
    // no fingerprint leaves a stat record.
    const written = Date.now();
    for (const bin of new Set([CHECKOUT_CLI, ...clis.map((cli) => cli.bin)]))
      await execa(process.execPath, [bin, "check", questFile, "--cwd", workspace, "--data-dir", dataDir], {
        env,
      });
    const window = racyWindowMs();
    if (window !== undefined) await setTimeout(Math.max(0, written + window + 1_000 - Date.now()));
    const works = [gitStatus, inProcess, ...clis.map((cli) => cliCheck(cli.bin))];
    const times: number[][] = works.map(() => []);
    for (let round = 0; round < warmup + runs; round++) {
      // The order turns each round, so none always follows the same one.
      for (let k = 0; k < works.length; k++) {
        const at = (round + k) % works.length;
        const start = performance.now();
        await (works[at] as () => Promise<void>)();
        if (round >= warmup) times[at]?.push(performance.now() - start);
      }
    }
    const [git = [], inside = [], ...processes] = times;
    return {
      files,
      gitStatus: median(git),
      processes: clis.map((cli, i) => ({ label: cli.label, median: median(processes[i] ?? []) })),
      inProcess: median(inside),
      runs,
    };
  } finally {
    rmSync(workspace, { recursive: true, force: true });
    rmSync(home, { recursive: true, force: true });
  }
}

export function unchangedTable({ files, gitStatus, processes, inProcess, runs }: UnchangedRow): string {
  const ratio = (value: number) => `${(value / gitStatus).toFixed(1)}x`;
  return [
    `| ${files.toLocaleString("en")} files, one command check, fresh receipt (median of ${runs}) | median (ms) | ratio to \`git status --porcelain\` | goal |`,
    "|---|---:|---:|---:|",
    `| \`git status --porcelain\` (baseline) | ${ms(gitStatus)} | 1.0x | |`,
    ...processes.map(
      (row) =>
        `| \`pi-quests check\`, a whole process, ${row.label} | ${ms(row.median)} | ${ratio(row.median)} | 8x |`,
    ),
    `| in process (the quest evaluator built once: the extension's recheck) | ${ms(inProcess)} | ${ratio(inProcess)} | 3x |`,
  ].join("\n");
}

/** The unchanged workspace with the packed package's CLI (as npm installs it) beside the checkout's. */
export async function benchUnchangedWithBuilt(base: string, runs = 15): Promise<UnchangedRow> {
  const built = await builtPackage();
  try {
    return await benchUnchanged(base, 10_000, runs, 2, [
      { label: "the packed package installed", bin: built.bin },
      { label: "the checkout's sources", bin: CHECKOUT_CLI },
    ]);
  } finally {
    built.remove();
  }
}

/** The quest the process rows check: one command check (isolation `worktree`), outside any package. */
const BENCH_QUEST =
  "version: 1\nid: bench\ntitle: Bench\ngoal: g\nchecks:\n  - id: check\n    type: command\n    run: bash test/check.sh\n";

/** `git status --porcelain` in `workspace`: the baseline, timed (ms). */
async function timeGitStatus(workspace: string): Promise<number> {
  const start = performance.now();
  await execa("git", ["status", "--porcelain"], { cwd: workspace });
  return performance.now() - start;
}

/**
 * One `pi-quests check QUEST --cwd WORKSPACE --json` process, timed (ms); it must pass, answered
 * from its receipt (`reused`) or by running the check (`ran`).
 */
async function timeCheck(
  bin: string,
  run: { questFile: string; workspace: string; dataDir: string; env: Record<string, string | undefined> },
  expected: "reused" | "ran",
): Promise<number> {
  const start = performance.now();
  const done = await execa(
    process.execPath,
    [bin, "check", run.questFile, "--cwd", run.workspace, "--data-dir", run.dataDir, "--json"],
    { env: run.env, reject: false },
  );
  const elapsed = performance.now() - start;
  const evidence = done.exitCode === 0 ? JSON.parse(done.stdout).checks[0]?.evidence : undefined;
  if (evidence?.receipt?.reused !== (expected === "reused"))
    throw new Error(
      `the check did not pass ${expected === "reused" ? "from its receipt" : "by running"}: ${done.stdout}${done.stderr}`,
    );
  return elapsed;
}

/** A row of the just-written bench: which workspace, and each CLI's timings of its checks (ms). */
export type JustWrittenCase = { label: string; workspace: "a" | "b"; times: number[][] };

export type JustWrittenResult = {
  clis: string[];
  runs: number;
  /** The racy window (ms; stat-record.ts racyWindowMs), undefined when the kernel gives none. */
  windowMs: number | undefined;
  /** Median `git status --porcelain` of each workspace over the rounds (ms). */
  gitStatus: { a: number; b: number };
  cases: JustWrittenCase[];
};

/**
 * Two unchanged 10,000-file workspaces (one file edited since HEAD, one command check), checked
 * as whole `pi-quests check` processes by each CLI, each with a data dir of its own: (a) checked
 * right after its files were written, three times more within the racy window, then past it
 * (the first check there renews the stat record, the next ones answer from it) and (b) written a
 * minute before its first check. After the window, `runs` rounds alternate `git status
 * --porcelain` in each workspace with every CLI's check of each, the order turning each round.
 */
export async function benchJustWritten(
  base: string,
  runs = 15,
  clis: readonly CliUnderTest[] = [{ label: "the checkout's sources", bin: CHECKOUT_CLI }],
): Promise<JustWrittenResult> {
  mkdirSync(base, { recursive: true });
  const home = realpathSync(mkdtempSync(join(base, "just-written-home-")));
  const questFile = join(home, "quest.yaml");
  writeFileSync(questFile, BENCH_QUEST);
  const env = { ...process.env, HOME: home, PI_CODING_AGENT_DIR: join(home, "agent") };
  const workspaces: string[] = [];
  const windowMs = racyWindowMs();
  try {
    const b = makeRepo(base, 10_000);
    workspaces.push(b);
    const bWritten = Date.now();
    await setTimeout(Math.max(0, bWritten + 60_000 - Date.now()));
    const a = makeRepo(base, 10_000);
    workspaces.push(a);
    const aWritten = Date.now();
    const runOf = (workspace: string, cli: number) => ({
      questFile,
      workspace,
      dataDir: join(home, `data-${cli}`),
      env,
    });
    const each = async (workspace: string, expected: "reused" | "ran") => {
      const times: number[] = [];
      for (const [i, cli] of clis.entries())
        times.push(await timeCheck(cli.bin, runOf(workspace, i), expected));
      return times;
    };
    const row = (label: string, workspace: "a" | "b"): JustWrittenCase => ({
      label,
      workspace,
      times: clis.map(() => []),
    });
    const add = (into: JustWrittenCase, times: number[]) => {
      for (const [i, time] of times.entries()) into.times[i]?.push(time);
    };
    const aFirst = row("(a) first check, right after the files were written (runs the check)", "a");
    const aWithin = row("(a) checks 2 to 4, within the racy window", "a");
    const aRenewal = row("(a) first check past the racy window", "a");
    const aLater = row("(a) later checks", "a");
    const bFirst = row("(b) first check, a minute after the files were written (runs the check)", "b");
    const bLater = row("(b) later checks", "b");
    add(aFirst, await each(a, "ran"));
    for (let i = 0; i < 3; i++) add(aWithin, await each(a, "reused"));
    if (windowMs !== undefined && Date.now() >= aWritten + windowMs)
      throw new Error("the racy window passed before the checks within it were done");
    add(bFirst, await each(b, "ran"));
    if (windowMs !== undefined) await setTimeout(Math.max(0, aWritten + windowMs + 1_000 - Date.now()));
    add(aRenewal, await each(a, "reused"));
    const git = { a: [] as number[], b: [] as number[] };
    const works: (() => Promise<void>)[] = [
      async () => void git.a.push(await timeGitStatus(a)),
      async () => void git.b.push(await timeGitStatus(b)),
      ...clis.flatMap((cli, i) => [
        async () => void aLater.times[i]?.push(await timeCheck(cli.bin, runOf(a, i), "reused")),
        async () => void bLater.times[i]?.push(await timeCheck(cli.bin, runOf(b, i), "reused")),
      ]),
    ];
    for (let round = 0; round < runs; round++) {
      for (let k = 0; k < works.length; k++)
        await (works[(round + k) % works.length] as () => Promise<void>)();
    }
    return {
      clis: clis.map((cli) => cli.label),
      runs,
      windowMs,
      gitStatus: { a: median(git.a), b: median(git.b) },
      cases: [aFirst, aWithin, aRenewal, aLater, bFirst, bLater],
    };
  } finally {
    for (const workspace of workspaces) rmSync(workspace, { recursive: true, force: true });
    rmSync(home, { recursive: true, force: true });
  }
}

export function justWrittenTable({ clis, runs, windowMs, gitStatus, cases }: JustWrittenResult): string {
  const window =
    windowMs === undefined
      ? "no racy window: no stat record"
      : `racy window ${(windowMs / 1000).toFixed(0)} s`;
  return [
    `| 10,000 files, one command check (${window}; later checks: median of ${runs}) | checks | ${clis.map((cli) => `\`pi-quests check\`, ${cli}, median (ms) | ratio to \`git status\``).join(" | ")} |`,
    `|---|---:|${clis.map(() => "---:|---:|").join("")}`,
    `| \`git status --porcelain\` in (a) (baseline) | ${runs} | ${clis.map(() => `${ms(gitStatus.a)} | 1.0x`).join(" | ")} |`,
    `| \`git status --porcelain\` in (b) (baseline) | ${runs} | ${clis.map(() => `${ms(gitStatus.b)} | 1.0x`).join(" | ")} |`,
    ...cases.map(({ label, workspace, times }) => {
      const baseline = gitStatus[workspace];
      const cells = times.map((own) => {
        const value = median(own);
        return `${ms(value)} | ${(value / baseline).toFixed(1)}x`;
      });
      return `| ${label} | ${times[0]?.length ?? 0} | ${cells.join(" | ")} |`;
    }),
  ].join("\n");
}

/** The just-written workspaces with the packed package's CLI, as npm installs it. */
export async function benchJustWrittenWithBuilt(base: string, runs = 15): Promise<JustWrittenResult> {
  const built = await builtPackage();
  try {
    return await benchJustWritten(base, runs, [{ label: "the packed package installed", bin: built.bin }]);
  } finally {
    built.remove();
  }
}

if (import.meta.main) {
  const base = realpathSync(mkdtempSync(join(tmpdir(), "pi-quests-bench-unchanged-")));
  try {
    if (process.argv[2] === "just-written") {
      const runs = Number(process.argv[3] ?? 15);
      process.stdout.write(`${justWrittenTable(await benchJustWrittenWithBuilt(base, runs))}\n`);
    } else {
      const runs = Number(process.argv[2] ?? 15);
      process.stdout.write(`${unchangedTable(await benchUnchangedWithBuilt(base, runs))}\n`);
    }
  } finally {
    rmSync(base, { recursive: true, force: true });
  }
}
