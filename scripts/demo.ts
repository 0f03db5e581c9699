/**
 * `npm run demo`: the verification engine judging a learner's work, three times over, with no
 * model and no API key. The quest is fixtures/quests/first-file.yaml ("make your first file").
 * Each step runs the real `pi-quests check` on a real folder with recorded Pi events.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { main } from "../src/cli/main.ts";

const repo = resolve(import.meta.dirname, "..");
const quest = join(repo, "fixtures/quests/first-file.yaml");
const workspace = mkdtempSync(join(tmpdir(), "pi-quests-demo-"));
const agentDir = mkdtempSync(join(tmpdir(), "pi-quests-demo-agent-"));

const io = {
  stdout: (text: string) => process.stdout.write(text.replace(/^(?=.)/gm, "    ")),
  stderr: (text: string) => process.stderr.write(text),
  cwd: repo,
  env: { ...process.env, PI_CODING_AGENT_DIR: agentDir },
};

async function step(title: string, events?: string): Promise<number> {
  const eventArgs = events ? ["--events", join(repo, "fixtures/events", events)] : [];
  process.stdout.write(
    `\n== ${title}\n   pi-quests check first-file.yaml${events ? ` --events ${events}` : ""}\n\n`,
  );
  const code = await main(["check", quest, "--cwd", workspace, ...eventArgs], io);
  process.stdout.write(`   exit code ${code}\n`);
  return code;
}

try {
  const untouched = await step("1. Nothing done yet, no events recorded");
  const claimed = await step(
    '2. The agent says "Done! I created hello.txt" but wrote nothing',
    "claim-only.jsonl",
  );
  writeFileSync(join(workspace, "hello.txt"), "hello world\n");
  const done = await step(
    "3. The agent really wrote hello.txt (a write tool call, then the file)",
    "first-file-done.jsonl",
  );
  const expected = untouched === 1 && claimed === 1 && done === 0;
  process.stdout.write(
    `\n${expected ? "The claim did not pass; the real work did." : "Unexpected results: see above."}\n`,
  );
  process.exitCode = expected ? 0 : 1;
} finally {
  rmSync(workspace, { recursive: true, force: true });
  rmSync(agentDir, { recursive: true, force: true });
}
