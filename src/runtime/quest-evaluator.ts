/**
 * One quest, evaluated with the real adapters: the Node probes, the isolated task verifier for
 * command checks (pinned to the quest's oracle commit and definition) and receipts. The CLI's `check`
 * and the Pi extension both evaluate through here, so a quest means the same in both.
 */
import { realpath } from "node:fs/promises";
import type { IntegrityReporter } from "../core/integrity.ts";
import { openRecordSealer, type RecordWriter } from "../core/record-sealers.ts";
import { VERSION } from "../core/version.ts";
import { workspaceHome } from "../core/workspace-key.ts";
import type { VerifierEvent } from "../events/schema.ts";
import { createNodeProbes } from "../probes/index.ts";
import type { PiSdkSource } from "../probes/pi-sdk.ts";
import type { RecordOptions } from "../receipts/fingerprint.ts";
import { createFingerprinter } from "../receipts/fingerprinter.ts";
import { memoryReceiptStore } from "../receipts/memory-store.ts";
import { createReceiptPort } from "../receipts/port.ts";
import { currentHost } from "../receipts/store.ts";
import { openWriterStore, statCacheFile } from "../receipts/writers.ts";
import type { DependencyPin } from "../task-verifier/index.ts";
import type { CommandCheck } from "../verifier/checks/command.ts";
import {
  leavesReceipts,
  needsReviewer,
  runsInTaskVerifier,
  taskVerifierChecks,
} from "../verifier/checks/registry.ts";
import type { EvaluationTrigger } from "../verifier/context.ts";
import { evaluateQuest } from "../verifier/evaluate.ts";
import type { IsolatedRunRequest, ScriptOutcome } from "../verifier/probes.ts";
import type { Quest } from "../verifier/quest.ts";
import type { ReceiptPort } from "../verifier/receipts-port.ts";
import type { QuestResult } from "../verifier/results.ts";
import { oracleMissingMessage, oraclePin } from "./oracle-baseline.ts";
import { createReviewer, type ReviewerOptions, type ReviewModelSource } from "./reviewer.ts";

export type QuestEvaluatorOptions = {
  quest: Quest;
  /** The quest workspace (absolute). */
  workspace: string;
  /** The sandbox folder, when the quest has one (what `{sandbox}` names). */
  sandbox?: string;
  /**
   * The progress baseline, a full object id: what git checks (`commit_count`, `diff_contains`)
   * compare against; none outside git (git checks are then pending).
   */
  baseline?: string;
  /**
   * Where command checks' oracles come from (a full object id): the isolated verifier's worktree
   * starts from it and protected files are restored from it. A sandbox quest gives its
   * template's commit; without it, the oracle is `baseline`.
   */
  oracleBaseline?: string;
  /** Where evidence, worktrees and receipts go, outside the workspace. */
  dataDir: string;
  /**
   * Whose receipts and stat cache this evaluator reads and writes (src/receipts/writers.ts): the
   * extension's are `pi`, `pi-quests check`'s `cli`; neither ever reads the other's.
   */
  writer: RecordWriter;
  /**
   * Receipts kept in this process's memory only, and no stat cache read or written: for a
   * process started with code loaded before pi-quests (src/core/process-start.ts), which may
   * have patched what it runs. Its own runs answer it again; nothing it leaves is trusted later.
   */
  receiptsInMemory?: boolean;
  agentDir: string;
  home: string;
  env: Record<string, string | undefined>;
  /** Whether the learner confirmed a check; undefined means not yet. */
  confirmed: (checkId: string) => boolean | undefined;
  /** Told of each receipt ignored because pi-quests did not write it as it is. */
  onIntegrityAlert?: IntegrityReporter;
  /** node_modules as pinned when the quest was activated (pinDependencies); absent, not compared. */
  dependencies?: DependencyPin;
  /** Where a review check's model comes from when it names none (the learner's, the CLI's flag). */
  reviewModels?: ReviewModelSource;
  /** Told when a review starts and ends (the HUD says "reviewing…"). */
  onReviewActivity?: ReviewerOptions["onActivity"];
  /**
   * Pi's package folder, when the host knows it (the extension: the Pi that loaded it; the CLI:
   * the Pi it would play with): command checks get it as PI_QUESTS_PI_PACKAGE.
   */
  piPackage?: string;
  /** Pi's SDK, for skill checks and the reviewer (src/runtime/pi-host.ts finds it). */
  pi?: PiSdkSource;
  /**
   * The file `pi` is imported from, when known: with Pi's package folder, what a review's
   * receipt is bound to (a folder alone would take a fake SDK placed inside Pi's own folder).
   */
  piSdkFile?: string;
  /** How fingerprints leave stat records: the racy window (the default is the kernel's; tests narrow it). */
  statRecord?: RecordOptions;
};

export type EvaluationInput = {
  events: readonly VerifierEvent[];
  sessionId?: string;
  signal?: AbortSignal;
  /** Why it runs (absent: the learner asked); a review check reviews only when asked. */
  trigger?: EvaluationTrigger;
};

