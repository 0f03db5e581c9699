/**
 * The isolated task verifier's overhead: the same command run directly (the script runner in
 * the repository) and through the verifier (candidate patch, worktree, restores, cleanup), in
 * repositories of 100 and 10,000 files, for a no-op and a 1 s command. The candidate has one
 * changed file. Overhead = median through the verifier - median direct, in the same run.
 */
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { bashCheck } from "../src/probes/script-runner.ts";
import { createTaskVerifier } from "../src/task-verifier/index.ts";
import { measure, ms, type Timing } from "./measure.ts";

function makeRepo(base: string, files: number): string {
  const dir = realpathSync(mkdtempSync(join(base, `repo-${files}-`)));
  for (let i = 0; i < files; i++) {
    const folder = join(dir, "src", `m${Math.floor(i / 100)}`);
    if (i % 100 === 0) mkdirSync(folder, { recursive: true });
    writeFileSync(join(folder, `f${i}.js`), `export const value${i} = ${i};\n`);
  }
  writeFileSync(join(dir, "package.json"), JSON.stringify({ name: "bench", scripts: { test: "node -e 0" } }));
  const git = (...args: string[]) =>
    execFileSync(
      "git",
      ["-c", "user.name=b", "-c", "user.email=b@b", "-c", "commit.gpgsign=false", ...args],
      { cwd: dir, stdio: "ignore" },
    );
  git("init", "-q", "-b", "main");
  git("add", "-A");
  git("commit", "-q", "-m", "baseline");
  // The learner's change: one edited file.
  writeFileSync(join(dir, "src/m0/f0.js"), "export const value0 = 42;\n");
  return dir;
}

export type VerifierRow = { files: number; command: string; where: string; direct: Timing; isolated: Timing };

type Case = { files: number; label: string; content: string; runs: number };

export const DEFAULT_CASES: Case[] = [
  { files: 100, label: "no-op (`true`)", content: "true", runs: 15 },
  { files: 100, label: "1 s (`sleep 1`)", content: "sleep 1", runs: 9 },
  { files: 10_000, label: "no-op (`true`)", content: "true", runs: 7 },
  { files: 10_000, label: "1 s (`sleep 1`)", content: "sleep 1", runs: 5 },
];

/** Runs the cases with the repositories and the data dir under `base`. */
export async function benchTaskVerifier(base: string, cases: Case[] = DEFAULT_CASES): Promise<VerifierRow[]> {
  const rows: VerifierRow[] = [];
  const run = bashCheck();
  mkdirSync(base, { recursive: true });
  for (const files of [...new Set(cases.map((c) => c.files))]) {
    const repo = makeRepo(base, files);
    const dataDir = realpathSync(mkdtempSync(join(base, "data-")));
    try {
      const here = cases.filter((c) => c.files === files);
      // Each case is a check of its own, pinned when the verifier is made, as a quest's are.
      const checkId = (index: number) => `check-${index}`;
      const made = await createTaskVerifier({
        workspace: repo,
        dataDir,
        checks: here.map(({ content }, index) => ({
          questId: "bench",
          check: {
            id: checkId(index),
            type: "command",
            run: content,
            timeout_ms: 60_000,
            exit_code: 0,
            oracle_paths: [],
            isolation: "worktree",
          },
        })),
      });
      if (!made.ok) throw new Error(made.message);
      for (const [index, { label, content, runs }] of here.entries()) {
        const request = { script: "bench/check", content, cwd: repo, timeoutMs: 60_000 };
        const direct = await measure(
          async () => {
            const outcome = await run(request);
            if (!outcome.ok || !outcome.passed) throw new Error("the direct run failed");
          },
          runs,
          2,
        );
        const isolated = await measure(
          async () => {
            const outcome = await made.verifier.run({ questId: "bench", checkId: checkId(index), cwd: repo });
            if (!outcome.ok || !outcome.passed)
              throw new Error(`the isolated run failed: ${outcome.ok ? outcome.report : outcome.message}`);
          },
          runs,
          2,
        );
        rows.push({ files, command: label, where: base, direct, isolated });
      }
    } finally {
      rmSync(repo, { recursive: true, force: true });
      rmSync(dataDir, { recursive: true, force: true });
    }
  }
  return rows;
}

export function taskVerifierTable(rows: VerifierRow[]): string {
  const lines = [
    "| files | command | folder | direct median (ms) | through the verifier median (ms) | overhead (ms) | ratio |",
    "|---:|---|---|---:|---:|---:|---:|",
  ];
  for (const { files, command, where, direct, isolated } of rows) {
    lines.push(
      `| ${files.toLocaleString("en")} | ${command} | \`${where}\` | ${ms(direct.median)} | ${ms(isolated.median)} | ${ms(isolated.median - direct.median)} | ${(isolated.median / direct.median).toFixed(2)} |`,
    );
  }
  return lines.join("\n");
}
