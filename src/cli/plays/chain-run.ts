/**
 * One chain of plays in the real Pi: the pass plays of the quests the played quest requires,
 * then the play, in one workspace and one agent dir, as a learner who restarts `pi` between
 * quests would. Each play is one run of `pi --mode rpc`, offline, with the scripted model that
 * pi-quests ships following the play's replies; the runner starts the play's quest itself
 * (`PI_QUESTS_START=off`: nothing starts by itself), plays the steps, asks `/quest check`, and
 * closes Pi. The outcome is what the extension saved: the sealed progress file says whether
 * the quest is complete, and holds its last result.
 *
 * A play's `setup` runs before its Pi starts. A quest with a sandbox that the workspace does not
 * hold yet needs an empty folder, so there a first Pi starts the quest (which sets the sandbox
 * up) and exits, then the setup runs, then the play's Pi starts on the quest it left active.
 */
import { mkdir, realpath, writeFile } from "node:fs/promises";
import { join } from "node:path";
import {
  PLAY_MODEL,
  PLAY_PROVIDER,
  PLAY_REPLIES_ENV,
  playRepliesJson,
  type Reply,
} from "../../core/play-replies.ts";
import { openRecordSealer } from "../../core/record-sealers.ts";
import { workspaceHome } from "../../core/workspace-key.ts";
import { openProgressStore } from "../../runtime/progress.ts";
import type { Play } from "../../verifier/play.ts";
import type { QuestResult } from "../../verifier/results.ts";
import type { PlayContainment } from "./containment.ts";
import { describeFailedCall, type FailedToolCall, failedToolCalls, type StepMark } from "./failed-tools.ts";
import { type PiRpcClient, startPiRpcClient } from "./pi-rpc.ts";
import { playSteps, type ShellRunner, type StepTimeouts } from "./play-steps.ts";
import type { PlayOutcome } from "./report.ts";

/** Where a chain runs, and with what. */
export type ChainSetting = {
  /** Pi's cli.js. */
  piCli: string;
  /** The extension files given to `-e`: the scripted model, then pi-quests. */
  extensions: readonly string[];
  workspace: string;
  agentDir: string;
  /** Everything a play runs gets this environment and nothing else. */
  env: Record<string, string>;
  /** What every process of the chain runs inside (Pi is wrapped, leads its group, is tracked). */
  containment: Pick<PlayContainment, "wrap" | "detached" | "track">;
  /** A bash script in the workspace, contained. */
  shell: ShellRunner;
  /** Whether the workspace still needs the quest's sandbox (it is empty, and the quest has one). */
  needsSandbox(quest: string): Promise<boolean>;
  timeouts: StepTimeouts & { startMs: number };
};

export type PlayedOutcome = {
  outcome: PlayOutcome;
  reason?: string;
  result?: QuestResult;
  /** For a play that did not complete its quest: the tool calls that failed, with their steps. */
  failedTools?: FailedToolCall[];
};

/** Plays `before` (each must complete its quest) then `play`; the outcome is the play's. */
export async function runChain(
  setting: ChainSetting,
  before: readonly Play[],
  play: Play,
): Promise<PlayedOutcome> {
  const set = await playRequirements(setting, before);
  return set ?? runPlay(setting, play);
}

/**
 * Plays one after the other in one workspace (the pack's advised order), each outcome given as
 * it ends; once one does not complete its quest, the ones after it are not played (they would
 * not start where a learner would) and end as errors that say why.
 */
export async function runSequence(
  setting: ChainSetting,
  plays: readonly Play[],
  onPlayed: (play: Play, played: PlayedOutcome) => void,
): Promise<void> {
  let stoppedBy: string | undefined;
  for (const play of plays) {
    if (stoppedBy !== undefined) {
      onPlayed(play, { outcome: "error", reason: stoppedBy });
      continue;
    }
    const played = await runPlay(setting, play);
    onPlayed(play, played);
    if (played.outcome !== "complete") {
      const why = played.reason ? `: ${played.reason}` : "";
      stoppedBy = `not played: ${play.quest}/${play.name}, earlier in the pack's order, ended ${played.outcome}${why}`;
    }
  }
}

/**
 * The pass plays that complete the quests a quest requires, one after the other: undefined when
 * each completed its quest, else the error that stops the chain.
 */
export async function playRequirements(
  setting: ChainSetting,
  before: readonly Play[],
): Promise<PlayedOutcome | undefined> {
  for (const required of before) {
    const played = await runPlay(setting, required);
    if (played.outcome !== "complete") {
      const why = played.reason ? `: ${played.reason}` : "";
      return {
        outcome: "error",
        reason: `not played: ${required.quest}/${required.name}, which completes ${required.quest} first, ended ${played.outcome}${why}`,
      };
    }
  }
  return undefined;
}

