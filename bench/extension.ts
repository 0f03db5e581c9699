/**
 * The Pi extension's cost to Pi.
 *
 * 1. `pi -p` (print mode) with the scripted model of fixtures/pi/scripted-model.ts, without and
 *    with `-e src/extension/index.ts`, alternated in one run after warm-ups, so Pi's jiti
 *    transform cache (in TMPDIR/jiti) and Node's compile cache are warm for both. The cold case
 *    is measured apart: a fresh TMPDIR holding the warm compile cache and the scripted model's
 *    jiti file, but none of pi-quests', so only the extension is transformed again.
 * 2. `pi --mode rpc` start: until Pi answers `get_state` without and with the extension, and
 *    until the HUD's first `setWidget` with it.
 * 3. The `turn_end` handler alone, in a child Node process that must then exit by itself: the
 *    extension's default export with a fake `pi`, opened in a fake RPC session (the built-in
 *    pack, a temporary agent dir) and timed call by call, synchronously.
 *
 * Everything is under ~/.cache/pi-quests-bench-ext (not /tmp: file creation there is slow on
 * these machines) and removed at the end. Runs alone too: `node bench/extension.ts`.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { cpSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { homedir } from "node:os";
import { join, resolve } from "node:path";
import { performance } from "node:perf_hooks";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import type { ExtensionAPI, ExtensionContext } from "@earendil-works/pi-coding-agent";
import { execa } from "execa";
import { locateDataFolder } from "../src/extension/data-folder.ts";
// The build an installed package holds (rolldown; swap for scripts/build.ts's dist/ once it exists).
import { builtPackage } from "./built-package.ts";
import { ms } from "./measure.ts";

const repo = resolve(import.meta.dirname, "..");
const PI = join(repo, "node_modules/@earendil-works/pi-coding-agent/dist/bundle/cli.js");
const SCRIPTED_MODEL = join(repo, "fixtures/pi/scripted-model.ts");
const EXTENSION = join(repo, "src/extension/index.ts");

export const EXTENSION_BENCH_BASE = join(homedir(), ".cache", "pi-quests-bench-ext");

export type Stats = { median: number; p90: number; p95: number; max: number; runs: number };

export type StartRow = { label: string; stats: Stats; baseline: Stats };

export type TurnEndCase = {
  calls?: number;
  /** Entries in the session (half of them assistant messages), counted at every turn end. */
  entries?: number;
  /** Events already in the workspace's event log when the session opens. */
  loggedEvents?: number;
};

export type TurnEndResult = {
  stats: Stats;
  entries: number;
  loggedEvents: number;
  /** How many calls returned a promise (or any value) instead of undefined. */
  returnedPromise: number;
  returnedValue: number;
  /** Libuv resources still open after session_shutdown, besides the bench's own. */
  leftovers: string[];
};

export type ExtensionBench = {
  runs: number;
  warmup: number;
  coldRuns: number;
  rows: StartRow[];
  turnEnd: TurnEndRun;
};

function stats(times: number[]): Stats {
  const sorted = [...times].sort((a, b) => a - b);
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? Number.NaN;
  return {
    median: at(0.5),
    p90: at(0.9),
    p95: at(0.95),
    max: sorted.at(-1) ?? Number.NaN,
    runs: times.length,
  };
}

type Setup = { workspace: string; agentDir: string; scriptFile: string; tmp: string };

function env(setup: Setup, tmp = setup.tmp): Record<string, string> {
  return {
    PATH: process.env.PATH ?? "",
    HOME: setup.agentDir,
    PI_CODING_AGENT_DIR: setup.agentDir,
    PI_QUESTS_SCRIPT: setup.scriptFile,
    // Pi's jiti cache (TMPDIR/jiti) and Node's compile cache (TMPDIR/node-compile-cache) live here.
    TMPDIR: tmp,
    GIT_CONFIG_NOSYSTEM: "1",
  };
}

