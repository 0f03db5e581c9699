/** `pi-quests lint PATH...`: every quest file and pack checked against the format. */
import { stat } from "node:fs/promises";
import { basename, resolve } from "node:path";
import { parseArgs } from "node:util";
import { formatDiagnostic } from "../core/diagnostics.ts";
import { loadQuests } from "../verifier/loader.ts";
import { defaultPackId, readPackManifest } from "../verifier/pack-manifest.ts";
import { loadPlays } from "../verifier/play-loader.ts";
import { EXIT } from "./exit-codes.ts";
import { type CliIo, tryParse } from "./io.ts";
import { lintPackageManifest } from "./lint-manifest.ts";
import { packageScriptWarnings } from "./lint-package-scripts.ts";
import { protectionWarnings } from "./lint-protection.ts";
import { LINT_USAGE } from "./usage.ts";

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
  let plays = 0;
  let warnings = 0;
  let invalid = false;
  const report = (diagnostics: readonly Parameters<typeof formatDiagnostic>[0][]) => {
    invalid = true;
    for (const diagnostic of diagnostics) io.stderr(`${formatDiagnostic(diagnostic)}\n`);
  };
  // A warning is said like an error, file:line:col, and never makes the input invalid.
  const warn = (diagnostics: readonly Parameters<typeof formatDiagnostic>[0][]) => {
    warnings += diagnostics.length;
    for (const diagnostic of diagnostics) io.stderr(`warning: ${formatDiagnostic(diagnostic)}\n`);
  };
  const lintPack = async (absolute: string, defaultId?: string) => {
    const loaded = await loadQuests(absolute);
    if (loaded.ok) {
      quests += loaded.value.length;
      warn([...(await protectionWarnings(loaded.value)), ...(await packageScriptWarnings(loaded.value))]);
    } else report(loaded.diagnostics);
    // A pack folder's plays are checked against its quests, in the same run even when a quest
    // file has problems (as long as every file gives its id), and its pack.yaml; a lone quest
    // file has neither.
    if (!(await isFolder(absolute))) return;
    const manifest = await readPackManifest(absolute, defaultId ?? basename(absolute));
    if (!manifest.ok) report(manifest.diagnostics);
    const questIds = loaded.ok ? loaded.value.map((quest) => quest.id) : loaded.questIds;
    if (questIds === undefined) return;
    const loadedPlays = await loadPlays(absolute, questIds);
    if (loadedPlays.ok) plays += loadedPlays.value.length;
    else report(loadedPlays.diagnostics);
  };
  for (const path of parsed.positionals) {
    const absolute = resolve(io.cwd, path);
    // A Pi package's folder: its pi manifest, then each pack it lists (lint-manifest.ts).
    const asPackage = (await isFolder(absolute)) ? await lintPackageManifest(absolute) : undefined;
    if (!asPackage) {
      await lintPack(absolute);
      continue;
    }
    if (asPackage.diagnostics.length > 0) report(asPackage.diagnostics);
    warn(asPackage.warnings);
    for (const pack of asPackage.packs) await lintPack(pack.dir, defaultPackId(pack.defaultId));
  }
  if (invalid) return EXIT.invalid;
  const valid = plays > 0 ? `${quests} quest(s) and ${plays} play(s) valid` : `${quests} quest(s) valid`;
  const warned = warnings === 0 ? "" : warnings === 1 ? " (1 warning)" : ` (${warnings} warnings)`;
  io.stdout(`${valid}${warned}\n`);
  return EXIT.pass;
}

async function isFolder(path: string): Promise<boolean> {
  return (await stat(path).catch(() => undefined))?.isDirectory() ?? false;
}
