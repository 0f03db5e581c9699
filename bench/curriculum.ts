/**
 * The built-in curriculum as an author meets it: `pi-quests lint quests/` as a whole process
 * (median of several, against a bare `node -e ""` in the same run), and one `pi-quests test
 * quests/ --jobs 2`: its wall time, the plays, and the slowest play (its chain included, as the
 * report's durationMs counts it). Runs alone too: `node bench/curriculum.ts [ROUNDS]`.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { performance } from "node:perf_hooks";
import { execa } from "execa";
import { median, ms } from "./measure.ts";

const repo = resolve(import.meta.dirname, "..");
const BIN = join(repo, "bin/pi-quests.js");
const PACK = join(repo, "quests");

export type CurriculumBench = {
  quests: number;
  lint: number[];
  bareNode: number[];
  testWallMs: number;
  plays: number;
  slowest: { name: string; durationMs: number };
};

type JsonPlay = { quest: string; play: string; ok: boolean; durationMs: number };

async function timed(work: () => Promise<unknown>): Promise<number> {
  const start = performance.now();
  await work();
  return performance.now() - start;
}

export async function benchCurriculum(rounds = 7): Promise<CurriculumBench> {
  const home = mkdtempSync(join(tmpdir(), "pi-quests-bench-curriculum-"));
  const env = { HOME: home, PI_CODING_AGENT_DIR: join(home, "agent") };
  try {
    let quests = 0;
    const lint = async () => {
      const run = await execa(process.execPath, [BIN, "lint", PACK], { env, reject: false });
      if (run.exitCode !== 0) throw new Error(`pi-quests lint quests/ failed: ${run.stdout}${run.stderr}`);
      quests = Number(/^(\d+) quest/.exec(run.stdout)?.[1] ?? 0);
    };
    const bare = () => execa(process.execPath, ["-e", ""]);
    await lint();
    const result = { lint: [] as number[], bareNode: [] as number[] };
    for (let round = 0; round < rounds; round++) {
      result.lint.push(await timed(lint));
      result.bareNode.push(await timed(bare));
    }
    let report: { plays: JsonPlay[] } = { plays: [] };
    const testWallMs = await timed(async () => {
      const run = await execa(process.execPath, [BIN, "test", PACK, "--jobs", "2", "--reporter", "json"], {
        env,
        reject: false,
      });
      if (run.exitCode !== 0)
        throw new Error(`pi-quests test quests/ failed (${run.exitCode}): ${run.stderr}`);
      report = JSON.parse(run.stdout);
    });
    const slowest = [...report.plays].sort((a, b) => b.durationMs - a.durationMs)[0];
    return {
      quests,
      ...result,
      testWallMs,
      plays: report.plays.length,
      slowest: {
        name: slowest ? `${slowest.quest}/${slowest.play}` : "none",
        durationMs: slowest?.durationMs ?? 0,
      },
    };
  } finally {
    rmSync(home, { recursive: true, force: true });
  }
}

export function curriculumTable(bench: CurriculumBench): string {
  const lint = median(bench.lint);
  const bare = median(bench.bareNode);
  return [
    "| run | median (ms) | runs | ratio |",
    "|---|---:|---:|---:|",
    `| \`pi-quests lint quests/\` (${bench.quests} quests) | ${ms(lint)} | ${bench.lint.length} | ${(lint / bare).toFixed(2)} × bare node |`,
    `| bare \`node -e ""\` (baseline) | ${ms(bare)} | ${bench.bareNode.length} | 1.00 |`,
    `| \`pi-quests test quests/ --jobs 2\` (${bench.plays} plays), wall time | ${ms(bench.testWallMs)} | 1 | |`,
    `| its slowest play, \`${bench.slowest.name}\` (chain included) | ${ms(bench.slowest.durationMs)} | 1 | |`,
  ].join("\n");
}

if (import.meta.main) {
  const rounds = Number(process.argv[2] ?? 7);
  process.stdout.write(`${curriculumTable(await benchCurriculum(rounds))}\n`);
}
