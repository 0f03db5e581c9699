/** `pi-quests check`: one quest evaluated against a workspace, with the real probes. */
import { readFile, realpath, stat } from "node:fs/promises";
import { homedir } from "node:os";
import { join, resolve } from "node:path";
import { parseArgs } from "node:util";
import { refuseDebuggerSignal } from "../core/debugger-signal.ts";
import { describeFsError, formatDiagnostic } from "../core/diagnostics.ts";
import { describeAlert } from "../core/integrity.ts";
import { isInside } from "../core/paths.ts";
import { codeLoadedBeforeStart, untrustedStartSentence } from "../core/process-start.ts";
import { openRecordSealer } from "../core/record-sealers.ts";
import {
  bundledYamlVersion,
  shippedYamlValues,
  type YamlValueCache,
  yamlValuesStamp,
} from "../core/yaml-value-cache.ts";
import { yamlValueMemory } from "../core/yaml-value-memory.ts";
import { lastActivation } from "../events/activation.ts";
import type { QuestActivation } from "../events/names.ts";
import type { VerifierEvent } from "../events/schema.ts";
import { createGitProbe } from "../probes/git.ts";
import { piIndexBeside, piSdkBeside } from "../runtime/pi-host.ts";
import { createQuestEvaluator, type QuestEvaluatorOptions } from "../runtime/quest-evaluator.ts";
import { REVIEW_MODEL_PATTERN } from "../verifier/checks/review.ts";
import { loadQuests } from "../verifier/loader.ts";
import type { Quest } from "../verifier/quest.ts";
import { formatQuestResult } from "../verifier/report.ts";
import { chooseBaselines, type ResolveRevision } from "./baselines.ts";
import { EXIT, exitCodeFor } from "./exit-codes.ts";
import { agentDirOf, type CliIo, tryParse } from "./io.ts";
import { findPi } from "./plays/pi-binary.ts";
import type { SessionFileProblem } from "./session-file.ts";
import { CHECK_USAGE } from "./usage.ts";

const CHECK_OPTIONS = {
  quest: { type: "string" },
  cwd: { type: "string" },
  baseline: { type: "string" },
  events: { type: "string" },
  session: { type: "string" },
  "data-dir": { type: "string" },
  confirm: { type: "string", multiple: true },
  "review-model": { type: "string" },
  json: { type: "boolean" },
  help: { type: "boolean", short: "h" },
} as const;

const parseCheckArgs = (args: string[]) =>
  parseArgs({ args, options: CHECK_OPTIONS, allowPositionals: true, strict: true });
type CheckFlags = ReturnType<typeof parseCheckArgs>["values"];

/** A step's outcome: its value, or a stop whose reason is already on stderr (exit 3). */
type Step<T> = { ok: true; value: T } | { ok: false };

const stop = (io: CliIo, message: string): { ok: false } => {
  io.stderr(`pi-quests check: ${message}\n`);
  return { ok: false };
};

/** The same stop, as the command's exit code. */
const invalid = (io: CliIo, message: string): number => {
  stop(io, message);
  return EXIT.invalid;
};

type Folders = { workspace: string; agentDir: string; dataDir: string };
type Recorded = { events: VerifierEvent[]; sessionId?: string };

export async function check(args: string[], io: CliIo): Promise<number> {
  // The receipts this process seals are the CLI's: no debugger opened into it by a signal.
  refuseDebuggerSignal();
  const parsed = tryParse(() => parseCheckArgs(args), CHECK_USAGE, io);
  if (!parsed) return EXIT.invalid;
  const { values, positionals } = parsed;
  if (values.help) {
    io.stdout(CHECK_USAGE);
    return EXIT.pass;
  }
  if (positionals.length !== 1)
    return invalid(io, `give exactly one quest file or pack folder (got ${positionals.length})`);
  if (values.events !== undefined && values.session !== undefined) {
    return invalid(io, "give --events or --session, not both");
  }
  const reviewModel = values["review-model"];
  if (reviewModel !== undefined && !REVIEW_MODEL_PATTERN.test(reviewModel)) {
    return invalid(
      io,
      `--review-model ${reviewModel}: give provider/model-id (for example anthropic/claude-sonnet-4-5)`,
    );
  }
  // Every check pins HEAD (chooseBaselines): git reads it while the quest loads, on another core.
  const pinning = startPinning(resolve(io.cwd, values.cwd ?? "."));
  const folders = await chooseFolders(values, io);
  if (!folders.ok) return EXIT.invalid;
  const trust = trustOfStart(io);
  const quest = await chooseQuest(resolve(io.cwd, positionals[0] ?? ""), values, folders.value, trust, io);
  if (!quest.ok) return EXIT.invalid;
  const recorded = await readRecorded(values, folders.value, io);
  if (!recorded.ok) return EXIT.invalid;
  return evaluateQuest(quest.value, values, folders.value, recorded.value, pinning, trust, io);
}