export type QuestEvaluator = (input: EvaluationInput) => Promise<QuestResult>;

/**
 * The workspace's receipt store of this evaluator's writer, with interrupted runs (a crash, a
 * kill) found and recorded first, and its fingerprints: each evaluation's and each recheck's
 * look at the files goes through one fingerprinter, which answers by lstat alone while nothing
 * changed (the writer's sealed stat cache lets a new process do the same). In memory only, both,
 * for a process whose start is not trusted.
 */
async function openReceipts({
  dataDir,
  workspace,
  writer,
  receiptsInMemory,
  onIntegrityAlert: onAlert,
  statRecord,
}: QuestEvaluatorOptions) {
  const realWorkspace = await realpath(workspace);
  const host = currentHost();
  if (receiptsInMemory)
    return {
      store: memoryReceiptStore(),
      realWorkspace,
      host,
      takeFingerprint: createFingerprinter(statRecord),
    };
  const home = workspaceHome(dataDir, realWorkspace);
  const store = await openWriterStore({
    dataDir,
    workspaceHome: home,
    workspace: realWorkspace,
    writer,
    onAltered: ({ file, reason }) => onAlert?.({ kind: "altered", record: "receipt", where: file, reason }),
  });
  await store.recoverInterrupted();
  const takeFingerprint = createFingerprinter({
    cache: {
      file: statCacheFile(home, writer),
      sealer: openRecordSealer(dataDir, `stat-cache.${writer}`, realWorkspace),
    },
    ...statRecord,
  });
  return { store, realWorkspace, host, takeFingerprint };
}

/**
 * The npm a check runs with: PI_QUESTS_NPM_CLI, else the npm that started us (npm sets
 * npm_execpath), else the one beside Node (the verifier looks there). Never a PATH search.
 */
function npmEntryPoint(env: Record<string, string | undefined>): { npmCliPath?: string } {
  const given =
    env.PI_QUESTS_NPM_CLI ?? (env.npm_execpath?.endsWith("npm-cli.js") ? env.npm_execpath : undefined);
  return given ? { npmCliPath: given } : {};
}

const unavailable = (message: string) => async (): Promise<ScriptOutcome> => ({
  ok: false,
  kind: "unavailable",
  message,
  report: "",
  truncated: false,
});

type IsolatedRun = (request: IsolatedRunRequest) => Promise<ScriptOutcome>;

/**
 * The isolated task verifier's run, pinned to the quest's checks and oracle; none when no check
 * needs it. The verifier is built on the first run, not before: a check answered by a fresh
 * receipt needs none of the git processes that opening it and recovering a crashed run's
 * leftovers take, and the first run still recovers before it starts.
 */
function isolatedRun(options: QuestEvaluatorOptions): IsolatedRun | undefined {
  const commandChecks = taskVerifierChecks(options.quest.checks);
  if (commandChecks.length === 0) return undefined;
  // What the verifier is built from is copied now, as its construction would have copied it:
  // a later change to the caller's objects changes nothing.
  const pinned: VerifierInput = structuredClone({
    questId: options.quest.id,
    checks: commandChecks,
    workspace: options.workspace,
    dataDir: options.dataDir,
    env: options.env,
    ...pick(options, ["baseline", "oracleBaseline", "dependencies", "piPackage"]),
  });
  let made: Promise<IsolatedRun> | undefined;
  return async (request) => {
    // A construction that threw is tried again by the next run; one that answered is kept.
    made ??= buildIsolatedRun(pinned).catch((error: unknown) => {
      made = undefined;
      throw error;
    });
    return (await made)(request);
  };
}

type VerifierInput = Pick<QuestEvaluatorOptions, "workspace" | "dataDir" | "env"> &
  Partial<Pick<QuestEvaluatorOptions, "baseline" | "oracleBaseline" | "dependencies" | "piPackage">> & {
    questId: string;
    checks: CommandCheck[];
  };

/** The options' members that are set, and only those. */
function pick<T extends object, K extends keyof T>(options: T, keys: readonly K[]): Partial<Pick<T, K>> {
  const picked: Partial<Pick<T, K>> = {};
  for (const key of keys) if (options[key] !== undefined) picked[key] = options[key];
  return picked;
}

/** The task verifier's run, or one that answers unavailable when the verifier cannot start. */
async function buildIsolatedRun(input: VerifierInput): Promise<IsolatedRun> {
  const oracle = oraclePin(input);
  if (!oracle.ok) return unavailable(oracle.message);
  // Imported here, as it is built: a process whose checks receipts answer loads none of it.
  const { createTaskVerifier } = await import("../task-verifier/index.ts");
  const made = await createTaskVerifier({
    workspace: input.workspace,
    dataDir: input.dataDir,
    ...(oracle.commit ? { baseline: oracle.commit } : {}),
    ...npmEntryPoint(input.env),
    checks: input.checks.map((check) => ({ questId: input.questId, check })),
    env: input.env,
    ...(input.dependencies ? { dependencies: input.dependencies } : {}),
    ...(input.piPackage ? { piPackage: input.piPackage } : {}),
  });
  // A template commit that is gone is said so, never replaced by HEAD.
  return made.ok
    ? made.verifier.run
    : unavailable(
        made.kind === "unknown_baseline" && input.oracleBaseline
          ? oracleMissingMessage(input.oracleBaseline)
          : made.message,
      );
}

