/** `pi-quests check`: one quest evaluated against a workspace, with the real probes. */
import { readFile, realpath, stat } from "node:fs/promises";
import { homedir } from "node:os";
import { join, resolve } from "node:path";
import { parseArgs } from "node:util";
import { describeFsError, formatDiagnostic } from "../core/diagnostics.ts";
import type { VerifierEvent } from "../core/events.ts";
import { loadQuests } from "../core/loader.ts";
import { VERSION } from "../core/version.ts";
import { workspaceHome } from "../core/workspace-key.ts";
import { createNodeProbes } from "../probes/index.ts";
import { createReceiptPort } from "../receipts/port.ts";
import { currentHost, openReceiptStore } from "../receipts/store.ts";
import { createTaskVerifier } from "../task-verifier/index.ts";
import { evaluateQuest } from "../verifier/evaluate.ts";
import { isInside } from "../verifier/paths.ts";
import { readEventsFile } from "./events-file.ts";
import { EXIT, exitCodeFor } from "./exit-codes.ts";
import { agentDirOf, type CliIo, tryParse } from "./io.ts";
import { formatQuestResult } from "./output.ts";
import { parseSessionFile } from "./session-file.ts";

export const CHECK_USAGE = `Usage: pi-quests check QUEST.yaml|PACK_DIR [options]

Evaluates one quest against a workspace and prints a line a check.

Options:
  --quest ID             the quest to check (needed when a pack has more than one)
  --cwd DIR              the quest workspace (default: the current folder)
  --baseline REV         the commit git checks compare against (default: HEAD)
  --events FILE.jsonl    recorded events, one JSON object a line
  --session FILE.jsonl   a Pi session file, turned into the same events
  --data-dir DIR         where verifier evidence goes, outside the workspace
                         (default: {agent_dir}/quests)
  --confirm CHECK_ID     answer yes to a confirm check (repeatable)
  --json                 print one JSON object instead of text
  -h, --help             this text

Exit codes: 0 pass, 1 fail, 2 pending, 3 invalid input (a quest file, an events file, a flag).
`;

/** The workspace's receipt store, with interrupted runs found and recorded first. */
async function openReceipts(dataDir: string, workspace: string, baseline: string | undefined) {
  const realWorkspace = await realpath(workspace);
  const store = await openReceiptStore(join(workspaceHome(dataDir, realWorkspace), "receipts"));
  await store.recoverInterrupted();
  return createReceiptPort({
    store,
    workspace: realWorkspace,
    ...(baseline ? { baseline } : {}),
    host: currentHost(),
    tool: `pi-quests@${VERSION}`,
  });
}

/**
 * The npm a check runs with: PI_QUESTS_NPM_CLI, else the npm that started us (npm sets
 * npm_execpath), else the one beside Node (the verifier looks there). Never a PATH search.
 */
function npmEntryPoint(env: NodeJS.ProcessEnv): { npmCliPath?: string } {
  const given =
    env.PI_QUESTS_NPM_CLI ?? (env.npm_execpath?.endsWith("npm-cli.js") ? env.npm_execpath : undefined);
  return given ? { npmCliPath: given } : {};
}