/**
 * Whether this process may keep records: not when code was loaded into it before pi-quests
 * (a preload, a loader hook, NODE_PATH...), which could have patched the run it would seal. The
 * check still runs and answers (its output is its caller's to trust or not, and an author's
 * shell may carry such a preload honestly), but reads no receipt and leaves none, nor any parse
 * cache entry: nothing a later `pi-quests check` would trust. Said once on stderr, and in the
 * JSON's notes.
 */
type StartTrust = { keepsRecords: true } | { keepsRecords: false; note: string };

function trustOfStart(io: CliIo): StartTrust {
  const found = codeLoadedBeforeStart({ env: io.env, execArgv: io.execArgv ?? [] });
  if (found.length === 0) return { keepsRecords: true };
  const note = untrustedStartSentence(
    found,
    "the quest is checked, but no receipt is read or left (a receipt is only as honest as the process that wrote it)",
  );
  io.stderr(`pi-quests check: ${note}\n`);
  return { keepsRecords: false, note };
}

/** How revisions of the workspace are resolved, HEAD already asked for. */
type Pinning = { resolve: ResolveRevision };

function startPinning(workspace: string): Pinning {
  const gitProbe = createGitProbe();
  const head = gitProbe.resolveRevision(workspace, "HEAD");
  // Awaited in evaluateQuest, or never when the input is invalid: a failure is not unhandled meanwhile.
  head.catch(() => {});
  return {
    resolve: (revision) => (revision === "HEAD" ? head : gitProbe.resolveRevision(workspace, revision)),
  };
}

/** The quest to check: the one `--quest` names, or the only one there; and its `--confirm` ids checked. */
async function chooseQuest(
  path: string,
  values: CheckFlags,
  { dataDir }: Folders,
  trust: StartTrust,
  io: CliIo,
): Promise<Step<Quest>> {
  const loaded = await loadQuests(path, { yamlValues: questValueCache(dataDir, trust) });
  if (!loaded.ok) {
    for (const diagnostic of loaded.diagnostics) io.stderr(`${formatDiagnostic(diagnostic)}\n`);
    return { ok: false };
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
    return stop(
      io,
      values.quest !== undefined
        ? `no quest "${values.quest}" here; the quests are: ${ids}`
        : `this pack has ${quests.length} quests; choose one with --quest ID (${ids})`,
    );
  }
  const checkIds = new Set(quest.checks.map((c) => c.id));
  for (const id of new Set(values.confirm ?? [])) {
    if (!checkIds.has(id))
      return stop(io, `--confirm ${id}: quest ${quest.id} has no such check (${[...checkIds].join(", ")})`);
  }
  return { ok: true, value: quest };
}

/**
 * The parse cache the quest files are read with: the shipped pack's, and in front of it the
 * values of the files this data dir's checks parsed before (yaml-value-memory.ts), for the
 * bundle only, which names its yaml library (the sources parse every file), and only in a
 * process that keeps records.
 */
function questValueCache(dataDir: string, trust: StartTrust): YamlValueCache | undefined {
  const yaml = bundledYamlVersion();
  const shipped = shippedYamlValues();
  return yaml === undefined || !trust.keepsRecords
    ? shipped
    : yamlValueMemory(dataDir, yamlValuesStamp(yaml), shipped);
}

/** The workspace (`--cwd`), and where evidence goes (`--data-dir`): never inside the workspace. */
async function chooseFolders(values: CheckFlags, io: CliIo): Promise<Step<Folders>> {
  const workspace = resolve(io.cwd, values.cwd ?? ".");
  if (
    !(await stat(workspace).then(
      (info) => info.isDirectory(),
      () => false,
    ))
  ) {
    return stop(io, `--cwd ${workspace}: no such folder`);
  }
  const agentDir = agentDirOf(io);
  // Evidence never goes into the learner's project: the verifier does not write there.
  const dataDir = resolve(io.cwd, values["data-dir"] ?? join(agentDir, "quests"));
  if (isInside(dataDir, workspace)) {
    return stop(io, `--data-dir ${dataDir} is inside the workspace ${workspace}; choose a folder outside it`);
  }
  return { ok: true, value: { workspace, agentDir, dataDir } };
}