/** Pi's arguments; `extension` true for the sources, a path for another entry (a build). */
const piArgs = (extension: boolean | string, mode: string[]) => [
  PI,
  "--offline",
  "--no-session",
  "-e",
  SCRIPTED_MODEL,
  ...(extension === false ? [] : ["-e", extension === true ? EXTENSION : extension]),
  "--provider",
  "scripted",
  "--model",
  "scripted-1",
  ...mode,
];

/** One `pi -p hi` process, start to exit, in ms. */
async function printRun(setup: Setup, extension: boolean | string, tmp = setup.tmp): Promise<number> {
  const start = performance.now();
  const run = await execa(process.execPath, piArgs(extension, ["-p", "hi"]), {
    cwd: setup.workspace,
    env: env(setup, tmp),
    extendEnv: false,
    stdin: "ignore",
    reject: false,
    timeout: 60_000,
  });
  const elapsed = performance.now() - start;
  if (run.exitCode !== 0 || !run.stdout.includes("Hello")) {
    throw new Error(`pi -p failed (exit ${run.exitCode}): ${run.stdout}${run.stderr}`);
  }
  return elapsed;
}

type RpcTimes = { state: number; widget?: number };

/** One `pi --mode rpc` process: ms until it answers `get_state` (and until the first setWidget). */
async function rpcRun(setup: Setup, withExtension: boolean): Promise<RpcTimes> {
  const start = performance.now();
  const child: ChildProcess = spawn(process.execPath, piArgs(withExtension, ["--mode", "rpc"]), {
    cwd: setup.workspace,
    env: env(setup),
    stdio: ["pipe", "pipe", "pipe"],
  });
  let stderr = "";
  child.stderr?.on("data", (chunk: Buffer) => {
    stderr += chunk.toString("utf8");
  });
  const exited = new Promise<number | null>((done) => child.on("exit", (code) => done(code)));
  child.stdin?.write(`${JSON.stringify({ id: "bench-state", type: "get_state" })}\n`);
  const times: { state?: number; widget?: number } = {};
  try {
    await new Promise<void>((done, fail) => {
      const timer = setTimeout(() => fail(new Error(`pi --mode rpc timed out.\n${stderr}`)), 60_000);
      void exited.then((code) => fail(new Error(`pi --mode rpc exited (${code}) first.\n${stderr}`)));
      createInterface({ input: child.stdout as NodeJS.ReadableStream }).on("line", (text) => {
        if (!text.startsWith("{")) return;
        const line = JSON.parse(text) as { type: string; id?: string; method?: string; success?: boolean };
        const now = performance.now() - start;
        if (line.type === "response" && line.id === "bench-state") {
          if (!line.success) fail(new Error(`get_state failed: ${text}`));
          times.state ??= now;
        }
        if (line.type === "extension_ui_request" && line.method === "setWidget") times.widget ??= now;
        if (times.state !== undefined && (!withExtension || times.widget !== undefined)) {
          clearTimeout(timer);
          done();
        }
      });
    });
  } finally {
    child.stdin?.end();
    const kill = setTimeout(() => child.kill("SIGKILL"), 15_000);
    await exited;
    clearTimeout(kill);
  }
  return {
    state: times.state ?? Number.NaN,
    ...(times.widget !== undefined ? { widget: times.widget } : {}),
  };
}

/** Without and with the extension alternated, `warmup` pairs first; returns the timed ones. */
async function alternate<T>(
  run: (withExtension: boolean) => Promise<T>,
  runs: number,
  warmup: number,
): Promise<{ without: T[]; with: T[] }> {
  const result = { without: [] as T[], with: [] as T[] };
  for (let i = 0; i < warmup + runs; i++) {
    // Which goes first alternates too, so neither always follows the other.
    const order = i % 2 === 0 ? [false, true] : [true, false];
    for (const withExtension of order) {
      const time = await run(withExtension);
      if (i >= warmup) (withExtension ? result.with : result.without).push(time);
    }
  }
  return result;
}

