/**
 * One temporary folder for a whole test run (vitest's globalSetup): every folder a test makes
 * with `mkdtemp(tmpdir())`, and every process it starts, finds it through TMPDIR, and it is
 * removed when the run ends. A run leaves nothing in the machine's temp folder (before, about 440
 * folders a run).
 */
import { chmodSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

export default function setup(): () => void {
  const previous = process.env.TMPDIR;
  const root = mkdtempSync(join(tmpdir(), "pi-quests-tests-"));
  // As /tmp is: a test that runs a process as another user (nobody) needs a temp folder too.
  chmodSync(root, 0o1777);
  // The test workers are started after this, with this environment.
  process.env.TMPDIR = root;
  return () => {
    if (previous === undefined) delete process.env.TMPDIR;
    else process.env.TMPDIR = previous;
    try {
      rmSync(root, { recursive: true, force: true, maxRetries: 3 });
    } catch (error) {
      process.stderr.write(
        `the tests' temporary folder ${root} was not removed: ${(error as Error).message}\n`,
      );
    }
  };
}
