/**
 * `pi-quests check` as a learner's CI runs it: a whole process, on the first-file quest (an event,
 * a file and a command check). Baseline in the same run: `node -e ""`, Node's own start.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { execa } from "execa";
import { measure, ms, type Timing } from "./measure.ts";

const repo = resolve(import.meta.dirname, "..");

export async function benchCli(runs = 15): Promise<{ node: Timing; check: Timing }> {
  const workspace = mkdtempSync(join(tmpdir(), "pi-quests-bench-"));
  const home = mkdtempSync(join(tmpdir(), "pi-quests-bench-home-"));
  const env = { PI_CODING_AGENT_DIR: join(home, "agent"), HOME: home };
  writeFileSync(join(workspace, "hello.txt"), "hello\n");
  try {
    const node = await measure(() => execa(process.execPath, ["-e", ""]), runs, 3);
    const check = await measure(
      async () => {
        const run = await execa(
          process.execPath,
          [
            join(repo, "bin/pi-quests.js"),
            "check",
            join(repo, "fixtures/quests/first-file.yaml"),
            "--cwd",
            workspace,
            "--events",
            join(repo, "fixtures/events/first-file-done.jsonl"),
          ],
          { env, reject: false },
        );
        if (run.exitCode !== 0) throw new Error(`the bench check did not pass: ${run.stdout}${run.stderr}`);
      },
      runs,
      3,
    );
    return { node, check };
  } finally {
    rmSync(workspace, { recursive: true, force: true });
    rmSync(home, { recursive: true, force: true });
  }
}

export function cliTable({ node, check }: { node: Timing; check: Timing }): string {
  return [
    '| command | median (ms) | p90 (ms) | ratio to `node -e ""` |',
    "|---|---:|---:|---:|",
    `| \`node -e ""\` (baseline) | ${ms(node.median)} | ${ms(node.p90)} | 1.0 |`,
    `| \`pi-quests check first-file.yaml --events …\` | ${ms(check.median)} | ${ms(check.p90)} | ${(check.median / node.median).toFixed(1)} |`,
  ].join("\n");
}