/** `pi -p` and `pi --mode rpc`, without and with the extension. */
export async function benchPiStart(base: string, runs = 15, warmup = 2, coldRuns = 3): Promise<StartRow[]> {
  mkdirSync(base, { recursive: true });
  const dir = mkdtempSync(join(base, "start-"));
  const setup: Setup = {
    workspace: join(dir, "workspace"),
    agentDir: join(dir, "agent"),
    scriptFile: join(dir, "script.json"),
    tmp: join(dir, "tmp"),
  };
  for (const folder of [setup.workspace, setup.agentDir, setup.tmp]) mkdirSync(folder);
  writeFileSync(setup.scriptFile, JSON.stringify([{ text: "Hello" }]));
  try {
    const print = await alternate((withExtension) => printRun(setup, withExtension), runs, warmup);
    const without = stats(print.without);
    const rows: StartRow[] = [
      { label: "`pi -p hi`, without pi-quests (baseline)", stats: without, baseline: without },
      { label: "`pi -p hi -e src/extension/index.ts`", stats: stats(print.with), baseline: without },
    ];

    // Cold: the compile cache and the scripted model's jiti file copied from the warm TMPDIR,
    // nothing of pi-quests, so this run transforms the extension's files (and loads Babel).
    const cold: number[] = [];
    for (let i = 0; i < coldRuns; i++) {
      const tmp = mkdtempSync(join(dir, "cold-"));
      cpSync(join(setup.tmp, "node-compile-cache"), join(tmp, "node-compile-cache"), { recursive: true });
      mkdirSync(join(tmp, "jiti"));
      for (const file of readdirSync(join(setup.tmp, "jiti"))) {
        if (file.startsWith("pi-scripted-model."))
          cpSync(join(setup.tmp, "jiti", file), join(tmp, "jiti", file));
      }
      cold.push(await printRun(setup, true, tmp));
      rmSync(tmp, { recursive: true, force: true });
    }
    rows.push({
      label: "`pi -p hi -e src/extension/index.ts`, first run (no jiti cache for pi-quests)",
      stats: stats(cold),
      baseline: without,
    });

    const rpc = await alternate((withExtension) => rpcRun(setup, withExtension), runs, warmup);
    const stateWithout = stats(rpc.without.map((t) => t.state));
    rows.push(
      {
        label: "`pi --mode rpc` until `get_state` answers, without (baseline)",
        stats: stateWithout,
        baseline: stateWithout,
      },
      {
        label: "`pi --mode rpc -e …` until `get_state` answers",
        stats: stats(rpc.with.map((t) => t.state)),
        baseline: stateWithout,
      },
      {
        label: "`pi --mode rpc -e …` until the HUD's first `setWidget`",
        stats: stats(rpc.with.map((t) => t.widget ?? Number.NaN)),
        baseline: stateWithout,
      },
    );
    return rows;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * The packed package installed as npm installs it (bench/built-package.ts: no Pi package above
 * it), its entry's first `pi -p hi` after install against later ones, `runs` of each,
 * alternated. First: a fresh TMPDIR holding what Pi alone left there (its compile cache and the
 * scripted model's jiti file, from two runs without pi-quests), so nothing of pi-quests is in
 * any cache. Later: a TMPDIR the built entry already ran in (2 warm-ups).
 */
export async function benchBuiltFirstRun(base: string, runs = 5): Promise<StartRow[]> {
  mkdirSync(base, { recursive: true });
  const dir = mkdtempSync(join(base, "built-"));
  const removeAfter: Array<() => void> = [];
  const setup: Setup = {
    workspace: join(dir, "workspace"),
    agentDir: join(dir, "agent"),
    scriptFile: join(dir, "script.json"),
    tmp: join(dir, "tmp"),
  };
  const piOnly = join(dir, "pi-only");
  for (const folder of [setup.workspace, setup.agentDir, setup.tmp, piOnly]) mkdirSync(folder);
  writeFileSync(setup.scriptFile, JSON.stringify([{ text: "Hello" }]));
  try {
    const installed = await builtPackage();
    removeAfter.push(installed.remove);
    const entry = join(installed.root, "dist/extension/index.js");
    for (let i = 0; i < 2; i++) await printRun(setup, false, piOnly);
    cpSync(piOnly, setup.tmp, { recursive: true });
    for (let i = 0; i < 2; i++) await printRun(setup, entry);
    const first: number[] = [];
    const later: number[] = [];
    for (let i = 0; i < runs; i++) {
      const fresh = mkdtempSync(join(dir, "first-"));
      cpSync(piOnly, fresh, { recursive: true });
      first.push(await printRun(setup, entry, fresh));
      rmSync(fresh, { recursive: true, force: true });
      later.push(await printRun(setup, entry));
    }
    const warm = stats(later);
    return [
      {
        label:
          "`pi -p hi -e …/node_modules/pi-quests/dist/extension/index.js` (the packed package installed), later runs (baseline)",
        stats: warm,
        baseline: warm,
      },
      {
        label: "`pi -p hi -e dist/extension/index.js`, first run after install (no cache of pi-quests)",
        stats: stats(first),
        baseline: warm,
      },
    ];
  } finally {
    for (const remove of removeAfter) remove();
    rmSync(dir, { recursive: true, force: true });
  }
}

type Handler = (event: unknown, ctx: ExtensionContext) => unknown;

/**
 * The turn_end handler's own time: the extension opened in a fake RPC session, then `calls`
 * calls, each timed around the synchronous call. Between calls the event loop runs (as in Pi,
 * where turns are far apart), so the event log's background appends keep up.
 */
export async function benchTurnEnd(
  base: string,
  { calls = 2000, entries: entryCount = 200, loggedEvents = 0 }: TurnEndCase = {},
): Promise<TurnEndResult> {
  mkdirSync(base, { recursive: true });
  const dir = mkdtempSync(join(base, "turn-end-"));
  const workspace = join(dir, "workspace");
  const agentDir = join(dir, "agent");
  mkdirSync(workspace);
  mkdirSync(agentDir);
  if (loggedEvents > 0) {
    // Events recorded by earlier sessions, in the workspace's log as the extension finds it.
    const { folder: dataFolder } = await locateDataFolder(workspace, { PI_CODING_AGENT_DIR: agentDir });
    mkdirSync(dataFolder, { recursive: true });
    const lines = Array.from({ length: loggedEvents }, (_, seq) =>
      JSON.stringify({ name: "turn_end", sessionId: "earlier", seq, payload: { assistantTurns: seq + 1 } }),
    );
    writeFileSync(join(dataFolder, "events.jsonl"), `${lines.join("\n")}\n`);
  }
  // The extension reads the agent dir and the pack from process.env: set for this bench only.
  const saved = { agentDir: process.env.PI_CODING_AGENT_DIR, pack: process.env.PI_QUESTS_PACK };
  process.env.PI_CODING_AGENT_DIR = agentDir;
  delete process.env.PI_QUESTS_PACK;
  const resourcesBefore = process.getActiveResourcesInfo();
  let shutdown: Handler | undefined;
  let ctx: ExtensionContext | undefined;
  try {
    const handlers = new Map<string, Handler>();
    const fakePi = {
      on(event: string, handler: Handler) {
        handlers.set(event, handler);
      },
      registerCommand() {},
      registerEntryRenderer() {},
    } as unknown as ExtensionAPI;
    const { default: piQuests } = await import("../src/extension/index.ts");
    await piQuests(fakePi);

    const entries = Array.from({ length: entryCount }, (_, i) => ({
      type: "message",
      id: `entry-${i}`,
      message: {
        role: i % 2 === 1 ? "assistant" : "user",
        content: [{ type: "text", text: `message ${i}` }],
      },
    }));
    const widgets: string[][] = [];
    const notices: string[] = [];
    ctx = {
      hasUI: true,
      mode: "rpc",
      cwd: workspace,
      // A model with a key, as the real runs have (the scripted one), and an untrusted project.
      model: { provider: "scripted", id: "scripted-1" },
      modelRegistry: { find: () => ({}), hasConfiguredAuth: () => true },
      isProjectTrusted: () => false,
      ui: {
        setWidget: (_key: string, lines: string[]) => widgets.push(lines),
        setStatus: () => {},
        notify: (message: string) => notices.push(message),
        confirm: async () => false,
      },
      sessionManager: {
        getSessionId: () => "bench-session",
        getHeader: () => ({ type: "session", id: "bench-session", cwd: workspace, timestamp: "" }),
        // A copy each call, as Pi's own getEntries makes: the label lookup reads it at every event.
        getEntries: () => entries.filter(() => true),
      },
    } as unknown as ExtensionContext;
    const handler = (name: string) => {
      const found = handlers.get(name);
      if (!found) throw new Error(`the extension registered no ${name} handler`);
      return found;
    };
    shutdown = handler("session_shutdown");
    const turnEnd = handler("turn_end");
    await handler("session_start")({ type: "session_start" }, ctx);

    // Opened once the HUD is drawn; the first evaluation (at activation) is left to finish.
    const deadline = Date.now() + 60_000;
    let seen = -1;
    for (;;) {
      await new Promise((done) => setTimeout(done, 300));
      const title = widgets.at(-1)?.[0] ?? "";
      if (widgets.length > 0 && widgets.length === seen && !title.includes("checking…")) break;
      seen = widgets.length;
      if (Date.now() > deadline) throw new Error(`the extension never settled: ${notices.join("; ")}`);
    }
    if (widgets.at(-1)?.[0]?.startsWith("pi-quests:"))
      throw new Error(`the extension broke: ${notices.join("; ")}`);

    const times: number[] = [];
    let returnedPromise = 0;
    let returnedValue = 0;
    for (let i = 0; i < calls; i++) {
      const event = { type: "turn_end", turnIndex: i, message: {}, toolResults: [] };
      const start = performance.now();
      const returned = turnEnd(event, ctx);
      times.push(performance.now() - start);
      if (returned instanceof Promise) returnedPromise++;
      else if (returned !== undefined) returnedValue++;
      await new Promise((done) => setImmediate(done));
    }
    const result = { stats: stats(times), entries: entryCount, loggedEvents, returnedPromise, returnedValue };
    await shutdown({ type: "session_shutdown" }, ctx);
    shutdown = undefined;
    // What the extension left open: resources beyond those open before it was loaded.
    await new Promise((done) => setTimeout(done, 50));
    const leftovers = [...process.getActiveResourcesInfo()];
    for (const known of resourcesBefore) {
      const index = leftovers.indexOf(known);
      if (index >= 0) leftovers.splice(index, 1);
    }
    return { ...result, leftovers };
  } finally {
    if (shutdown && ctx) await shutdown({ type: "session_shutdown" }, ctx);
    if (saved.agentDir === undefined) delete process.env.PI_CODING_AGENT_DIR;
    else process.env.PI_CODING_AGENT_DIR = saved.agentDir;
    if (saved.pack !== undefined) process.env.PI_QUESTS_PACK = saved.pack;
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The brief's case first; then a long session, and a log that reaches its cap (5,000) and is compacted. */
export const TURN_END_CASES: TurnEndCase[] = [
  { entries: 200 },
  { entries: 10_000 },
  { entries: 200, loggedEvents: 4_990 },
];

/**
 * The turn_end cases in a child process of their own (`node bench/extension.ts --turn-end`):
 * Pi's package stays out of this one, and the child must exit by itself once it has printed
 * its figures, which shows that session_shutdown left no timer or process running.
 */
export async function benchTurnEndInChild(base: string): Promise<TurnEndRun> {
  const child = spawn(process.execPath, [fileURLToPath(import.meta.url), "--turn-end", base], {
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stdout = "";
  let stderr = "";
  let printedAt = 0;
  child.stdout.on("data", (chunk: Buffer) => {
    stdout += chunk.toString("utf8");
    if (stdout.endsWith("\n")) printedAt = performance.now();
  });
  child.stderr.on("data", (chunk: Buffer) => {
    stderr += chunk.toString("utf8");
  });
  const exit = new Promise<number | null>((done) => child.on("exit", (code) => done(code)));
  // Generous for the work (a few seconds); then 10 s more to exit once the figures are out.
  let killed = false;
  const watchdog = setInterval(() => {
    if (printedAt > 0 && performance.now() - printedAt > 10_000) {
      killed = true;
      child.kill("SIGKILL");
    }
  }, 250);
  const giveUp = setTimeout(() => {
    killed = true;
    child.kill("SIGKILL");
  }, 300_000);
  const code = await exit;
  const exitedAt = performance.now();
  clearInterval(watchdog);
  clearTimeout(giveUp);
  if (printedAt === 0) throw new Error(`the turn_end bench printed nothing (exit ${code}).\n${stderr}`);
  const results = JSON.parse(stdout) as TurnEndResult[];
  return { results, exitedBySelf: !killed && code === 0, exitAfterMs: exitedAt - printedAt };
}

export type TurnEndRun = {
  results: TurnEndResult[];
  /** The child exited with 0 on its own, without being killed. */
  exitedBySelf: boolean;
  /** From its last output to its exit. */
  exitAfterMs: number;
};

export async function benchExtension(
  base = EXTENSION_BENCH_BASE,
  runs = 15,
  warmup = 2,
): Promise<ExtensionBench> {
  try {
    const coldRuns = 3;
    const rows = [...(await benchPiStart(base, runs, warmup, coldRuns)), ...(await benchBuiltFirstRun(base))];
    const turnEnd = await benchTurnEndInChild(base);
    return { runs, warmup, coldRuns, rows, turnEnd };
  } finally {
    rmSync(base, { recursive: true, force: true });
  }
}

export function extensionTable({ rows }: Pick<ExtensionBench, "rows">): string {
  return [
    "| process | median (ms) | p90 (ms) | runs | ratio to its baseline |",
    "|---|---:|---:|---:|---:|",
    ...rows.map(
      ({ label, stats: s, baseline }) =>
        `| ${label} | ${ms(s.median)} | ${ms(s.p90)} | ${s.runs} | ${(s.median / baseline.median).toFixed(2)} |`,
    ),
  ].join("\n");
}

export function turnEndTable({ turnEnd: { results, exitedBySelf, exitAfterMs } }: ExtensionBench): string {
  const exit = exitedBySelf
    ? `The process exited by itself ${ms(exitAfterMs)} ms after its last output.`
    : `**The process did not exit by itself** (killed ${ms(exitAfterMs)} ms after its last output).`;
  return [
    "| calls | session entries | events already logged | median (ms) | p95 (ms) | max (ms) | returns | left open after session_shutdown |",
    "|---:|---:|---:|---:|---:|---:|---|---|",
    ...results.map(({ stats: s, entries, loggedEvents, returnedPromise, returnedValue, leftovers }) => {
      const returned =
        returnedPromise + returnedValue === 0
          ? "`undefined` every time"
          : `${returnedPromise} promise(s), ${returnedValue} other value(s)`;
      const open = leftovers.length === 0 ? "nothing" : leftovers.join(", ");
      return `| ${s.runs} | ${count(entries)} | ${count(loggedEvents)} | ${ms(s.median)} | ${ms(s.p95)} | ${ms(s.max)} | ${returned} | ${open} |`;
    }),
    "",
    exit,
  ].join("\n");
}

const count = (value: number) => value.toLocaleString("en-US");

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  if (process.argv[2] === "--turn-end") {
    const base = process.argv[3] ?? EXTENSION_BENCH_BASE;
    const results: TurnEndResult[] = [];
    for (const turnCase of TURN_END_CASES) results.push(await benchTurnEnd(base, turnCase));
    process.stdout.write(`${JSON.stringify(results)}\n`);
  } else {
    if (process.argv[2] === "--built") {
      // The built entry's first run alone (a few seconds): `node bench/extension.ts --built`.
      const rows = await benchBuiltFirstRun(EXTENSION_BENCH_BASE, Number(process.argv[3] ?? 5));
      rmSync(EXTENSION_BENCH_BASE, { recursive: true, force: true });
      process.stdout.write(`${extensionTable({ rows })}\n`);
    } else {
      const result = await benchExtension();
      process.stdout.write(`${extensionTable(result)}\n\n${turnEndTable(result)}\n`);
    }
  }
}
