/** `pi-quests lint PATH...`: every quest file and pack checked against the format. */
import { resolve } from "node:path";
import { parseArgs } from "node:util";
import { formatDiagnostic } from "../core/diagnostics.ts";
import { loadQuests } from "../verifier/loader.ts";
import type { CliCommand } from "./command.ts";
import { EXIT } from "./exit-codes.ts";
import { type CliIo, tryParse } from "./io.ts";

export const LINT_USAGE = `Usage: pi-quests lint PATH...

Checks each quest file or pack folder against the quest format (docs/quest-format.md):
schemas, regexes, duplicate ids, unknown or cyclic requires, sandbox folders, and
paths that can never resolve inside their root. Prints one file:line:column message
a problem, with the closest name for a typo.

Exit codes: 0 all valid, 3 something is invalid.
`;

export const LINT_COMMAND: CliCommand = {
  name: "lint",
  summary: "check quest files and packs (exit 0 valid, 3 invalid)",
  usage: LINT_USAGE,
  run: (args, io) => lint(args, io),
};

export async function lint(args: string[], io: CliIo): Promise<number> {
  const parsed = tryParse(
    () =>
      parseArgs({
        args,
        options: { help: { type: "boolean", short: "h" } },
        allowPositionals: true,
        strict: true,
      }),
    LINT_USAGE,
    io,
  );
  if (!parsed) return EXIT.invalid;
  if (parsed.values.help) {
    io.stdout(LINT_USAGE);
    return EXIT.pass;
  }
  if (parsed.positionals.length === 0) {
    io.stderr(`pi-quests lint: give at least one quest file or pack folder\n\n${LINT_USAGE}`);
    return EXIT.invalid;
  }
  let quests = 0;
  let invalid = false;
  for (const path of parsed.positionals) {
    const loaded = await loadQuests(resolve(io.cwd, path));
    if (loaded.ok) {
      quests += loaded.value.length;
    } else {
      invalid = true;
      for (const diagnostic of loaded.diagnostics) io.stderr(`${formatDiagnostic(diagnostic)}\n`);
    }
  }
  if (invalid) return EXIT.invalid;
  io.stdout(`${quests} quest(s) valid\n`);
  return EXIT.pass;
}
