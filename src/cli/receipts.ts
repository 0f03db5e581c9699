/** `pi-quests receipts`: each check's newest receipt reassessed against the files, running nothing. */
import { realpath } from "node:fs/promises";
import { join, resolve } from "node:path";
import { parseArgs } from "node:util";
import { openRecordSealer } from "../core/record-sealers.ts";
import { workspaceHome } from "../core/workspace-key.ts";
import { reassess } from "../receipts/assess.ts";
import { openReceiptStore } from "../receipts/store.ts";
import { EXIT } from "./exit-codes.ts";
import { agentDirOf, type CliIo, tryParse } from "./io.ts";
import { RECEIPTS_USAGE } from "./usage.ts";

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
  const store = await openReceiptStore(join(workspaceHome(dataDir, workspace), "receipts"), {
    sealer: openRecordSealer(dataDir, "receipts", workspace),
  });
  const found = await reassess(store, workspace);
  for (const warning of found.warnings) io.stderr(`warning: ${warning}\n`);
  for (const { file, reason } of found.altered)
    io.stderr(`warning: ${file}: altered receipt ignored (${reason})\n`);
  if (values.json) {
    io.stdout(
      `${JSON.stringify({
        workspace,
        fingerprint: found.fingerprint.ok ? found.fingerprint.fingerprint.value : null,
        fingerprintProblem: found.fingerprint.ok ? null : found.fingerprint.reason,
        receipts: found.assessments.map(({ receipt, freshness, reason, superseded }) => ({
          id: receipt.id,
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
        interrupted: found.interrupted.map((receipt) => receipt.id),
        warnings: found.warnings,
        altered: found.altered,
      })}\n`,
    );
    return EXIT.pass;
  }
  if (found.assessments.length === 0) io.stdout(`no receipts for ${workspace}\n`);
  for (const { receipt, freshness, reason, superseded } of found.assessments) {
    const older = superseded > 0 ? `, supersedes ${superseded}` : "";
    io.stdout(
      `${freshness.padEnd(10)} ${receipt.state.padEnd(9)} ${receipt.quest}/${receipt.check}: ${receipt.command} (${reason}; ${receipt.startedAt}${older})\n`,
    );
  }
  for (const receipt of found.interrupted)
    io.stdout(`recorded as interrupted: ${receipt.quest}/${receipt.check} (${receipt.id})\n`);
  return EXIT.pass;
}