/** The events to check against: from `--events`, from `--session`, or none. */
async function readRecorded(
  values: CheckFlags,
  { workspace, dataDir }: Folders,
  io: CliIo,
): Promise<Step<Recorded>> {
  let events: VerifierEvent[] = [];
  let sessionId: string | undefined;
  if (values.events !== undefined) {
    const realWorkspace = await realpath(workspace);
    const sealer = openRecordSealer(dataDir, "events", realWorkspace);
    // The readers of --events and --session are imported only when one is given.
    const { readEventLog } = await import("../events/log-reader.ts");
    const read = await readEventLog(resolve(io.cwd, values.events), sealer, "strict");
    if (!read.ok) {
      for (const diagnostic of read.diagnostics) io.stderr(`${formatDiagnostic(diagnostic)}\n`);
      return { ok: false };
    }
    for (const warning of read.warnings) io.stderr(`warning: ${formatDiagnostic(warning)}\n`);
    events = read.events;
  }
  if (values.session !== undefined) {
    const file = resolve(io.cwd, values.session);
    let text: string;
    try {
      text = await readFile(file, "utf8");
    } catch (error) {
      return stop(io, `${file}: ${describeFsError(error)}`);
    }
    // Only a missing or broken header stops the check (exit 3). A line that could not be read
    // is a warning, FILE:LINE: message, and the quest is evaluated on the rest: its exit code
    // is the result's, since the events that were read are the session's, and the warnings say
    // what is missing from them.
    const { parseSessionFile } = await import("./session-file.ts");
    const session = parseSessionFile(text, file);
    if (!session.ok) {
      for (const error of session.errors) io.stderr(`${sessionFileLine(error)}\n`);
      return { ok: false };
    }
    for (const warning of session.warnings) io.stderr(`${sessionFileLine(warning)}\n`);
    if (session.warnings.length > 0) {
      const lines = session.warnings.length === 1 ? "1 line" : `${session.warnings.length} lines`;
      io.stderr(`pi-quests check: ${lines} of ${file} not read in full; checking against the rest\n`);
    }
    events = session.events;
    sessionId = session.sessionId;
  }
  return { ok: true, value: { events, ...(sessionId ? { sessionId } : {}) } };
}

/** A session file's line, for a person: `FILE:LINE: message` (a line is one entry: no column). */
const sessionFileLine = ({ file, line, message }: SessionFileProblem) => `${file}:${line}: ${message}`;

/** Pins the baselines, evaluates the quest with the real probes and prints the result. */
async function evaluateQuest(
  quest: Quest,
  values: CheckFlags,
  { workspace, agentDir, dataDir }: Folders,
  { events, sessionId }: Recorded,
  pinning: Pinning,
  trust: StartTrust,
  io: CliIo,
): Promise<number> {
  // The baselines are pinned once, to full object ids: the activation's when the events log
  // records one, HEAD otherwise. A workspace outside git has none: its git checks are pending,
  // unless a baseline was asked for, which is then an error.
  const baselines = await chooseBaselines({
    questId: quest.id,
    ...(values.baseline !== undefined ? { explicit: values.baseline } : {}),
    ...withActivation(lastActivation(events, quest.id)),
    resolve: pinning.resolve,
  });
  if (!baselines.ok) return invalid(io, baselines.message);
  const { baseline, oracleBaseline } = baselines;
  for (const note of baselines.notes) io.stderr(`pi-quests check: ${note}\n`);
  const notes = trust.keepsRecords ? baselines.notes : [...baselines.notes, trust.note];

  // Command checks run in the isolated task verifier, pinned to the oracle baseline (the same
  // baseline without a sandbox); every run leaves a receipt of the CLI's own, and a fresh one
  // answers the check without a run. The CLI never reads a Pi session's receipts: one store per
  // writer, each process reading and writing only its own (src/receipts/writers.ts).
  const confirmed = new Set(values.confirm ?? []);
  const evaluate = await createQuestEvaluator({
    quest,
    workspace,
    ...(baseline ? { baseline } : {}),
    ...(oracleBaseline ? { oracleBaseline } : {}),
    dataDir,
    writer: "cli",
    ...(trust.keepsRecords ? {} : { receiptsInMemory: true }),
    agentDir,
    home: homedir(),
    env: io.env,
    confirmed: (id) => confirmed.has(id),
    onIntegrityAlert: (alert) => io.stderr(`warning: ${describeAlert(alert)}\n`),
    ...(values["review-model"] ? { reviewModels: { fallback: values["review-model"] } } : {}),
    ...piOf(io),
  });
  const result = await evaluate({ events, ...(sessionId ? { sessionId } : {}) });
  const json = notes.length > 0 ? { ...result, notes } : result;
  io.stdout(values.json ? `${JSON.stringify(json)}\n` : formatQuestResult(result, quest.title));
  return exitCodeFor(result.status);
}

/**
 * The Pi a play would run (src/cli/plays/pi-binary.ts): its package folder for command checks
 * (PI_QUESTS_PI_PACKAGE), and its SDK for skill and review checks, imported only when one runs.
 * Without a Pi those checks are pending, with findPi's reason.
 */
function piOf(io: CliIo): Pick<QuestEvaluatorOptions, "piPackage" | "pi" | "piSdkFile"> {
  const found = findPi({ env: io.env, cwd: io.cwd });
  if (!found.ok) return { pi: async () => ({ ok: false, message: found.message }) };
  const sdkFile = piIndexBeside(found.pi.cli)?.index;
  return {
    piPackage: found.pi.packageDir,
    pi: piSdkBeside(found.pi.cli),
    ...(sdkFile ? { piSdkFile: sdkFile } : {}),
  };
}

const withActivation = (activation: QuestActivation | undefined) => (activation ? { activation } : {});
