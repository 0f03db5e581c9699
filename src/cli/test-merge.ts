/**
 * `pi-quests test --merge A.json B.json ...`: the JSON reports of a run's N shards (`--shard K/N
 * --reporter json`) joined into one report (plays/merge.ts), printed with the chosen reporter,
 * and the exit code one run would have given: 0 when every play ended as its name says, 1 when
 * one did not (or, with `--strict`, a quest is unproven), 3 when the reports are not the shards
 * of one run (a sentence naming the file: nothing is printed on stdout).
 */
import { readFile } from "node:fs/promises";
import { resolve } from "node:path";
import { EXIT } from "./exit-codes.ts";
import type { CliIo } from "./io.ts";
import { mergeShardReports, type ReportFile } from "./plays/merge.ts";
import { testExitCode } from "./plays/report.ts";
import { REPORTERS, type ReporterName } from "./plays/reporters.ts";

export async function testMerge(
  files: readonly string[],
  reporter: ReporterName,
  io: CliIo,
): Promise<number> {
  const invalid = (message: string) => {
    io.stderr(`pi-quests test --merge: ${message}\n`);
    return EXIT.invalid;
  };
  if (files.length === 0) return invalid("give the JSON reports of the shards to merge");
  const read: ReportFile[] = [];
  for (const file of files) {
    try {
      read.push({ file, text: await readFile(resolve(io.cwd, file), "utf8") });
    } catch (error) {
      return invalid(`cannot read ${file} (${(error as NodeJS.ErrnoException).code ?? "unreadable"})`);
    }
  }
  const merged = mergeShardReports(read);
  if (!merged.ok) return invalid(merged.message);
  io.stdout(await REPORTERS[reporter](merged.report));
  return testExitCode(merged.report);
}
