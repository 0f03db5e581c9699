/** `npm run bench`: prints the figures docs/benchmarks.md quotes, with the machine they ran on. */
import { rmSync } from "node:fs";
import { cpus, homedir, tmpdir, totalmem } from "node:os";
import { join } from "node:path";
import { bashSandboxTable, benchBashSandbox } from "./bash-sandbox.ts";
import { benchChangedPaths, changedPathsTable } from "./changed-paths.ts";
import { benchCli, cliTable } from "./cli.ts";
import { benchCurriculum, curriculumTable } from "./curriculum.ts";
import { benchEngine, engineTable } from "./engine.ts";
import { benchExtension, extensionTable, turnEndTable } from "./extension.ts";
import { benchFingerprint, fingerprintTable } from "./fingerprint.ts";
import { benchPacks, packsReport } from "./packs.ts";
import { benchPlays, playsTable } from "./plays.ts";
import {
  benchJustWrittenWithBuilt,
  benchReceipts,
  benchUnchangedWithBuilt,
  justWrittenTable,
  receiptsTable,
  unchangedTable,
} from "./receipts.ts";
import { benchSessionFile, sessionFileTable } from "./session-file.ts";
import { benchTaskVerifier, taskVerifierTable } from "./task-verifier.ts";
import { benchTurnToHud, turnToHudTable } from "./turn-to-hud.ts";

const cpu = cpus()[0]?.model ?? "unknown CPU";
process.stdout.write(
  `Machine: ${cpus().length} × ${cpu}, ${(totalmem() / 2 ** 30).toFixed(0)} GiB, Node ${process.version}, ${new Date().toISOString().slice(0, 10)}\n\n`,
);
process.stdout.write("## Engine: evaluateQuest, 50 probe-only checks\n\n");
process.stdout.write(`${engineTable(await benchEngine())}\n\n`);
process.stdout.write("## CLI: lint and check processes, built and from the sources\n\n");
process.stdout.write(`${cliTable(await benchCli())}\n`);
process.stdout.write("\n## CLI: reading a 10,000-entry session file (`check --session`)\n\n");
process.stdout.write(`${sessionFileTable(await benchSessionFile())}\n`);

// Pi itself with and without the extension (under ~/.cache/pi-quests-bench-ext, removed after).
process.stdout.write("\n## Extension: `pi` with and without pi-quests\n\n");
const extension = await benchExtension();
process.stdout.write(`${extensionTable(extension)}\n`);
process.stdout.write("\n## Extension: the turn_end handler\n\n");
process.stdout.write(`${turnEndTable(extension)}\n`);
process.stdout.write("\n## Extension: the agent's bash in the sandbox, per command\n\n");
process.stdout.write(`${bashSandboxTable(await benchBashSandbox())}\n`);
// Quest packs: five pack packages installed against none (under ~/.cache/pi-quests-bench-packs).
process.stdout.write(`\n${packsReport(await benchPacks())}\n`);

process.stdout.write(
  "\n## What a call changed (`changedPaths`): the looks per tool call against `git status`\n\n",
);
process.stdout.write(`${changedPathsTable(await benchChangedPaths())}\n`);
process.stdout.write(
  "\n## What a call changed (`changedPaths`): a turn's end to the HUD, every curriculum quest\n\n",
);
process.stdout.write(`${turnToHudTable(await benchTurnToHud())}\n`);

process.stdout.write("\n## `pi-quests test`: the starter pack's plays\n\n");
process.stdout.write(`${playsTable(await benchPlays())}\n`);
process.stdout.write("\n## The built-in curriculum: lint and `pi-quests test quests/`\n\n");
process.stdout.write(`${curriculumTable(await benchCurriculum())}\n`);

// The verifier's data dir defaults to {agent_dir}/quests, under the home folder: measured there.
// /tmp is measured too, for one case: on these machines it creates files far more slowly.
process.stdout.write("\n## Task verifier: a command run directly and through the verifier\n\n");
const homeBase = join(homedir(), ".cache", "pi-quests-bench");
const tmpBase = join(tmpdir(), "pi-quests-bench");
try {
  const rows = [
    ...(await benchTaskVerifier(homeBase)),
    ...(await benchTaskVerifier(tmpBase, [
      { files: 10_000, label: "no-op (`true`)", content: "true", runs: 3 },
    ])),
  ];
  process.stdout.write(`${taskVerifierTable(rows)}\n`);
  process.stdout.write("\n## Receipts: fingerprints, fast and full path\n\n");
  process.stdout.write(`${fingerprintTable(await benchFingerprint(homeBase))}\n`);
  process.stdout.write("\n## Receipts: re-evaluating an unchanged workspace\n\n");
  process.stdout.write(`${receiptsTable(await benchReceipts(homeBase))}\n`);
  process.stdout.write("\n## Receipts: the unchanged workspace against `git status`\n\n");
  process.stdout.write(`${unchangedTable(await benchUnchangedWithBuilt(homeBase))}\n`);
  process.stdout.write("\n## Receipts: a workspace just written, beside one written a minute before\n\n");
  process.stdout.write(`${justWrittenTable(await benchJustWrittenWithBuilt(homeBase))}\n`);
} finally {
  rmSync(homeBase, { recursive: true, force: true });
  rmSync(tmpBase, { recursive: true, force: true });
}
