/**
 * What discovering quest packs costs Pi's start: five pack packages installed (Pi's settings
 * list five local packages, each a pack made by `pi-quests init`) against none, in one run.
 *
 * 1. The real `pi --mode rpc -e src/extension/index.ts` with the scripted model, until the HUD's
 *    first `setWidget` (the quest session is open: the packs were found and the active one
 *    loaded), the two agent dirs alternated run by run (which goes first swapped every pair).
 * 2. Pi alone (no pi-quests) until it answers `get_state`, in the same alternation: what the
 *    five packages cost Pi itself, which pi-quests cannot change.
 * 3. In this process: every pack found (Pi's package list and trust through Pi's own classes,
 *    every pack.yaml read: what `/quest packs` and Tab do), and the active pack chosen at a
 *    session's start (the built-in pack needs no look at Pi's packages), five packages and none.
 *
 * Under ~/.cache/pi-quests-bench-packs, removed at the end. `node bench/packs.ts [RUNS]`.
 */
import { spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { homedir } from "node:os";
import { join, resolve } from "node:path";
import { performance } from "node:perf_hooks";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import * as Pi from "@earendil-works/pi-coding-agent";
import { execa } from "execa";
import { PI, scriptedPiArgs } from "../scripts/pi-rpc.ts";
import { chooseActivePack, packPlaces } from "../src/extension/quest-packs.ts";
import { BUILT_IN_PACK } from "../src/extension/session.ts";
import { findPacks } from "../src/runtime/packs.ts";
import { measure, median, ms } from "./measure.ts";

const repo = resolve(import.meta.dirname, "..");
const PACKAGES = 5;

type Setup = { agentDir: string; workspace: string; script: string };

export type PacksBench = {
  runs: number;
  start: { none: number; five: number; delta: number; ratio: number };
  /** Pi alone (no pi-quests), until it answers get_state: what the five packages cost Pi itself. */
  piAlone: { none: number; five: number; delta: number };
  discovery: { none: number; five: number; delta: number };
  /** What a session's start does: the active pack chosen (the built-in one here). */
  choose: { none: number; five: number; delta: number };
};

/** An agent dir with `count` pack packages installed (local folders in Pi's settings). */
async function agentWith(base: string, name: string, count: number): Promise<Setup> {
  const dir = join(base, name);
  const agentDir = join(dir, "agent");
  const workspace = join(dir, "workspace");
  mkdirSync(agentDir, { recursive: true });
  mkdirSync(workspace, { recursive: true });
  const packages: string[] = [];
  for (let i = 1; i <= count; i++) {
    const pack = join(dir, `pack-${i}`);
    await execa(process.execPath, [join(repo, "bin/pi-quests.js"), "init", pack]);
    packages.push(pack);
  }
  writeFileSync(join(agentDir, "settings.json"), JSON.stringify({ packages }));
  const script = join(dir, "script.json");
  writeFileSync(script, "[]");
  return { agentDir, workspace: realpathSync(workspace), script };
}

/**
 * One `pi --mode rpc`: with pi-quests, ms until the HUD's first setWidget; without it (Pi's own
 * cost of the five packages), until Pi answers `get_state`.
 */
function untilHud(setup: Setup, extension = true): Promise<number> {
  const start = performance.now();
  const args = [PI, ...scriptedPiArgs({ extension }), "--mode", "rpc"];
  const child = spawn(process.execPath, args, {
    cwd: setup.workspace,
    env: {
      PATH: process.env.PATH ?? "",
      HOME: setup.agentDir,
      PI_CODING_AGENT_DIR: setup.agentDir,
      PI_QUESTS_SCRIPT: setup.script,
    },
    stdio: ["pipe", "pipe", "pipe"],
  });
  return new Promise((done, fail) => {
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      fail(new Error("pi did not show the HUD in 60 s"));
    }, 60_000);
    if (!extension) child.stdin.write(`${JSON.stringify({ id: "state", type: "get_state" })}\n`);
    createInterface({ input: child.stdout }).on("line", (text) => {
      if (!text.includes(extension ? '"setWidget"' : '"id":"state"')) return;
      clearTimeout(timer);
      const elapsed = performance.now() - start;
      child.stdin.end();
      child.once("exit", () => done(elapsed));
    });
  });
}

