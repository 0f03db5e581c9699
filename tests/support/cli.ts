import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { execa } from "execa";
import { main } from "../../src/cli/main.ts";

export const REPO = resolve(import.meta.dirname, "../..");
export const BIN = join(REPO, "bin/pi-quests.js");
/**
 * A byte copy of the 3-quest starter pack that quests/ held before the curriculum: the tests that
 * assert its ids, titles, sandbox and counts read this one, so quests/ can grow without them.
 */
export const STARTER_PACK = join(REPO, "fixtures/packs/starter");

export type CliRun = { exitCode: number; stdout: string; stderr: string };

/** Runs the real `pi-quests` binary as a process, with a throwaway agent dir and home. */
export async function runCli(
  args: string[],
  options: { cwd?: string; env?: Record<string, string>; timeoutMs?: number } = {},
): Promise<CliRun> {
  const home = mkdtempSync(join(tmpdir(), "pi-quests-home-"));
  const result = await execa(process.execPath, [BIN, ...args], {
    cwd: options.cwd ?? REPO,
    env: { HOME: home, PI_CODING_AGENT_DIR: join(home, "agent"), ...options.env },
    reject: false,
    stdin: "ignore",
    timeout: options.timeoutMs ?? 60_000,
  });
  if (result.exitCode === undefined) throw new Error(`pi-quests did not exit: ${result.message}`);
  return { exitCode: result.exitCode, stdout: result.stdout, stderr: result.stderr };
}

/** `main` called in this process, its output collected: for what needs no subprocess. */
export async function runMain(
  args: string[],
  where: { cwd: string; env: Record<string, string> },
): Promise<CliRun> {
  let stdout = "";
  let stderr = "";
  const exitCode = await main(args, {
    stdout: (text) => {
      stdout += text;
    },
    stderr: (text) => {
      stderr += text;
    },
    ...where,
  });
  return { exitCode, stdout, stderr };
}