/**
 * Builds the evaluator once (the receipt store; the task verifier on its first run); each call
 * evaluates the quest against the events given and the files as they are now. A pass is
 * published only after its receipts are rechecked against the current files.
 */
export async function createQuestEvaluator(options: QuestEvaluatorOptions): Promise<QuestEvaluator> {
  const { quest } = options;
  const runIsolated = isolatedRun(options);
  const probes = createNodeProbes({
    confirmed: options.confirmed,
    env: options.env,
    home: options.home,
    ...(runIsolated ? { runIsolated } : {}),
    ...(quest.checks.some(needsReviewer)
      ? {
          review: createReviewer({
            workspace: options.workspace,
            dataDir: options.dataDir,
            agentDir: options.agentDir,
            models: options.reviewModels ?? {},
            ...(options.onReviewActivity ? { onActivity: options.onReviewActivity } : {}),
            ...(options.pi ? { pi: options.pi } : {}),
          }),
        }
      : {}),
    ...(options.piPackage ? { piPackage: options.piPackage } : {}),
    ...(options.pi ? { pi: options.pi } : {}),
  });
  // Opened once; each evaluation gets its own port, whose view of the receipts and the files is a
  // snapshot of that evaluation.
  const opened = quest.checks.some(leavesReceipts) ? await openReceipts(options) : undefined;
  const oracle = options.oracleBaseline ?? options.baseline;
  // Who judges matters only to a review's receipt.
  const reviewer = quest.checks.some(needsReviewer) ? await reviewerOf(options) : undefined;
  const presumable = repeatsNothing(quest);
  const evaluateOnce = async (input: EvaluationInput, presume: boolean) => {
    const receipts = opened
      ? createReceiptPort({
          store: opened.store,
          workspace: opened.realWorkspace,
          // A receipt answers again only for the same oracle the isolated verifier pinned.
          ...(oracle ? { baseline: oracle } : {}),
          host: opened.host,
          takeFingerprint: opened.takeFingerprint,
          ...(presume ? { presume: opened.takeFingerprint.presume } : {}),
          tool: `pi-quests@${VERSION}`,
          ...(reviewer ? { reviewer } : {}),
        })
      : undefined;
    const result = await evaluateQuestWith(receipts, input);
    return { result, again: receipts?.presumptionFailed() === true };
  };
  const evaluateQuestWith = (receipts: ReceiptPort | undefined, input: EvaluationInput) =>
    evaluateQuest(quest, {
      probes,
      events: input.events,
      ...(input.sessionId ? { sessionId: input.sessionId } : {}),
      paths: {
        workspace: options.workspace,
        ...(options.sandbox ? { sandbox: options.sandbox } : {}),
        agentDir: options.agentDir,
        home: options.home,
      },
      ...(options.baseline ? { baseline: options.baseline } : {}),
      questId: quest.id,
      ...(input.signal ? { signal: input.signal } : {}),
      ...(receipts ? { receipts } : {}),
      ...(input.trigger ? { trigger: input.trigger } : {}),
    });
  // A receipt is first chosen with the fingerprint the files last had, and the recheck looks at
  // them: unchanged, that one look answers. Changed, the evaluation is made again from a look.
  return async (input) => {
    const first = await evaluateOnce(input, presumable);
    return first.again ? (await evaluateOnce(input, false)).result : first.result;
  };
}

/**
 * Whether evaluating the quest again runs no command and no review a second time: its receipts
 * are all of command checks run in the isolated verifier (a second evaluation reuses what the
 * first ran), with no review (a model's judgment) and nothing run in the learner's folder. Its
 * other checks are looked at again, as when the learner asks again (an MCP handshake starts its
 * server again).
 */
function repeatsNothing(quest: Quest): boolean {
  return quest.checks.filter(leavesReceipts).every(runsInTaskVerifier);
}

/** Who judges this evaluator's reviews (ReceiptPortOptions.reviewer): Pi's real folder and SDK file. */
export async function reviewerOf(
  options: Pick<QuestEvaluatorOptions, "piPackage" | "piSdkFile">,
): Promise<string | undefined> {
  const real = (path: string) => realpath(path).catch(() => path);
  const parts = [
    options.piPackage ? await real(options.piPackage) : undefined,
    options.piSdkFile ? await real(options.piSdkFile) : undefined,
  ];
  return parts.some((part) => part !== undefined) ? JSON.stringify(parts) : undefined;
}
