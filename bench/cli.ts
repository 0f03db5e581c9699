/**
 * The CLI's start, as whole processes, each against `node -e ""` (Node's own start) in the same
 * run, in turns (one run of each case, then the next round), so load on the machine falls on
 * all alike:
 *
 * - `pi-quests lint quests/` of the built package, installed as npm installs it
 *   (bench/built-package.ts), and of the checkout's TypeScript sources; and of one quest file
 *   of the built package, which is the start with little work to do;
 * - `pi-quests check` on the first-file quest (an event, a file and a command check), as a
 *   learner's CI runs it, built and from the sources.
 *
 * And what the built `lint` loads: the bundle's files and Node's modules, counted by a load hook.
 */
import { mkdtempSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { execa } from "execa";
import { modulesLoadedBy } from "../tests/support/modules-loaded.ts";
import { builtPackage } from "./built-package.ts";
import { median, ms, type Timing } from "./measure.ts";

const repo = resolve(import.meta.dirname, "..");

export type CliBench = {
  node: Timing;
  lint: Timing;
  lintSources: Timing;
  lintOne: Timing;
  check: Timing;
  checkSources: Timing;
  /** What the built `lint quests/` loads. */
  loaded: LoadedModules;
};

export type LoadedModules = { bundleFiles: number; bundleBytes: number; nodeModules: number };

/** Each case run once a round, `warmup` rounds unmeasured, then `runs` rounds. */
export async function alternate<K extends string>(
  cases: Record<K, () => Promise<unknown>>,
  runs: number,
  warmup: number,
): Promise<Record<K, Timing>> {
  const names = Object.keys(cases) as K[];
  const times = Object.fromEntries(names.map((name) => [name, [] as number[]])) as Record<K, number[]>;
  for (let round = 0; round < warmup + runs; round++) {
    for (const name of names) {
      const start = performance.now();
      await cases[name]();
      if (round >= warmup) times[name].push(performance.now() - start);
    }
  }
  const timing = (values: number[]): Timing => {
    const sorted = [...values].sort((a, b) => a - b);
    const p90 = sorted[Math.min(sorted.length - 1, Math.floor(0.9 * sorted.length))] ?? Number.NaN;
    return { median: median(values), p90, runs };
  };
  return Object.fromEntries(names.map((name) => [name, timing(times[name])])) as Record<K, Timing>;
}

export async function benchCli(runs = 15): Promise<CliBench> {
  const workspace = mkdtempSync(join(tmpdir(), "pi-quests-bench-"));
  const home = mkdtempSync(join(tmpdir(), "pi-quests-bench-home-"));
  const env = { PI_CODING_AGENT_DIR: join(home, "agent"), HOME: home };
  writeFileSync(join(workspace, "hello.txt"), "hello\n");
  const built = await builtPackage();
  const sourcesBin = join(repo, "bin/pi-quests.js");
  const run = async (bin: string, args: string[], code = 0) => {
    const result = await execa(process.execPath, [bin, ...args], { env, reject: false });
    if (result.exitCode !== code)
      throw new Error(`pi-quests ${args[0]} exited ${result.exitCode}: ${result.stderr}`);
  };
  const checkArgs = [
    "check",
    join(repo, "fixtures/quests/first-file.yaml"),
    "--cwd",
    workspace,
    "--events",
    join(repo, "fixtures/events/first-file-done.jsonl"),
  ];
  try {
    const timings = await alternate(
      {
        node: () => execa(process.execPath, ["-e", ""]),
        lint: () => run(built.bin, ["lint", join(built.root, "quests")]),
        lintSources: () => run(sourcesBin, ["lint", join(repo, "quests")]),
        lintOne: () => run(built.bin, ["lint", join(built.root, "quests/010-first-prompt.yaml")]),
        check: () => run(built.bin, checkArgs),
        checkSources: () => run(sourcesBin, checkArgs),
      },
      runs,
      3,
    );
    return { ...timings, loaded: await loadedBy(built.root, ["lint", join(built.root, "quests")]) };
  } finally {
    built.remove();
    rmSync(workspace, { recursive: true, force: true });
    rmSync(home, { recursive: true, force: true });
  }
}

/** The files of the bundle and Node's modules that `pi-quests ARGS` of the built package loads. */
export async function loadedBy(root: string, args: string[]): Promise<LoadedModules> {
  const loaded = await modulesLoadedBy(root, args);
  const bundle = loaded.filter((url) => url.startsWith("file:"));
  return {
    bundleFiles: bundle.length,
    bundleBytes: bundle.reduce((sum, url) => sum + statSync(new URL(url)).size, 0),
    nodeModules: loaded.filter((url) => url.startsWith("node:")).length,
  };
}

export function cliTable(bench: CliBench): string {
  const row = (label: string, timing: Timing) =>
    `| ${label} | ${ms(timing.median)} | ${ms(timing.p90)} | ${(timing.median / bench.node.median).toFixed(2)} |`;
  const { loaded } = bench;
  return [
    '| command | median (ms) | p90 (ms) | ratio to `node -e ""` |',
    "|---|---:|---:|---:|",
    row('`node -e ""` (baseline)', bench.node),
    row("`pi-quests lint quests/`, built package (target ≤ 5)", bench.lint),
    row("`pi-quests lint quests/`, checkout's sources", bench.lintSources),
    row("`pi-quests lint quests/010-first-prompt.yaml`, built package", bench.lintOne),
    row("`pi-quests check first-file.yaml --events …`, built package", bench.check),
    row("`pi-quests check first-file.yaml --events …`, checkout's sources", bench.checkSources),
    "",
    `The built \`lint\` loads ${loaded.bundleFiles} files of the bundle (${(loaded.bundleBytes / 1024).toFixed(0)} KB) and ${loaded.nodeModules} of Node's modules.`,
  ].join("\n");
}

if (import.meta.main) {
  const runs = Number(process.argv[2] ?? 20);
  process.stdout.write(`${cliTable(await benchCli(runs))}\n`);
}
