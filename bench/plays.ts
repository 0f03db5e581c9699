/**
 * `pi-quests test` over a pack, by default the starter pack (fixtures/packs/starter, the copy of
 * what quests/ held before the curriculum: seven plays, so the row stays comparable), as a whole
 * process, with `--jobs 1` and `--jobs 2` alternated after a warm-up (Pi's transform cache and
 * Node's compile cache warm for both); and, in the same run, one bare `pi -p hi` with the scripted
 * model that plays use and without pi-quests: the per-run cost of a play against Pi alone. Runs
 * alone too: `node bench/plays.ts [PACK]` (`node bench/plays.ts quests` for the built-in pack).
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative, resolve } from "node:path";
import { performance } from "node:perf_hooks";
import { execa } from "execa";
import { planChains } from "../src/cli/plays/plan.ts";
import { PLAY_MODEL, PLAY_PROVIDER, PLAY_REPLIES_ENV, playRepliesJson } from "../src/core/play-replies.ts";
import { loadQuests } from "../src/verifier/loader.ts";
import { loadPlays } from "../src/verifier/play-loader.ts";
import { median, ms } from "./measure.ts";

const repo = resolve(import.meta.dirname, "..");
const PI = join(repo, "node_modules/@earendil-works/pi-coding-agent/dist/bundle/cli.js");
const BIN = join(repo, "bin/pi-quests.js");
const STARTER_PACK = join(repo, "fixtures/packs/starter");

export type PlaysBench = {
  /** The pack played, relative to the repository. */
  pack: string;
  plays: number;
  /** Pi runs a whole test makes: each play's chain. */
  piRuns: number;
  jobs1: number[];
  jobs2: number[];
  bare: number[];
};

async function timed(work: () => Promise<unknown>): Promise<number> {
  const start = performance.now();
  await work();
  return performance.now() - start;
}

export async function benchPlays(rounds = 3, pack = STARTER_PACK): Promise<PlaysBench> {
  const quests = await loadQuests(pack);
  if (!quests.ok) throw new Error(`the pack ${pack} does not load`);
  const plays = await loadPlays(
    pack,
    quests.value.map((quest) => quest.id),
  );
  if (!plays.ok) throw new Error(`the plays of ${pack} do not load`);
  const chains = planChains(quests.value, plays.value);
  const piRuns = chains.reduce(
    (runs, chain) => runs + (chain.kind === "runnable" ? chain.before.length + 1 : 0),
    0,
  );

  const home = mkdtempSync(join(tmpdir(), "pi-quests-bench-plays-"));
  const replies = join(home, "replies.json");
  writeFileSync(replies, playRepliesJson([[{ text: "Hello!" }]]));
  const env = { HOME: home, PI_CODING_AGENT_DIR: join(home, "agent") };
  const test = (jobs: number) => async () => {
    const run = await execa(
      process.execPath,
      [BIN, "test", pack, "--reporter", "json", "--jobs", String(jobs)],
      {
        env,
        reject: false,
      },
    );
    if (run.exitCode !== 0) throw new Error(`pi-quests test failed (${run.exitCode}): ${run.stderr}`);
  };
  const bare = async () => {
    const args = ["--offline", "--no-session", "-e", join(repo, "src/extension/scripted-model.ts")];
    const run = await execa(
      process.execPath,
      [PI, ...args, "--provider", PLAY_PROVIDER, "--model", PLAY_MODEL, "-p", "hi"],
      {
        cwd: home,
        env: { ...env, [PLAY_REPLIES_ENV]: replies },
        reject: false,
        stdin: "ignore",
      },
    );
    if (run.exitCode !== 0) throw new Error(`pi -p failed: ${run.stderr}`);
  };
  try {
    await test(2)();
    await bare();
    const result: PlaysBench = {
      pack: relative(repo, pack),
      plays: plays.value.length,
      piRuns,
      jobs1: [],
      jobs2: [],
      bare: [],
    };
    for (let round = 0; round < rounds; round++) {
      result.jobs1.push(await timed(test(1)));
      result.jobs2.push(await timed(test(2)));
      for (let i = 0; i < 3; i++) result.bare.push(await timed(bare));
    }
    return result;
  } finally {
    rmSync(home, { recursive: true, force: true });
  }
}

export function playsTable(bench: PlaysBench): string {
  const jobs1 = median(bench.jobs1);
  const jobs2 = median(bench.jobs2);
  const bare = median(bench.bare);
  const perRun = jobs1 / bench.piRuns;
  return [
    "| run | median (ms) | runs | ratio |",
    "|---|---:|---:|---:|",
    `| \`pi-quests test ${bench.pack}/ --jobs 1\` (${bench.plays} plays, ${bench.piRuns} Pi runs) | ${ms(jobs1)} | ${bench.jobs1.length} | 1.00 |`,
    `| \`pi-quests test ${bench.pack}/ --jobs 2\` | ${ms(jobs2)} | ${bench.jobs2.length} | ${(jobs2 / jobs1).toFixed(2)} |`,
    `| one Pi run of a play (\`--jobs 1\` / Pi runs) | ${ms(perRun)} | | ${(perRun / bare).toFixed(2)} × bare \`pi -p\` |`,
    `| bare \`pi -p hi\`, the scripted model, no pi-quests (baseline) | ${ms(bare)} | ${bench.bare.length} | 1.00 |`,
  ].join("\n");
}

if (import.meta.main) {
  const pack = process.argv[2];
  process.stdout.write(`${playsTable(await benchPlays(3, pack ? resolve(pack) : undefined))}\n`);
}