export async function benchPacks(runs = 10): Promise<PacksBench> {
  const base = join(homedir(), ".cache", "pi-quests-bench-packs");
  mkdirSync(base, { recursive: true });
  const dir = mkdtempSync(join(base, "run-"));
  try {
    const none = await agentWith(dir, "none", 0);
    const five = await agentWith(dir, "five", PACKAGES);
    const times = {
      none: [] as number[],
      five: [] as number[],
      piNone: [] as number[],
      piFive: [] as number[],
    };
    for (let i = 0; i < runs + 2; i++) {
      const order = i % 2 === 0 ? (["none", "five"] as const) : (["five", "none"] as const);
      for (const which of order) {
        const setup = which === "none" ? none : five;
        const time = await untilHud(setup);
        const piAlone = await untilHud(setup, false);
        if (i < 2) continue;
        times[which].push(time);
        times[which === "none" ? "piNone" : "piFive"].push(piAlone);
      }
    }
    const world = (setup: Setup) => ({
      cwd: setup.workspace,
      workspace: setup.workspace,
      env: { PI_CODING_AGENT_DIR: setup.agentDir },
      home: setup.agentDir,
      builtIn: BUILT_IN_PACK,
      pi: Pi,
      sessionTrusted: () => true,
    });
    const discoveryNone = await measure(() => findPacks(packPlaces(world(none))), 50);
    const discoveryFive = await measure(() => findPacks(packPlaces(world(five))), 50);
    const chooseNone = await measure(() => chooseActivePack(world(none)), 50);
    const chooseFive = await measure(() => chooseActivePack(world(five)), 50);
    const startNone = median(times.none);
    const startFive = median(times.five);
    return {
      runs,
      start: { none: startNone, five: startFive, delta: startFive - startNone, ratio: startFive / startNone },
      piAlone: {
        none: median(times.piNone),
        five: median(times.piFive),
        delta: median(times.piFive) - median(times.piNone),
      },
      discovery: {
        none: discoveryNone.median,
        five: discoveryFive.median,
        delta: discoveryFive.median - discoveryNone.median,
      },
      choose: {
        none: chooseNone.median,
        five: chooseFive.median,
        delta: chooseFive.median - chooseNone.median,
      },
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

export function packsReport(result: PacksBench): string {
  const { start, discovery, piAlone, choose } = result;
  const ours = start.delta - piAlone.delta;
  return [
    `## Quest packs: ${PACKAGES} pack packages installed against none (${result.runs} runs each, alternated)`,
    "",
    "| measure | none (ms) | five (ms) | difference (ms) | ratio |",
    "|---|---:|---:|---:|---:|",
    `| \`pi --mode rpc\` until the HUD's first \`setWidget\` (median) | ${ms(start.none)} | ${ms(start.five)} | ${ms(start.delta)} | ${start.ratio.toFixed(2)} |`,
    `| Pi alone, no pi-quests, until \`get_state\` (median) | ${ms(piAlone.none)} | ${ms(piAlone.five)} | ${ms(piAlone.delta)} | |`,
    `| every pack found, Pi's package list and trust read (\`/quest packs\`, Tab; median of 50) | ${ms(discovery.none)} | ${ms(discovery.five)} | ${ms(discovery.delta)} | |`,
    `| the active pack chosen at a session's start (median of 50) | ${ms(choose.none)} | ${ms(choose.five)} | ${ms(choose.delta)} | |`,
    "",
    `Goal: pi-quests' discovery adds at most 20 ms with five packs: ${ms(ours)} ms beyond Pi's own (${ms(start.delta)} with pi-quests less ${ms(piAlone.delta)} without); the discovery alone ${ms(discovery.delta)} ms.`,
  ].join("\n");
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const runs = Number(process.argv[2] ?? 10);
  process.stdout.write(`${packsReport(await benchPacks(runs))}\n`);
}