async function runPlay(setting: ChainSetting, play: Play): Promise<PlayedOutcome> {
  const replies = join(setting.agentDir, `replies-${play.quest}-${play.name}.json`);
  await mkdir(setting.agentDir, { recursive: true });
  await writeFile(replies, playRepliesOf(play));
  const env = { ...setting.env, [PLAY_REPLIES_ENV]: replies };

  let started = false;
  if (play.setup !== undefined) {
    if (await setting.needsSandbox(play.quest)) {
      const first = await openPi(setting, env);
      const start = await startQuest(first, play.quest, setting.timeouts.startMs);
      await first.close();
      if (!start.ok) return { outcome: "error", reason: start.reason };
      started = true;
    }
    const setup = await setting.shell(play.setup);
    if (setup.exitCode !== 0)
      return {
        outcome: "error",
        reason: `setup exited ${setup.exitCode ?? "by a signal"}: ${tail(setup.output)}`,
      };
  }

  const pi = await openPi(setting, env);
  let ranOut: string[] = [];
  let marks: StepMark[] = [];
  try {
    if (!started) {
      const start = await startQuest(pi, play.quest, setting.timeouts.startMs);
      if (!start.ok) return { outcome: "error", reason: start.reason };
    }
    const steps = await playSteps(pi, play.steps, setting.shell, setting.timeouts);
    marks = steps.marks;
    if (!steps.ok) return withFailedTools({ outcome: "error", reason: steps.reason }, play, pi, marks);
    ranOut = steps.ranOut;
    // The play's last word: the quest checked now, as `/quest check` would.
    await pi.prompt("/quest check", { timeoutMs: setting.timeouts.stepMs });
  } catch (error) {
    return withFailedTools({ outcome: "error", reason: firstLine(error) }, play, pi, marks);
  } finally {
    await pi.close();
  }
  const outcome = await outcomeOf(setting, play.quest);
  if (outcome.outcome === "complete") return outcome;
  // Why a play that needed more turns did not complete its quest, in the author's words.
  const needed =
    ranOut.length === 0
      ? outcome
      : {
          ...outcome,
          reason: `the play has no more replies: the model asked for more in ${ranOut.join(", ")}`,
        };
  return withFailedTools(needed, play, pi, marks);
}

/**
 * A play that did not complete its quest, with the tool calls that failed in it; for a play
 * meant to complete it without another reason, the last of them is the reason: the step and the
 * tool's own error (a fail play's failed calls are listed, never its reason).
 */
function withFailedTools(
  played: PlayedOutcome,
  play: Play,
  pi: PiRpcClient,
  marks: readonly StepMark[],
): PlayedOutcome {
  const failedTools = failedToolCalls(pi.lines, marks);
  const last = failedTools.at(-1);
  if (!last) return played;
  const explains = played.reason === undefined && play.expected === "complete";
  const more = failedTools.length > 1 ? ` (${failedTools.length} tool calls failed; all are listed)` : "";
  return {
    ...played,
    failedTools,
    ...(explains ? { reason: `${describeFailedCall(last)}${more}` } : {}),
  };
}

async function openPi(setting: ChainSetting, env: Record<string, string>): Promise<PiRpcClient> {
  const pi = startPiRpcClient({
    cli: setting.piCli,
    cwd: setting.workspace,
    env,
    extensions: setting.extensions,
    // --approve: the learner trusts their own sandbox; RPC could not be asked. Sessions are saved
    // (in the chain's agent dir), as a learner's are: /fork, /resume and /export need the files.
    args: ["--offline", "--approve", "--provider", PLAY_PROVIDER, "--model", PLAY_MODEL],
    wrap: (file, args) => setting.containment.wrap(file, args),
    detached: setting.containment.detached,
    waitMs: setting.timeouts.stepMs,
  });
  setting.containment.track(pi.pid);
  return pi;
}

/** `/quest start ID`, and whether the extension said it started. */
async function startQuest(
  pi: PiRpcClient,
  quest: string,
  timeoutMs: number,
): Promise<{ ok: true } | { ok: false; reason: string }> {
  const from = pi.lines.length;
  await pi.prompt(`/quest start ${quest}`, { timeoutMs });
  const said = pi.notifications(from);
  if (said.some((text) => text.startsWith("Quest started:"))) return { ok: true };
  return { ok: false, reason: `/quest start ${quest} said: ${said.join(" ") || "nothing"}` };
}

/** What the extension saved when Pi closed: complete or not, and the quest's last result. */
async function outcomeOf(setting: ChainSetting, quest: string): Promise<PlayedOutcome> {
  // Where the extension keeps this workspace's progress (src/extension/data-folder.ts).
  const dataDir = join(setting.agentDir, "quests");
  const workspace = await realpath(setting.workspace);
  const progressFile = join(workspaceHome(dataDir, workspace), "progress.json");
  const loaded = await openProgressStore(
    progressFile,
    openRecordSealer(dataDir, "progress", workspace),
  ).load();
  if (loaded.kind === "altered" || loaded.kind === "recovered")
    return {
      outcome: "error",
      reason: `the progress file could not be trusted (${loaded.kind}): it is set aside`,
    };
  const { progress } = loaded;
  const result = progress.lastResult?.quest === quest ? (progress.lastResult as QuestResult) : undefined;
  if (quest in progress.completed) return { outcome: "complete", ...(result ? { result } : {}) };
  if (!result) return { outcome: "not complete", reason: "the quest was never evaluated" };
  return { outcome: "not complete", result };
}

const firstLine = (error: unknown) =>
  (error instanceof Error ? error.message : String(error)).split("\n")[0] ?? "";
const tail = (output: string) => output.trim().split("\n").slice(-3).join(" / ");

/** The reviewer sessions' replies, one list a command step that reviews, in step order. */
export function reviewsOf(play: Pick<Play, "steps">): Reply[][] {
  return play.steps.flatMap((step) => ("review" in step && step.review ? [step.review] : []));
}

/** The replies file of a play: its runs' replies, and its reviewer sessions' when it has some. */
export function playRepliesOf(play: Pick<Play, "steps">): string {
  const reviews = reviewsOf(play);
  return playRepliesJson(repliesOf(play), reviews.length > 0 ? reviews : undefined);
}

/**
 * The replies file's lists, one a message the model answers, in step order: a prompt's, a
 * steer's and a follow-up's (Pi delivers steers before follow-ups: a play lists them that way).
 */
export function repliesOf(play: Pick<Play, "steps">): Reply[][] {
  return play.steps.flatMap((step) =>
    step.kind === "prompt" || step.kind === "steer" || step.kind === "follow_up" ? [step.model] : [],
  );
}