export async function check(args: string[], io: CliIo): Promise<number> {
  const parsed = tryParse(
    () =>
      parseArgs({
        args,
        options: {
          quest: { type: "string" },
          cwd: { type: "string" },
          baseline: { type: "string" },
          events: { type: "string" },
          session: { type: "string" },
          "data-dir": { type: "string" },
          confirm: { type: "string", multiple: true },
          json: { type: "boolean" },
          help: { type: "boolean", short: "h" },
        },
        allowPositionals: true,
        strict: true,
      }),
    CHECK_USAGE,
    io,
  );
  if (!parsed) return EXIT.invalid;
  const { values, positionals } = parsed;
  if (values.help) {
    io.stdout(CHECK_USAGE);
    return EXIT.pass;
  }
  const invalid = (message: string) => {
    io.stderr(`pi-quests check: ${message}\n`);
    return EXIT.invalid;
  };
  if (positionals.length !== 1)
    return invalid(`give exactly one quest file or pack folder (got ${positionals.length})`);
  if (values.events !== undefined && values.session !== undefined) {
    return invalid("give --events or --session, not both");
  }

  const loaded = await loadQuests(resolve(io.cwd, positionals[0] ?? ""));
  if (!loaded.ok) {
    for (const diagnostic of loaded.diagnostics) io.stderr(`${formatDiagnostic(diagnostic)}\n`);
    return EXIT.invalid;
  }
  const quests = loaded.value;
  const ids = quests.map((quest) => quest.id).join(", ");
  const quest =
    values.quest !== undefined
      ? quests.find((candidate) => candidate.id === values.quest)
      : quests.length === 1
        ? quests[0]
        : undefined;
  if (!quest) {
    return invalid(
      values.quest !== undefined
        ? `no quest "${values.quest}" here; the quests are: ${ids}`
        : `this pack has ${quests.length} quests; choose one with --quest ID (${ids})`,
    );
  }
  const checkIds = new Set(quest.checks.map((c) => c.id));
  const confirmed = new Set(values.confirm ?? []);
  for (const id of confirmed) {
    if (!checkIds.has(id))
      return invalid(`--confirm ${id}: quest ${quest.id} has no such check (${[...checkIds].join(", ")})`);
  }

  const workspace = resolve(io.cwd, values.cwd ?? ".");
  if (
    !(await stat(workspace).then(
      (info) => info.isDirectory(),
      () => false,
    ))
  ) {
    return invalid(`--cwd ${workspace}: no such folder`);
  }
  const agentDir = agentDirOf(io);
  // Evidence never goes into the learner's project: the verifier does not write there.
  const dataDir = resolve(io.cwd, values["data-dir"] ?? join(agentDir, "quests"));
  if (isInside(dataDir, workspace)) {
    return invalid(`--data-dir ${dataDir} is inside the workspace ${workspace}; choose a folder outside it`);
  }
  let events: VerifierEvent[] = [];
  let sessionId: string | undefined;
  if (values.events !== undefined) {
    const read = await readEventsFile(resolve(io.cwd, values.events));
    if (!read.ok) {
      for (const diagnostic of read.diagnostics) io.stderr(`${formatDiagnostic(diagnostic)}\n`);
      return EXIT.invalid;
    }
    events = read.events;
  }
  if (values.session !== undefined) {
    const file = resolve(io.cwd, values.session);
    let text: string;
    try {
      text = await readFile(file, "utf8");
    } catch (error) {
      return invalid(`${file}: ${describeFsError(error)}`);
    }
    const session = parseSessionFile(text, file);
    if (!session.ok) {
      for (const error of session.errors)
        io.stderr(`${formatDiagnostic({ ...error, column: error.line > 0 ? 1 : 0 })}\n`);
      return EXIT.invalid;
    }
    events = session.events;
    sessionId = session.sessionId;
  }

  const probes = createNodeProbes({ confirmed: (id) => confirmed.has(id), env: io.env, home: homedir() });

  // The baseline is pinned once, to a full object id. A workspace outside git has none:
  // its git checks are pending, unless a baseline was asked for, which is then an error.
  let baseline: string | undefined;
  const pinned = await probes.git.resolveRevision(workspace, values.baseline ?? "HEAD");
  if (pinned.ok) baseline = pinned.value;
  else if (values.baseline !== undefined) return invalid(`--baseline ${values.baseline}: ${pinned.message}`);

  // Command checks run in the isolated task verifier, pinned to the same baseline.
  const commandChecks = quest.checks.flatMap((c) =>
    c.type === "command" && c.isolation === "worktree" ? [c] : [],
  );
  if (commandChecks.length > 0) {
    const made = await createTaskVerifier({
      workspace,
      dataDir,
      ...(baseline ? { baseline } : {}),
      ...npmEntryPoint(io.env),
      checks: commandChecks.map((check) => ({ questId: quest.id, check })),
      env: io.env,
    });
    probes.runIsolated = made.ok
      ? made.verifier.run
      : async () => ({ ok: false, kind: "unavailable", message: made.message, report: "", truncated: false });
  }

  // Every command check run leaves a receipt; a fresh one answers the check without a run.
  const receipts = quest.checks.some((c) => c.type === "command")
    ? await openReceipts(dataDir, workspace, baseline)
    : undefined;

  const evaluated = await evaluateQuest(quest, {
    probes,
    events,
    ...(sessionId ? { sessionId } : {}),
    paths: { workspace, agentDir, home: homedir() },
    ...(baseline ? { baseline } : {}),
    questId: quest.id,
    ...(receipts ? { receipts } : {}),
  });
  // A pass is published only after its receipts are checked against the files as they are now.
  const result = receipts ? await receipts.recheck(evaluated) : evaluated;
  io.stdout(values.json ? `${JSON.stringify(result)}\n` : formatQuestResult(result, quest.title));
  return exitCodeFor(result.status);
}
