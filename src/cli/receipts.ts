/**
 * `pi-quests receipts`: each check's newest receipt of each writer (src/receipts/writers.ts)
 * reassessed against the files, running nothing. The CLI's own receipts are recovered (a run a
 * crashed `pi-quests check` left as running is recorded as interrupted); a Pi session's are only
 * read: this command never seals a receipt of a Pi session's.
 */
import { realpath } from "node:fs/promises";
import { join, resolve } from "node:path";
import { parseArgs } from "node:util";
import { RECORD_WRITERS, type RecordWriter } from "../core/record-sealers.ts";
import { workspaceHome } from "../core/workspace-key.ts";
import { type Reassessment, reassess } from "../receipts/assess.ts";
import { type FingerprintOutcome, fingerprint } from "../receipts/fingerprint.ts";
import { legacyReceiptCount, openWriterStore } from "../receipts/writers.ts";
import { EXIT } from "./exit-codes.ts";
import { agentDirOf, type CliIo, tryParse } from "./io.ts";
import { RECEIPTS_USAGE } from "./usage.ts";

type Found = { writer: RecordWriter; found: Reassessment };

/**
 * Each writer's receipts reassessed against one look at the files, newest of each check first
 * by start; the receipts written before writers were recorded counted, in a warning.
 */
async function reassessEachWriter(dataDir: string, workspace: string) {
  const home = workspaceHome(dataDir, workspace);
  let look: Promise<FingerprintOutcome> | undefined;
  const takeFingerprint = (path: string) => {
    look ??= fingerprint(path);
    return look;
  };
  const writers: Found[] = [];
  for (const writer of RECORD_WRITERS) {
    const store = await openWriterStore({
      dataDir,
      workspaceHome: home,
      workspace,
      writer,
      readOnly: writer !== "cli",
    });
    const recover = writer === "cli";
    writers.push({ writer, found: await reassess(store, workspace, { takeFingerprint, recover }) });
  }
  const legacy = await legacyReceiptCount(home);
  const legacyWarning =
    legacy > 0
      ? [
          `${legacy} receipt(s) in ${join(home, "receipts")} were written before pi-quests recorded who writes each; they are never used (remove them, or leave them)`,
        ]
      : [];
  return {
    rows: writers
      .flatMap(({ writer, found }) => found.assessments.map((assessment) => ({ writer, ...assessment })))
      .sort((a, b) => a.receipt.startedAt.localeCompare(b.receipt.startedAt)),
    warnings: [...writers.flatMap(({ found }) => found.warnings), ...legacyWarning],
    altered: writers.flatMap(({ writer, found }) =>
      found.altered.map(({ file, reason }) => ({ file: join("receipts", writer, file), reason })),
    ),
    interrupted: writers.flatMap(({ found }) => found.interrupted),
    current: await takeFingerprint(workspace),
  };
}

export async function receiptsCommand(args: string[], io: CliIo): Promise<number> {
  const parsed = tryParse(
    () =>
      parseArgs({
        args,
        options: {
          cwd: { type: "string" },
          "data-dir": { type: "string" },
          json: { type: "boolean" },
          help: { type: "boolean", short: "h" },
        },
        allowPositionals: false,
        strict: true,
      }),
    RECEIPTS_USAGE,
    io,
  );
  if (!parsed) return EXIT.invalid;
  const { values } = parsed;
  if (values.help) {
    io.stdout(RECEIPTS_USAGE);
    return EXIT.pass;
  }
  const workspace = await realpath(resolve(io.cwd, values.cwd ?? ".")).catch(() => undefined);
  if (!workspace) {
    io.stderr(`pi-quests receipts: --cwd ${resolve(io.cwd, values.cwd ?? ".")}: no such folder\n`);
    return EXIT.invalid;
  }
  const agentDir = agentDirOf(io);
  const dataDir = resolve(io.cwd, values["data-dir"] ?? join(agentDir, "quests"));
  const { rows, warnings, altered, interrupted, current } = await reassessEachWriter(dataDir, workspace);
  for (const warning of warnings) io.stderr(`warning: ${warning}\n`);
  for (const { file, reason } of altered)
    io.stderr(`warning: ${file}: altered receipt ignored (${reason})\n`);
  if (values.json) {
    io.stdout(
      `${JSON.stringify({
        workspace,
        fingerprint: current.ok ? current.fingerprint.value : null,
        fingerprintProblem: current.ok ? null : current.reason,
        receipts: rows.map(({ writer, receipt, freshness, reason, superseded }) => ({
          id: receipt.id,
          writer,
          quest: receipt.quest,
          check: receipt.check,
          state: receipt.state,
          freshness,
          reason,
          command: receipt.command,
          cwd: receipt.cwd,
          startedAt: receipt.startedAt,
          exitCode: receipt.exitCode,
          termination: receipt.termination,
          superseded,
        })),
        interrupted: interrupted.map((receipt) => receipt.id),
        warnings,
        altered,
      })}\n`,
    );
    return EXIT.pass;
  }
  if (rows.length === 0) io.stdout(`no receipts for ${workspace}\n`);
  for (const { writer, receipt, freshness, reason, superseded } of rows) {
    const older = superseded > 0 ? `, supersedes ${superseded}` : "";
    io.stdout(
      `${freshness.padEnd(10)} ${receipt.state.padEnd(9)} ${writer.padEnd(3)} ${receipt.quest}/${receipt.check}: ${receipt.command} (${reason}; ${receipt.startedAt}${older})\n`,
    );
  }
  for (const receipt of interrupted)
    io.stdout(`recorded as interrupted: ${receipt.quest}/${receipt.check} (${receipt.id})\n`);
  return EXIT.pass;
}
