/**
 * `node bench/against-interleaved.ts REV [ROUNDS]`: this tree against another commit with the two
 * interleaved round by round, not pass by pass as bench/against.ts does, so the load of a shared
 * machine, which drifts over minutes, falls on both alike. Two figures:
 *
 * - an unchanged 10,000-file workspace answered from its receipt by a whole `pi-quests check`
 *   process of each tree (bench/receipts.ts benchUnchanged, each tree's CLI alternated with the
 *   other's and with `git status --porcelain` in each round);
 * - the isolated task verifier's run of a no-op check in a 100-file repository with a
 *   node_modules of 300 packages and 60 `.bin` links, each tree's verifier alternated in each
 *   round (what a change to how the worktree links node_modules costs): the `.bin` as npm leaves
 *   it, and with one entry no package declares (src/task-verifier/declared-bins.ts makes the
 *   worktree's `.bin` anew then).
 */
import { execFileSync } from "node:child_process";
import {
  mkdirSync,
  mkdtempSync,
  readFileSync,
  realpathSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { homedir, tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { performance } from "node:perf_hooks";
import { setTimeout } from "node:timers/promises";
import { median, ms } from "./measure.ts";
import { benchUnchanged } from "./receipts.ts";

const [revision, roundsText] = process.argv.slice(2);
if (!revision) {
  process.stderr.write("usage: node bench/against-interleaved.ts REV [ROUNDS]\n");
  process.exit(3);
}
const rounds = Number(roundsText ?? 21);
const here = resolve(import.meta.dirname, "..");
const other = join(mkdtempSync(join(tmpdir(), "pi-quests-interleaved-")), "tree");
execFileSync("git", ["worktree", "add", "--detach", "--quiet", other, revision], { cwd: here });
const sameLock =
  readFileSync(join(here, "package-lock.json"), "utf8") ===
  readFileSync(join(other, "package-lock.json"), "utf8");
if (sameLock) symlinkSync(join(here, "node_modules"), join(other, "node_modules"));
else
  execFileSync("npm", ["ci", "--no-audit", "--no-fund", "--loglevel=error"], {
    cwd: other,
    stdio: "inherit",
  });
// Under the home folder: /tmp is often tmpfs, where no stat record is kept.
mkdirSync(join(homedir(), ".cache"), { recursive: true });
const base = mkdtempSync(join(homedir(), ".cache", "pi-quests-interleaved-"));

/**
 * A 100-file repository with node_modules (ignored) of `packages` packages, the first `bins`
 * declaring a bin linked in `.bin`, and `undeclared` more entries there no package declares.
 */
async function repositoryWithDependencies(
  packages: number,
  bins: number,
  undeclared: number,
): Promise<string> {
  const dir = realpathSync(mkdtempSync(join(base, "deps-")));
  for (let i = 0; i < 100; i++) writeFileSync(join(dir, `f${i}.js`), `export const v${i} = ${i};\n`);
  writeFileSync(join(dir, ".gitignore"), "node_modules/\n");
  writeFileSync(join(dir, "package.json"), JSON.stringify({ name: "bench", scripts: { test: "node -e 0" } }));
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
  mkdirSync(join(dir, "node_modules/.bin"), { recursive: true });
  for (let i = 0; i < packages; i++) {
    const name = `pkg-${i}`;
    mkdirSync(join(dir, "node_modules", name));
    const manifest = {
      name,
      version: "1.0.0",
      main: "index.js",
      ...(i < bins ? { bin: { [`tool-${i}`]: "cli.js" } } : {}),
    };
    writeFileSync(join(dir, "node_modules", name, "package.json"), JSON.stringify(manifest));
    writeFileSync(join(dir, "node_modules", name, "index.js"), "module.exports = 1;\n");
    if (i < bins) {
      writeFileSync(join(dir, "node_modules", name, "cli.js"), "#!/usr/bin/env node\n", { mode: 0o755 });
      symlinkSync(`../${name}/cli.js`, join(dir, "node_modules/.bin", `tool-${i}`));
    }
  }
  for (let i = 0; i < undeclared; i++) symlinkSync("/bin/true", join(dir, "node_modules/.bin", `stray-${i}`));
  writeFileSync(join(dir, "f0.js"), "export const v0 = 42;\n");
  // Older than the file system's timestamp granularity, as an installed node_modules is.
  await setTimeout(2_100);
  return dir;
}

/** Each tree's verifier run of a no-op check, alternated per round (the order turning): medians, ms. */
async function verifierWithDependencies(undeclared: number): Promise<{ before: number; after: number }> {
  const repo = await repositoryWithDependencies(300, 60, undeclared);
  const check = {
    id: "noop",
    type: "command" as const,
    run: "true",
    timeout_ms: 60_000,
    exit_code: 0,
    oracle_paths: [],
    isolation: "worktree" as const,
  };
  const runs: Array<() => Promise<void>> = [];
  for (const root of [other, here]) {
    const { createTaskVerifier } = await import(join(root, "src/task-verifier/index.ts"));
    const dataDir = realpathSync(mkdtempSync(join(base, "data-")));
    const made = await createTaskVerifier({
      workspace: repo,
      dataDir,
      checks: [{ questId: "bench", check }],
    });
    if (!made.ok) throw new Error(made.message);
    runs.push(async () => {
      const outcome = await made.verifier.run({ questId: "bench", checkId: "noop", cwd: repo });
      if (!outcome.ok || !outcome.passed)
        throw new Error(`the run failed: ${JSON.stringify(outcome).slice(0, 300)}`);
    });
  }
  const times: number[][] = [[], []];
  for (let round = 0; round < rounds + 2; round++) {
    for (let k = 0; k < 2; k++) {
      const at = (round + k) % 2;
      const start = performance.now();
      await (runs[at] as () => Promise<void>)();
      if (round >= 2) times[at]?.push(performance.now() - start);
    }
  }
  return { before: median(times[0] ?? []), after: median(times[1] ?? []) };
}

try {
  const load = () => readFileSync("/proc/loadavg", "utf8").split(" ").slice(0, 3).join(" ");
  const loadBefore = load();
  const unchanged = await benchUnchanged(join(base, "unchanged"), 10_000, rounds, 2, [
    { label: revision, bin: join(other, "bin/pi-quests.js") },
    { label: "this tree", bin: join(here, "bin/pi-quests.js") },
  ]);
  const asInstalled = await verifierWithDependencies(0);
  const withStray = await verifierWithDependencies(1);
  const [before, after] = unchanged.processes;
  const row = (name: string, a: number, b: number) =>
    `| ${name} | ${ms(a)} | ${ms(b)} | ${(b / a).toFixed(2)} |`;
  process.stdout.write(
    [
      `load average before: ${loadBefore}; after: ${load()}; \`git status --porcelain\` on the 10,000 files (the yardstick): ${ms(unchanged.gitStatus)} ms`,
      `| figure (median of ${rounds} interleaved rounds) | ${revision} | this tree | ratio |`,
      "|---|---:|---:|---:|",
      row(
        "`pi-quests check` process answered from its receipt, 10000 files (ms)",
        before?.median ?? Number.NaN,
        after?.median ?? Number.NaN,
      ),
      row(
        "verifier run of a no-op check, 100 files, 300 packages, 60 bins as npm left them (ms)",
        asInstalled.before,
        asInstalled.after,
      ),
      row(
        "the same with one `.bin` entry no package declares (the worktree's `.bin` made anew) (ms)",
        withStray.before,
        withStray.after,
      ),
      "",
    ].join("\n"),
  );
} finally {
  rmSync(base, { recursive: true, force: true });
  execFileSync("git", ["worktree", "remove", "--force", other], { cwd: here });
}
