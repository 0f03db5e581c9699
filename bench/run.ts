/** `npm run bench`: prints the figures docs/benchmarks.md quotes, with the machine they ran on. */
import { cpus, totalmem } from "node:os";
import { benchCli, cliTable } from "./cli.ts";
import { benchEngine, engineTable } from "./engine.ts";

const cpu = cpus()[0]?.model ?? "unknown CPU";
process.stdout.write(
  `Machine: ${cpus().length} × ${cpu}, ${(totalmem() / 2 ** 30).toFixed(0)} GiB, Node ${process.version}, ${new Date().toISOString().slice(0, 10)}\n\n`,
);
process.stdout.write("## Engine: evaluateQuest, 50 probe-only checks\n\n");
process.stdout.write(`${engineTable(await benchEngine())}\n\n`);
process.stdout.write("## CLI: one `pi-quests check` process\n\n");
process.stdout.write(`${cliTable(await benchCli())}\n`);
